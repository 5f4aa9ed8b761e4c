"""Hypoglycaemia self-treatment (rescue carbs): the rule, the loop, defaults and counterfactuals."""

from __future__ import annotations

import numpy as np
import pytest

from wearbench._errors import WearbenchError
from wearbench.sim import (
    BasalBolusController,
    ControllerAction,
    InsulinNow,
    LateNightSnack,
    RescueCarbs,
    SimulationRun,
    get_profile,
    run_simulation,
    simulate,
    simulate_counterfactual,
)
from wearbench.sim._loop import RECORDED
from wearbench.sim.patient._params import FloatArray
from wearbench.sim.scenario import RescueTreatment

pytest.importorskip("simglucose")

DAY = 1440
BOLUS_AT = 120  # minute of the overdose


def test_rule_alarm_symptoms_and_recheck() -> None:
    """Alarm at <= 55 shown, symptoms below 54 true, NaN shown is no alarm, 15 min between."""
    treat = RescueTreatment(RescueCarbs(confirm_mg_dl=None), 4)
    nan = np.nan
    got0 = treat.treat(0, np.array([55.0, 56.0, nan, 120.0]), np.array([100.0, 54.0, 53.9, 120.0]))
    assert got0.tolist() == [15.0, 0.0, 15.0, 0.0]
    low_shown, low_bg = np.full(4, 40.0), np.full(4, 40.0)
    assert treat.treat(14, low_shown, low_bg).tolist() == [0.0, 15.0, 0.0, 15.0]  # 0 and 2: waiting
    assert treat.treat(15, low_shown, low_bg).tolist() == [15.0, 0.0, 15.0, 0.0]  # 1 and 3 wait to 29
    assert treat.last.tolist() == [15.0, 14.0, 15.0, 14.0]


def test_alarm_is_confirmed_by_a_fingerstick_below_70() -> None:
    """A faulty low display alone (true 100 mg/dL) is not treated; a confirmed alarm (69.9) is."""
    treat = RescueTreatment(RescueCarbs(), 3)
    got = treat.treat(0, np.array([40.0, 40.0, 120.0]), np.array([100.0, 69.9, 53.0]))
    assert got.tolist() == [0.0, 15.0, 15.0]  # 2: symptoms below 54 whatever the display


def test_rule_parameters_and_checks() -> None:
    rule = RescueCarbs(grams=20, alarm_mg_dl=70, confirm_mg_dl=None, symptom_mg_dl=0, recheck_min=30)
    treat = RescueTreatment(rule, 1)
    assert treat.treat(3, np.array([70.0]), np.array([10.0])).tolist() == [20.0]
    assert treat.treat(32, np.array([60.0]), np.array([10.0])).tolist() == [0.0]
    assert treat.treat(33, np.array([60.0]), np.array([10.0])).tolist() == [20.0]
    for bad in ({"grams": 0.0}, {"recheck_min": 0}, {"alarm_mg_dl": np.nan}):
        with pytest.raises(WearbenchError, match="RescueCarbs"):
            RescueCarbs(**bad)  # type: ignore[arg-type]


class _Overdose(BasalBolusController):
    """Basal-bolus plus a 20 U bolus at minute BOLUS_AT, with no carbs (drives an adult low)."""

    def policy(self, cgm: FloatArray, carbs: FloatArray, minute: int) -> ControllerAction:
        a = super().policy(cgm, carbs, minute)
        return a._replace(bolus=a.bolus + (20.0 if minute == BOLUS_AT else 0.0))


def _meals() -> FloatArray:
    meals = np.zeros((1, DAY))
    meals[0, 600] = 40.0  # a lunch at 10:00, announced as usual
    return meals


def _overdosed(rescue: RescueCarbs | None, checkpoint_every: int | None = None) -> SimulationRun:
    return run_simulation(["adult#001"], 1, controller=_Overdose(), meals=_meals(), seed=3,
                          rescue=rescue, checkpoint_every=checkpoint_every)  # fmt: skip


@pytest.fixture(scope="module")
def runs() -> tuple[SimulationRun, SimulationRun]:
    return _overdosed(None), _overdosed(RescueCarbs(), checkpoint_every=1)


