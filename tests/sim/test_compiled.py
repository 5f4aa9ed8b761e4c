"""The numba engine against the numpy engine: kernels, the compiled loop and whole runs to 1e-9.

The numpy engine is the reference (its bits are pinned by ``test_golden.py``); the compiled one
only reorders a few additions and uses libm's ``tanh``, so the two agree to about 1e-13 mg/dL
over a day. The compiled whole loop (``sim/_fast.py``) and ``run_loop`` with the compiled step
run the same kernel and agree bit for bit.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import pytest

from wearbench._errors import WearbenchError
from wearbench.sim import (
    BasalBolusController,
    PIDController,
    Pump,
    Sensor,
    exercise_array,
    initial_state,
    load_params,
    random_faults,
    random_meals,
    simulate,
    step_minute,
)
from wearbench.sim import _apart as simulate_module  # the module that calls run_fast
from wearbench.sim._counterfactual import ExtraInsulin
from wearbench.sim._fast import (
    FAST_ROWS,
    fast_loop_supports,
    fast_resume_supports,
    pack_state,
    resume_fast,
    run_fast,
)
from wearbench.sim._loop import RECORDED, LoopRecord, PlainMeals, PlainPump, PlainSensor, run_loop
from wearbench.sim._state import snapshot
from wearbench.sim.patient import PatientParams, PatientState, step_system
from wearbench.sim.patient import _compiled as compiled
from wearbench.sim.patient._model import exercise_step

pytest.importorskip("simglucose")  # patient parameter tables
pytest.importorskip("numba")

PATIENTS = ["adult#001", "adolescent#003", "child#007"]
TOL = 1e-9  # mg/dL, U/min, g


def _sessions(n: int, minutes: int) -> tuple[np.ndarray, pd.DataFrame]:
    s = pd.DataFrame(
        {
            "patient": list(range(n)),
            "start": [300 + 97 * i for i in range(n)],
            "duration": [45] * n,
            "kind": ["running", "cycling", "running"][:n],
            "intensity": [0.7, 0.5, 0.6][:n],
        }
    )
    return exercise_array(s, n, minutes), s


def _assert_close(got: pd.DataFrame, want: pd.DataFrame) -> float:
    """Same columns, same non-float values, float columns within TOL; returns the largest gap."""
    assert list(got.columns) == list(want.columns)
    worst = 0.0
    for c in got.columns:
        a, b = got[c].to_numpy(), want[c].to_numpy()
        if a.dtype != np.float64:
            assert [str(x) for x in a] == [str(x) for x in b], c
            continue
        assert np.array_equal(np.isnan(a), np.isnan(b)), c
        gap = float(np.nanmax(np.abs(a - b), initial=0.0))
        assert gap <= TOL, f"{c}: {gap}"
        worst = max(worst, gap)
    return worst


@pytest.mark.parametrize(
    ("controller", "sensor", "pump", "with_exercise"),
    [
        ("basal-bolus", "Dexcom", "Insulet", False),
        ("basal-bolus", "Navigator", "Cozmo", True),
        ("pid", "GuardianRT", "Insulet", True),
        ("pid", None, None, False),
    ],
)
def test_numba_run_matches_numpy_run(
    controller: str, sensor: str | None, pump: str | None, with_exercise: bool
) -> None:
    ex = _sessions(3, 1440) if with_exercise else None
    kw = {"controller": controller, "sensor": sensor, "pump": pump, "seed": 7, "exercise": ex}
    want = simulate(PATIENTS, 1, engine="numpy", **kw)
    got = simulate(PATIENTS, 1, engine="numba", **kw)
    _assert_close(got, want)
    assert want["true_bg"].max() > 180.0  # meals moved glucose: the comparison means something
    if with_exercise:
        assert got["exercise"].max() > 0.4


def test_faulty_run_through_run_loop_matches_numpy() -> None:
    plan = random_faults(["positive_spike", "false_bolus", "max_basal"], 2, 1440, np.random.default_rng(3))
    kw = {"faults": plan, "seed": 4, "exercise": _sessions(2, 1440)}
    want = simulate(PATIENTS[:2], 1, engine="numpy", **kw)
    got = simulate(PATIENTS[:2], 1, engine="numba", **kw)
    _assert_close(got, want)
    assert set(got["label"]) >= {"positive_spike", "false_bolus", "max_basal"}


def _loop_inputs(n: int, minutes: int) -> tuple[np.ndarray, np.ndarray, Sensor, Pump]:
    rng = np.random.default_rng(11)
    eaten = random_meals(n, 1, rng)[:, :minutes]
    sensor = Sensor.named("GuardianRT")
    return eaten, sensor.noise(n, minutes, rng), sensor, Pump.named("Insulet")


@pytest.mark.parametrize(
    "controller", [BasalBolusController(target=120.0), PIDController(p=0.002, target=130.0)]
)
def test_compiled_loop_equals_run_loop_bit_for_bit(controller: BasalBolusController | PIDController) -> None:
    """run_fast vs run_loop with the compiled step: every stream of RECORDED, same bits."""
    params = load_params(PATIENTS)
    eaten, noise, sensor, pump = _loop_inputs(3, 1440)
    ex = _sessions(3, 1440)[0]
    controller.reset(params)
    fast = run_fast(params, eaten, controller, sensor, noise, pump, 2, ex)
    controller.reset(params)
    stages = (PlainSensor(sensor, noise), PlainMeals(), PlainPump(pump, 3))
    loop = run_loop(params, initial_state(params), eaten, controller, stages, 2, ex, engine="numba")
    controller.reset(params)
    ref = run_loop(params, initial_state(params), eaten, controller, stages, 2, ex, engine="numpy")
    assert list(fast) == list(RECORDED)
    for k in RECORDED:
        assert fast[k].shape == (1440, 3), k
        assert np.array_equal(fast[k], loop[k]), k
        np.testing.assert_allclose(fast[k], ref[k], rtol=0, atol=TOL, err_msg=k)
    assert not fast["long_acting"].any()
    assert np.array_equal(fast["carbs"], eaten.T)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


HOLD = 602  # a checkpoint between Dexcom samples (every 3 min): the held reading must carry over


class DexcomRun(NamedTuple):
    params: PatientParams
    eaten: np.ndarray
    noise: np.ndarray
    sensor: Sensor
    pump: Pump
    exercise: np.ndarray
    loop: LoopRecord
    end: np.ndarray  # the packed end state, taken before anything resets the live controller


def _dexcom_run(controller: BasalBolusController | PIDController) -> DexcomRun:
    params = load_params(PATIENTS)
    rng = np.random.default_rng(11)
    eaten, sensor, pump = random_meals(3, 1, rng), Sensor.named("Dexcom"), Pump.named("Insulet")
    noise = sensor.noise(3, 1440, rng)
    ex = _sessions(3, 1440)[0]
    ex[0, 590:640] = 0.6  # patient 0 runs across the checkpoint: z matters
    controller.reset(params)
    stages = (PlainSensor(sensor, noise), PlainMeals(), PlainPump(pump, 3))
    loop = run_loop(
        params, initial_state(params), eaten, controller, stages, 2, ex, checkpoints=[HOLD], engine="numba"
    )
    return DexcomRun(params, eaten, noise, sensor, pump, ex, loop, pack_state(loop.end))


@pytest.mark.parametrize(
    "controller", [BasalBolusController(target=120.0), PIDController(p=0.002, target=130.0)]
)
def test_compiled_checkpoints_equal_run_loop_checkpoints(
    controller: BasalBolusController | PIDController,
) -> None:
    r = _dexcom_run(controller)
    controller.reset(r.params)
    fast = run_fast(
        r.params, r.eaten, controller, r.sensor, r.noise, r.pump, 2, r.exercise, checkpoints=[0, HOLD, 1440]
    )
    assert sorted(fast.checkpoints) == [0, HOLD, 1440]
    want, got = r.loop.checkpoints[HOLD], fast.checkpoints[HOLD]
    assert _same_bits(pack_state(got), pack_state(want))  # x, meal bookkeeping, z, held reading, PID
    assert got.z[0] > 0.1  # mid-run exercise state
    held = got.stages[0]._last  # type: ignore[attr-defined]
    assert _same_bits(held, fast["cgm"][HOLD - 1])  # minute 602 is no sample: the reading of 600
    assert not _same_bits(held, fast["cgm"][HOLD + 1])  # ... and 603 is a new one
    if isinstance(controller, PIDController):
        assert isinstance(got.controller, PIDController)
        assert _same_bits(got.controller._integral, want.controller._integral)  # type: ignore[attr-defined,arg-type]
        assert got.controller._integral[0] != 0.0  # type: ignore[index]
    assert _same_bits(pack_state(fast.checkpoints[1440]), r.end)
    assert _same_bits(pack_state(fast.end), r.end)
    assert fast.checkpoints[0].stages[0]._last is None  # type: ignore[attr-defined]
    for k in RECORDED:
        assert _same_bits(fast[k], r.loop[k]), k


@pytest.mark.parametrize(
    "controller", [BasalBolusController(target=120.0), PIDController(p=0.002, target=130.0)]
)
def test_resumed_compiled_loop_equals_resumed_run_loop(
    controller: BasalBolusController | PIDController,
) -> None:
    """From a checkpoint mid-hold and mid-exercise, with insulin taken by hand: the same bits."""
    r = _dexcom_run(controller)
    cp = r.loop.checkpoints[HOLD]
    state = pack_state(cp)
    assert fast_resume_supports(cp, "numba")
    assert not fast_resume_supports(cp, "numpy")
    extra = np.zeros((3, 1440))
    extra[0, 610], extra[2, HOLD] = 2.0, 1.5
    ctrl, (sensor_stage, meals, pump_stage) = snapshot((cp.controller, cp.stages))  # run_loop changes them
    stages = (sensor_stage, meals, ExtraInsulin(pump_stage, extra))
    want = run_loop(
        r.params, cp.patient, r.eaten, ctrl, stages, 2, r.exercise, start=HOLD, stop=1300, z=cp.z,
        checkpoints=[900], engine="numba",
    )  # fmt: skip
    stop = np.array([1300, 1300, 900])  # patient 2 stops early: its end state is the checkpoint at 900
    out, _ = resume_fast(
        r.params, r.eaten, controller, r.sensor, r.noise, r.pump, 2, state, (np.full(3, HOLD), stop),
        exercise=r.exercise, extra_insulin=extra,
    )  # fmt: skip
    for row, name in enumerate(FAST_ROWS):
        assert _same_bits(out[row, :2].T, want[name][:, :2]), name
        assert _same_bits(out[row, 2, : 900 - HOLD], want[name][: 900 - HOLD, 2]), name
    assert want["bolus"][610 - HOLD, 0] >= 2.0  # the hand-taken insulin is in the bolus
    assert want["bolus"][0, 2] >= 1.5  # at the first minute too
    assert _same_bits(state[:, :2], pack_state(want.end)[:, :2])
    assert _same_bits(state[:, 2], pack_state(want.checkpoints[900])[:, 2])


def _random_state(n: int, rng: np.random.Generator) -> tuple[PatientState, PatientParams]:
    """Steady states scaled at random, mid-meal bookkeeping, and a few negative clipped states."""
    params = load_params(["adult#002", "child#001", "adolescent#009", "adult#010"][:n])
    x = params.x0 * rng.uniform(0.3, 3.0, size=params.x0.shape)
    x[0] += rng.uniform(0, 40_000, n)  # a meal in the stomach (mg)
    x[3, 0], x[10, 1] = -1.0, -0.5  # clipped states: derivative zeroed while negative
    state = PatientState(
        x=x,
        planned=rng.choice([0.0, 3.0, 30.0], n),
        last_carbs=rng.choice([0.0, 5.0], n),
        last_qsto=rng.uniform(0, 50_000, n),
        food_taken=rng.uniform(0, 40, n),
    )
    return state, params


@pytest.mark.parametrize("substeps", [1, 2, 5])
@pytest.mark.parametrize("exercise", [False, True])
def test_kernel_matches_step_minute_on_random_states(substeps: int, exercise: bool) -> None:
    rng = np.random.default_rng(substeps)
    for _ in range(20):
        state, params = _random_state(4, rng)
        carbs = rng.choice([0.0, 2.0, 60.0], 4)
        insulin = params.basal_rate * rng.uniform(0, 30, 4)
        uptake, gain = (rng.uniform(0, 0.012, 4), rng.uniform(0, 1.5, 4)) if exercise else (None, None)
        before = state.x.copy()
        want = step_minute(state, carbs, insulin, params, substeps, None, uptake, gain)
        system = step_system(params, "numba")
        got = step_minute(state, carbs, insulin, params, substeps, system, uptake, gain)
        np.testing.assert_allclose(got.x, want.x, rtol=1e-12, atol=1e-12)
        for k in ("planned", "last_carbs", "last_qsto", "food_taken"):  # same arithmetic: same bits
            assert np.array_equal(getattr(got, k), getattr(want, k)), k
        assert np.array_equal(state.x, before)  # the input state is not modified
        assert got.x[3, 0] == want.x[3, 0] == -1.0  # negative Gp is frozen (derivative zeroed)


def test_kernel_as_plain_python_matches_numpy() -> None:
    """The kernel's Python source (what runs without numba installed) computes the same minute."""
    state, params = _random_state(2, np.random.default_rng(5))
    carbs, insulin = np.array([10.0, 0.0]), np.array([0.02, 0.5])
    want = step_minute(state, carbs, insulin, params, 2)
    x, meal = state.x.copy(), np.stack([state.planned, state.last_carbs, state.last_qsto, state.food_taken])
    table = step_system(params, "numba").table
    work = np.empty((6, 13))
    for p in range(2):
        xp, mp = x[:, p].copy(), meal[:, p].copy()
        compiled.patient_minute.py_func(xp, mp, table[p], carbs[p], insulin[p], 2, False, 0.0, 0.0, work)
        np.testing.assert_allclose(xp, want.x[:, p], rtol=1e-12, atol=1e-12)
        assert mp[0] == want.planned[p]
        assert mp[3] == want.food_taken[p]


