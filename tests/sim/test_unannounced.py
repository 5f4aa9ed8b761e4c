"""Unannounced carbs (``MealNow(..., announced=False)``): eaten, never told to the controller."""

from __future__ import annotations

import numpy as np
import pytest

from wearbench._errors import WearbenchError
from wearbench.sim import (
    Counterfactual,
    MealNow,
    SimulationRun,
    random_faults,
    run_simulation,
    simulate_counterfactual,
    simulate_counterfactuals,
)
from wearbench.sim import _counterfactual as counterfactual_module
from wearbench.sim._events import MemberInputs

pytest.importorskip("simglucose")

PATIENTS = ["adult#002", "adolescent#003"]
AT = 1597  # 26:37 on day 2: between lunch (12:00) and dinner (18:00), no meal in the minute


def _run(faults: bool) -> SimulationRun:
    plan = None
    if faults:
        plan = random_faults(["positive_bias"], 2, 2880, np.random.default_rng(4), per_day=1, min_duration=30)
    return run_simulation(PATIENTS, 2, controller="basal-bolus", seed=7, faults=plan, checkpoint_every=50)


@pytest.fixture(scope="module")
def plain() -> SimulationRun:
    return _run(False)


def test_add_meal_splits_announced_from_unannounced_carbs() -> None:
    row = MemberInputs(np.zeros(10), np.zeros(10), np.zeros(10), np.zeros(10))
    row.add_meal(3, 20.0)
    row.add_meal(3, 25.0, announced=False)
    assert (row.eaten[3], row.hidden is not None and row.hidden[3]) == (20.0, 25.0)
    MealNow(5.0, announced=False).inject(row, 3, 70.0)
    assert row.hidden is not None
    assert row.hidden[3] == 30.0
    bare = MemberInputs(np.zeros(10), np.zeros(10), np.zeros(10))
    with pytest.raises(WearbenchError, match="unannounced carbs at minute 3"):
        bare.add_meal(3, 25.0, announced=False)
    with pytest.raises(WearbenchError, match="outside"):  # the bound counts both kinds of carbs
        row.add_meal(3, 1000.0, announced=False)


@pytest.mark.parametrize("faults", [False, True])
def test_the_controller_is_not_told_and_does_not_bolus(plain: SimulationRun, faults: bool) -> None:
    run = plain if not faults else _run(True)
    told = simulate_counterfactual(run, AT, MealNow(25.0), patient=1, horizon=240)
    hidden = simulate_counterfactual(run, AT, MealNow(25.0, announced=False), patient=1, horizon=240)
    k = AT - hidden.start
    # the controller's input ("carbs": what it was told) has nothing; the patient ate the 25 g
    assert run.streams["carbs"][AT, 1] == 0.0
    assert (hidden.streams["carbs"][k], hidden.streams["carbs_eaten"][k]) == (0.0, 25.0)
    assert (told.streams["carbs"][AT - told.start], told.streams["carbs_eaten"][AT - told.start]) == (
        25.0,
        25.0,
    )
    # no meal bolus at the minute: the same bolus as the recorded run; the announced snack's is larger
    assert hidden.streams["bolus"][k] == run.streams["bolus"][AT, 1]
    assert told.streams["bolus"][AT - told.start] > run.streams["bolus"][AT, 1] + 1.0
    # unbolused, glucose climbs higher over the next 4 h
    assert hidden.after("true_bg").max() > told.after("true_bg").max() + 20.0


def test_compiled_runs_mix_with_unannounced_members(plain: SimulationRun) -> None:
    # the fault-free basal-bolus run takes the compiled loop; the unannounced members fall back
    assert counterfactual_module._compiled(plain)
    reqs = [
        Counterfactual(0, AT, MealNow(30.0), 120),
        Counterfactual(1, AT, MealNow(25.0, announced=False), 120),
        Counterfactual(0, AT + 60, MealNow(25.0, announced=False), 60),
    ]
    got = simulate_counterfactuals(plain, reqs)
    alone = [
        simulate_counterfactual(plain, r.at, r.event, patient=r.patient, horizon=r.horizon) for r in reqs
    ]
    slow = simulate_counterfactuals(plain, reqs, compiled=False)
    for a, b, c in zip(got, alone, slow, strict=True):
        assert a.request == b.request
        np.testing.assert_array_equal(a.after("true_bg"), b.after("true_bg"))
        np.testing.assert_array_equal(a.after("true_bg"), c.after("true_bg"))
    assert got[1].after("carbs_eaten")[0] == 25.0
    assert got[1].after("carbs")[0] == 0.0