def test_overdose_is_treated_when_low_and_every_15_min_while_low(
    runs: tuple[SimulationRun, SimulationRun],
) -> None:
    plain, rescued = runs
    s = rescued.streams
    low = (s["cgm"][:, 0] <= 55.0) | (s["true_bg"][:, 0] < 54.0)
    first = int(np.argmax(low))
    times = np.flatnonzero(s["rescue"][:, 0])
    assert BOLUS_AT < first == times[0]  # the first low minute after the overdose
    assert set(s["rescue"][:, 0]) == {0.0, 15.0}
    assert np.all(low[times])  # only when low ...
    assert np.diff(times).min() >= 15  # ... and never within 15 min of the last treatment
    assert times[1] == first + 15
    assert low[first + 15]
    for t in np.flatnonzero(low):  # every low minute 15 min after the last treatment is treated
        assert t in times or (times[times < t].size and t - times[times < t].max() < 15)
    # identical up to the first treatment, then the carbs lift glucose above the untreated run
    assert np.array_equal(plain.streams["true_bg"][: first + 1], s["true_bg"][: first + 1])
    assert s["true_bg"][first + 30, 0] > plain.streams["true_bg"][first + 30, 0]
    assert s["true_bg"][:, 0].min() > plain.streams["true_bg"][:, 0].min()


def test_rescue_carbs_are_eaten_but_not_announced(runs: tuple[SimulationRun, SimulationRun]) -> None:
    plain, rescued = runs
    assert np.array_equal(rescued.streams["carbs"], plain.streams["carbs"])  # the controller's carbs
    assert np.flatnonzero(rescued.streams["carbs"][:, 0]).tolist() == [600]
    frame = rescued.frame()
    assert frame["rescue"].sum() == rescued.streams["rescue"].sum() > 0
    assert frame["carbs"].sum() == 40.0
    assert "rescue" not in plain.frame()
    assert not plain.streams["rescue"].any()


def test_a_run_never_low_is_bit_identical_with_and_without_rescue() -> None:
    """The rescue stage adds nothing until it treats; runs without it keep the compiled path."""
    off = simulate(["adult#001", "child#002"], 1, controller="basal-bolus", seed=5)
    never = RescueCarbs(alarm_mg_dl=-1.0, symptom_mg_dl=-1.0)
    on = simulate(["adult#001", "child#002"], 1, controller="basal-bolus", seed=5, rescue=never)
    assert not on.pop("rescue").any()
    assert on.equals(off)
    explicit = simulate(["adult#001", "child#002"], 1, controller="basal-bolus", seed=5, rescue=None)
    assert explicit.equals(off)


def test_counterfactual_carries_the_treatment_state(runs: tuple[SimulationRun, SimulationRun]) -> None:
    """From a checkpoint inside the 15-min wait the re-run waits too, bit for bit as the run."""
    _, rescued = runs
    first = int(np.flatnonzero(rescued.streams["rescue"][:, 0])[0])
    at = first + 5  # 10 min before the next treatment is due, patient still low
    assert rescued.streams["true_bg"][at, 0] < 54.0
    # a snack at 23:00 changes nothing before 23:00: the re-run from ``at`` must equal the run
    res = simulate_counterfactual(rescued, at, LateNightSnack(), horizon=120)
    assert res.start == at
    for s in RECORDED:
        assert np.array_equal(res.streams[s], rescued.streams[s][at : at + 120, 0]), s
    assert not res.after("rescue")[:10].any()  # the last treatment minute came from the checkpoint
    assert res.after("rescue")[10] == 15.0


def test_counterfactual_prefix_is_bit_identical_and_the_event_is_treated() -> None:
    """A run that is never low; an injected overdose is treated in the counterfactual only."""
    run = run_simulation(["adult#001", "adult#001"], 1, controller="hcl-mpc", seed=2, rescue=RescueCarbs(),
                         checkpoint_every=60)  # fmt: skip
    assert not run.streams["rescue"].any()
    at = 13 * 60 + 17
    res = simulate_counterfactual(run, at, InsulinNow(15.0), patient=1)
    assert res.start == 13 * 60
    for s in RECORDED:
        assert np.array_equal(res.streams[s][: at - res.start], run.streams[s][res.start : at, 1]), s
    treated = np.flatnonzero(res.after("rescue"))
    assert treated.size >= 2
    assert np.diff(treated).min() >= 15
    assert np.array_equal(res.after("carbs"), run.streams["carbs"][at:, 1])  # never announced


def test_healthloopqa_profile_treats_lows_and_default_profile_does_not() -> None:
    assert get_profile("healthloopqa").rescue == RescueCarbs(15.0, 55.0, 70.0, 54.0, 15)
    assert get_profile("default").rescue is None