def test_exercise_terms_are_those_of_exercise_step() -> None:
    """One sensitivity-state update by hand: rising towards 0.6 with tau_on = 15 min."""
    uptake, gain, z = exercise_step(np.array([0.6]), np.array([0.2]))
    assert uptake[0] == pytest.approx(0.012 * 0.6)
    assert gain[0] == pytest.approx(1.5 * 0.2)
    assert z[0] == pytest.approx(0.6 - 0.4 * np.exp(-1 / 15))


def test_engine_switch_and_numpy_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(compiled.ENGINE_ENV, raising=False)
    assert compiled.resolve_engine("auto") == "numba"
    monkeypatch.setenv(compiled.ENGINE_ENV, "numpy")
    assert compiled.resolve_engine("auto") == "numpy"
    assert compiled.resolve_engine("numba") == "numba"  # an explicit choice wins over the variable
    monkeypatch.setenv(compiled.ENGINE_ENV, "fortran")
    with pytest.raises(WearbenchError, match="fortran"):
        compiled.resolve_engine()
    monkeypatch.delenv(compiled.ENGINE_ENV)
    with pytest.raises(WearbenchError, match="unknown simulator engine 'cuda'"):
        simulate(["adult#001"], 1, engine="cuda")
    # Without numba: auto falls back to numpy, an explicit "numba" is refused.
    monkeypatch.setattr(compiled, "HAVE_NUMBA", False)
    assert compiled.resolve_engine("auto") == "numpy"
    with pytest.raises(WearbenchError, match="needs numba"):
        compiled.resolve_engine("numba")
    assert not fast_loop_supports(BasalBolusController(), "auto")

    def no_compiled_loop(*args: object) -> None:
        raise AssertionError("the compiled loop ran without numba")

    monkeypatch.setattr(simulate_module, "run_fast", no_compiled_loop)
    fallback = simulate(["adult#001"], 1, seed=2)
    monkeypatch.undo()
    reference = simulate(["adult#001"], 1, seed=2, engine="numpy")
    for c in fallback.columns:  # the fallback is the numpy engine, bit for bit
        assert np.array_equal(fallback[c].to_numpy(), reference[c].to_numpy()), c


def test_fast_loop_only_for_its_controllers(monkeypatch: pytest.MonkeyPatch) -> None:
    class Custom(BasalBolusController):
        pass

    calls: list[str] = []

    def spy(*args: object, **kwargs: object) -> dict[str, np.ndarray]:
        calls.append(type(args[2]).__name__)
        return run_fast(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(simulate_module, "run_fast", spy)
    simulate(["adult#001"], 1, engine="numba", controller="pid")
    simulate(["adult#001"], 1, engine="numba", controller=Custom())
    simulate(
        ["adult#001"],
        1,
        engine="numba",
        faults=random_faults(["max_basal"], 1, 1440, np.random.default_rng(1)),
    )
    simulate(["adult#001"], 1, engine="numpy")
    assert calls == ["PIDController"]  # not the subclass, not with faults, not under numpy

    assert fast_loop_supports(BasalBolusController(), "numba")
    assert fast_loop_supports(PIDController(), "numba")
    assert not fast_loop_supports(Custom(), "numba")  # a subclass may change policy(): run_loop
    assert not fast_loop_supports(PIDController(), "numpy")
