"""Counterfactual re-simulation: bit-identical prefixes, event directions, batches, controllers, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from wearbench._errors import WearbenchError
from wearbench._registry import registry
from wearbench.sim import (
    BasalBolusController,
    ControllerAction,
    Counterfactual,
    CounterfactualResult,
    CycleNow,
    HeavyLunch,
    InsulinNow,
    LateNightSnack,
    MealNow,
    NormalDay,
    PatientParams,
    RunNow,
    SimulationRun,
    exercise_array,
    fixed_meals,
    random_faults,
    run_simulation,
    simulate,
    simulate_counterfactual,
    simulate_counterfactuals,
)
from wearbench.sim import _counterfactual as counterfactual_module
from wearbench.sim._events import MemberInputs
from wearbench.sim._fast import resume_fast
from wearbench.sim._loop import RECORDED
from wearbench.sim.scenario import cycling_intensity, running_intensity

pytest.importorskip("simglucose")

PATIENTS = ["adult#002", "adolescent#003"]
KINDS = ["missing_signal", "positive_spike", "repeated_reading", "positive_bias", "false_meal",
         "false_bolus", "positive_basal", "min_basal", "unknown_under"]  # fmt: skip
AT = 1597  # 26:37, not on a checkpoint (every 50 min), between lunch and dinner


def _run(controller: str, faults: bool, exercise: bool = False) -> SimulationRun:
    plan = None
    if faults:
        plan = random_faults(
            KINDS, 2, 2880, np.random.default_rng(4), per_day=5, min_duration=30, max_duration=90, min_gap=20
        )
    ex = None
    if exercise:
        s = pd.DataFrame({"patient": [0, 1], "start": [1550, 1400], "duration": [45, 30],
                          "kind": ["running", "cycling"], "intensity": [0.6, 0.5]})  # fmt: skip
        ex = (exercise_array(s, 2, 2880), s)
    # checkpoints off the Dexcom's 3-min sample grid, so the sensor's held reading is restored too
    return run_simulation(
        PATIENTS, 2, controller=controller, seed=7, faults=plan, exercise=ex, checkpoint_every=50
    )


RUNS: dict[tuple[str, bool, bool], SimulationRun] = {}


def run_of(controller: str, faults: bool, exercise: bool = False) -> SimulationRun:
    key = (controller, faults, exercise)
    if key not in RUNS:
        RUNS[key] = _run(controller, faults, exercise)
    return RUNS[key]


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


def _assert_prefix(run: SimulationRun, r: CounterfactualResult, upto: int) -> None:
    p = int(r.request.patient)
    assert r.start < upto
    for s in RECORDED:
        assert _same_bits(r.streams[s][: upto - r.start], run.streams[s][r.start : upto, p]), s


def test_simulate_is_run_simulation_frame() -> None:
    run = run_of("basal-bolus", True)
    frame = simulate(PATIENTS, 2, seed=7, faults=run.faults)
    pd.testing.assert_frame_equal(frame, run.frame(), check_exact=True)
    assert sorted(run.checkpoints) == list(range(0, 2880, 50))


@pytest.mark.parametrize("controller", ["basal-bolus", "pid"])
@pytest.mark.parametrize("faults", [False, True])
def test_prefix_is_the_original_run_to_the_bit(controller: str, faults: bool) -> None:
    run = run_of(controller, faults)
    for event in (MealNow(60.0), InsulinNow(2.0), RunNow(30, 9.0)):
        r = simulate_counterfactual(run, AT, event, patient=0, horizon=120)
        assert r.start == 1550
        assert r.stop == AT + 120
        _assert_prefix(run, r, AT)
        assert not _same_bits(r.streams["true_bg"], run.streams["true_bg"][r.start : r.stop, 0])


@pytest.mark.parametrize("controller", ["basal-bolus", "pid"])
@pytest.mark.parametrize("faults", [False, True])
def test_a_null_event_reproduces_the_whole_rest_of_the_run(controller: str, faults: bool) -> None:
    # restores every piece of state exactly: patient, controller, sensor hold, fault history
    run = run_of(controller, faults)
    for event in (MealNow(0.0), InsulinNow(0.0)):
        r = simulate_counterfactual(run, AT, event, patient="adolescent#003")
        assert r.stop == 2880
        _assert_prefix(run, r, 2880)


def test_prefix_with_exercise_in_the_run() -> None:
    run = run_of("pid", False, exercise=True)
    r = simulate_counterfactual(run, AT, CycleNow(20, 120.0), patient=0, horizon=200)
    _assert_prefix(run, r, AT)
    assert r.streams["exercise"][AT - r.start + 10] > run.exercise[0, AT + 10]


@pytest.mark.parametrize(
    ("controller", "exercise", "normal_day"),
    [("pid", True, 1550), ("pid", False, 1800), ("basal-bolus", True, 1550)],
)
def test_compiled_counterfactuals_equal_run_loop_to_the_bit(
    controller: str, exercise: bool, normal_day: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # checkpoints every 50 min, between Dexcom samples; patient 0 runs 1550-1595 (z at 1550 > 0)
    run = run_of(controller, False, exercise)
    reqs = [
        Counterfactual(0, AT, InsulinNow(2.0), 300),
        Counterfactual(1, AT, RunNow(30, 9.0), 200),
        Counterfactual(0, AT + 7, MealNow(40.0), 150),
        Counterfactual(1, 1000, LateNightSnack(30.0), 600),  # the snack at 23:00 (1380)
        # day 2 replaced: the inputs first change where the run's day 2 had a session (1550-1595,
        # with exercise) or at the normal day's 06:00 run (1800, without)
        Counterfactual(0, 700, NormalDay(), None),
        Counterfactual(1, AT, MealNow(0.0), 100),  # nothing changes: the run's own streams
    ]
    spans: list[tuple[np.ndarray, np.ndarray]] = []

    def spy(*args: object, **kwargs: object) -> tuple[np.ndarray, np.ndarray]:
        spans.append(tuple(np.copy(a) for a in args[8]))  # type: ignore[arg-type,attr-defined]
        return resume_fast(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(counterfactual_module, "resume_fast", spy)
    fast = simulate_counterfactuals(run, reqs)
    assert len(spans) == 1  # one compiled call for the whole batch
    start, stop = spans[0]
    assert start.tolist() == [1550, 1550, 1600, 1350, normal_day, 1697]  # each from its own checkpoint
    assert stop.tolist() == [1897, 1797, 1754, 1600, 2880, 1697]  # ... to its own stop
    # run_loop with the numba step, one at a time: from the checkpoint before each injection minute
    slow = [simulate_counterfactuals(run, [r], compiled=False)[0] for r in reqs]
    assert len(spans) == 1
    for a, b in zip(fast, slow, strict=True):
        assert (a.start, a.stop) == (b.start, b.stop)
        for s in b.streams:
            assert _same_bits(a.streams[s], b.streams[s]), (type(a.request.event).__name__, s)
        if a.start < a.request.at:
            _assert_prefix(run, a, a.request.at)
    assert fast[0].after("bolus")[0] >= 2.0
    assert fast[3].streams["carbs_eaten"][1380 - fast[3].start] > run.eaten[1, 1380]


def test_compiled_path_only_for_plain_numba_runs() -> None:
    assert counterfactual_module._compiled(run_of("basal-bolus", False))
    assert counterfactual_module._compiled(run_of("pid", False, exercise=True))
    assert not counterfactual_module._compiled(run_of("pid", True))  # faults: run_loop
    numpy_run = run_simulation(["adult#002"], 1, seed=1, engine="numpy")
    assert not counterfactual_module._compiled(numpy_run)
    mpc = run_simulation(["adult#002"], 1, seed=1, controller="hcl-mpc", checkpoint_every=720)
    assert not counterfactual_module._compiled(mpc)


def test_events_move_bg_in_the_expected_direction() -> None:
    run = run_of("basal-bolus", False)
    base = run.streams["true_bg"][AT : AT + 120, 1]
    got = {type(e).__name__: simulate_counterfactual(run, AT, e, patient=1, horizon=120).after("true_bg")
           for e in (MealNow(60.0), InsulinNow(2.0), RunNow(30, 9.0))}  # fmt: skip
    # one hour on: a meal (bolused by the controller) raises BG, insulin and running lower it
    assert got["MealNow"][60] - base[60] > 20.0
    assert got["InsulinNow"][60] - base[60] < -20.0
    assert got["RunNow"][45] - base[45] < -5.0
    assert _same_bits(got["MealNow"][:1], base[:1])  # the minute of injection starts from the same state


def test_batch_equals_one_at_a_time_to_the_bit() -> None:
    run = run_of("pid", True)
    reqs = [
        Counterfactual(1, AT, MealNow(40.0), 90),
        Counterfactual("adult#002", AT + 50, RunNow(20, 8.0), 60),
        Counterfactual(1, 1430, InsulinNow(1.5), 200),
        Counterfactual(0, AT, MealNow(0.0), 30),
    ]
    batch = simulate_counterfactuals(run, reqs)
    for req, b in zip(reqs, batch, strict=True):
        one = simulate_counterfactual(run, req.at, req.event, patient=req.patient, horizon=req.horizon)
        assert b.stop == one.stop == req.at + (req.horizon or 0)
        assert b.start == 1400  # the batch starts from the checkpoint before its earliest minute
        _assert_prefix(run, b, req.at)  # patient 1's positive_spike (1365-1453) spans the start
        lag = one.start - b.start
        for s in (*RECORDED, "carbs_eaten", "exercise"):
            assert _same_bits(b.streams[s][lag:], one.streams[s]), s


def test_batches_split_by_window() -> None:
    run = run_of("basal-bolus", False)
    reqs = [Counterfactual(0, 100, MealNow(0.0), 30), Counterfactual(0, 2000, MealNow(0.0), 30)]
    a, b = simulate_counterfactuals(run, reqs, window=600)
    assert (a.start, b.start) == (100, 2000)
    for r in (a, b):
        _assert_prefix(run, r, r.stop)


@pytest.mark.parametrize("name", registry.names("controller"))
def test_every_controller_survives_checkpoint_and_replication(name: str) -> None:
    # the rule of sim/_state.py: per-patient arrays on axis 0, no in-place changes of old state
    run = run_simulation(["adolescent#003", "adult#002", "child#001"], 1, controller=name, seed=2,
                         meals=fixed_meals(3, 1), checkpoint_every=240)  # fmt: skip
    reqs = [Counterfactual(p, at, MealNow(0.0), 1440 - at) for p, at in ((2, 500), (0, 500), (2, 700))]
    for r in simulate_counterfactuals(run, reqs):
        _assert_prefix(run, r, 1440)


class RingController(BasalBolusController):
    """Basal-bolus whose basal follows the mean CGM of the last 7 minutes, kept in a ring buffer
    changed in place (allowed: snapshots copy arrays)."""

    def reset(self, params: PatientParams) -> None:
        super().reset(params)
        self._ring = np.full((params.n_patients, 7), 120.0)

    def policy(self, cgm: np.ndarray, carbs: np.ndarray, minute: int) -> ControllerAction:
        self._ring[:, minute % 7] = cgm
        action = super().policy(cgm, carbs, minute)
        return action._replace(basal=action.basal * self._ring.mean(axis=1) / 120.0)


def test_a_controller_changing_arrays_in_place_is_restored() -> None:
    run = run_simulation(PATIENTS, 1, controller=RingController(), seed=3, checkpoint_every=100)
    reqs = [Counterfactual(p, 555, MealNow(0.0), 1440 - 555) for p in (1, 0, 1)]
    for r in simulate_counterfactuals(run, reqs):
        _assert_prefix(run, r, 1440)


def test_bad_requests_raise_clear_errors() -> None:
    run = run_of("basal-bolus", False)
    with pytest.raises(WearbenchError, match=r"minute 2880 is outside the run \(0\.\.2879\)"):
        simulate_counterfactual(run, 2880, MealNow(10.0))
    with pytest.raises(WearbenchError, match=r"minute -1 is outside"):
        simulate_counterfactual(run, -1, MealNow(10.0))
    with pytest.raises(WearbenchError, match=r"patient 'adult#009' is not in this run"):
        simulate_counterfactual(run, 10, MealNow(10.0), patient="adult#009")
    with pytest.raises(WearbenchError, match=r"patient index 2 is not in 0\.\.1"):
        simulate_counterfactual(run, 10, MealNow(10.0), patient=2)
    with pytest.raises(WearbenchError, match=r"horizon 100 min must be 1\.\.80"):
        simulate_counterfactual(run, 2800, MealNow(10.0), horizon=100)
    with pytest.raises(WearbenchError, match=r"RunNow at minute 2870\).*running from minute 2870 for 30 min"):
        simulate_counterfactual(run, 2870, RunNow(30, 8.0))
    with pytest.raises(WearbenchError, match=r"outside 0-300 g"):
        simulate_counterfactual(run, 10, MealNow(400.0))


def _row(minutes: int = 2880) -> MemberInputs:
    return MemberInputs(fixed_meals(1, minutes // 1440)[0], np.zeros(minutes), np.zeros(minutes))


def test_event_injection_by_hand() -> None:
    # fixed meals: 45 g at 07:00, 70 g at 12:00, 10 g at 15:00, 80 g at 18:00 each day
    row = _row()
    HeavyLunch(1.5).inject(row, 800, 70.0)  # 13:20, after today's lunch: tomorrow's (minute 2160)
    assert row.eaten[720] == 70.0
    assert row.eaten[1440 + 720] == 175.0
    LateNightSnack(25.0, 22.5).inject(row, 600, 70.0)
    assert row.eaten[1350] == 25.0
    RunNow(30, 8.0).inject(row, 100, 70.0)  # 5-min ramp to running_intensity(8) = 0.731
    level = running_intensity(8.0)
    assert row.exercise[100] == pytest.approx(level / 5)
    assert row.exercise[104:130].tolist() == [level] * 26
    assert row.exercise[130] == 0.0
    CycleNow(20, 100.0).inject(row, 200, 70.0)  # 3-min ramp to 0.85 x 0.527
    assert row.exercise[205] == pytest.approx(0.85 * cycling_intensity(100.0, 70.0))
    InsulinNow(2.5).inject(row, 300, 70.0)
    assert row.insulin[300] == 2.5
    assert row.insulin.sum() == 2.5
    with pytest.raises(WearbenchError, match="no lunch"):
        HeavyLunch().inject(row, 2200, 70.0)


def test_normal_day_replaces_the_next_day() -> None:
    row = _row()
    row.eaten[1440 + 100] = 33.0
    row.exercise[1440 + 50 : 1440 + 80] = 0.5
    NormalDay().inject(row, 700, 60.0)
    day = row.eaten[1440:]
    assert {int(m): float(day[m]) for m in np.flatnonzero(day)} == {
        420: 45.0, 600: 10.0, 720: 70.0, 960: 10.0, 1080: 80.0
    }  # fmt: skip
    assert row.eaten[720] == 70.0  # today untouched
    ex = row.exercise[1440:]
    assert np.flatnonzero(ex).tolist() == [*range(360, 390), *range(1020, 1040)]
    assert ex[370] == pytest.approx(running_intensity(5.0))
    assert ex[1030] == pytest.approx(0.85 * cycling_intensity(90.0, 60.0))
    with pytest.raises(WearbenchError, match="does not fit"):
        NormalDay().inject(row, 1441, 60.0)
