"""``simulate(loop="simglucose")`` reproduces simglucose's ``T1DSimEnv`` + ``BBController``.

The reference run (simglucose 0.2.11, from the ``[cgm]`` extra): scripted meals 07:00 50 g,
12:00 70 g, 18:30 80 g (``CustomScenario``), ``BBController``, Insulet pump, Dexcom sensor with its
noise generator replaced by zeros (so its 3-minute sample-and-hold and ``[39, 600]`` clipping
stay), one day, stepped as ``SimObj.simulate`` does. Ours: the same meals, ``sensor="exact:3"``,
``pump="Insulet"``, ``loop="simglucose"``. The env's ``BG`` history is compared with ``env_bg``.
The unit tests above it check the wrappers on hand-computed values.
"""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from wearbench._errors import WearbenchError
from wearbench.cli import cli
from wearbench.sim import (
    Controller,
    ControllerAction,
    PatientParams,
    PIDController,
    SampledController,
    Sensor,
    env_controller,
    load_params,
    simglucose_output,
    simulate,
)

PATIENTS = ["adult#001", "adolescent#003", "child#002"]
MEALS = {420: 50.0, 720: 70.0, 1110: 80.0}  # minute -> carbs (g): 07:00, 12:00, 18:30


class _Echo(Controller):
    """Records its calls; basal 1 U/min, bolus = the carbs seen (U)."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, float, float]] = []

    def reset(self, params: PatientParams) -> None:
        self.calls = []

    def policy(self, cgm: np.ndarray, carbs: np.ndarray, minute: int) -> ControllerAction:
        self.calls.append((minute, float(cgm[0]), float(carbs[0])))
        return ControllerAction(basal=np.ones(1), bolus=carbs.copy())


def test_sampled_controller_sees_the_env_observation_and_spreads_the_bolus() -> None:
    inner = _Echo()
    ctrl = SampledController(inner, 3)
    ctrl.reset(load_params(["adult#001"]))
    carbs = {1: 30.0, 3: 6.0}
    boluses = []
    for t in range(8):
        action = ctrl.policy(np.array([10.0 * t]), np.array([carbs.get(t, 0.0)]), t)
        boluses.append(float(action.bolus[0]))
        assert float(action.basal[0]) == 1.0
    # minute 0: the reading now, no carbs; minute 3: mean reading of minutes 1-3 = (10+20+30)/3,
    # carbs of minutes 0-2 = 30 g; minute 6: (40+50+60)/3 = 50, carbs of minutes 3-5 = 6 g
    assert [c[0] for c in inner.calls] == [0, 3, 6]
    assert inner.calls[0] == (0, 0.0, 0.0)
    assert inner.calls[1][1] == pytest.approx(20.0, abs=1e-12)
    assert inner.calls[1][2] == 30.0
    assert inner.calls[2][1] == pytest.approx(50.0, abs=1e-12)
    assert inner.calls[2][2] == 6.0
    # the 30 U bolus decided at minute 3 arrives as 10 U/min over minutes 3, 4, 5; 6 U as 2 U/min
    assert boluses == pytest.approx([0, 0, 0, 10, 10, 10, 2, 2], abs=1e-12)


def test_sampled_controller_passes_a_long_acting_injection_once() -> None:
    class Injects(_Echo):
        def policy(self, cgm: np.ndarray, carbs: np.ndarray, minute: int) -> ControllerAction:
            return super().policy(cgm, carbs, minute)._replace(long_acting=np.full(1, 12.0))

    ctrl = SampledController(Injects(), 2)
    ctrl.reset(load_params(["adult#001"]))
    shots = [ctrl.policy(np.zeros(1), np.zeros(1), t).long_acting for t in range(4)]
    assert [None if s is None else float(s[0]) for s in shots] == [12.0, None, 12.0, None]


def test_env_controller_gives_pid_the_env_time_step() -> None:
    pid = PIDController(p=0.002, i=0.0, d=0.5, target=120.0)
    wrapped = env_controller(pid, 3)
    inner = wrapped.inner
    assert isinstance(inner, PIDController)
    assert (inner.p, inner.d, inner.target, inner.dt) == (0.002, 0.5, 120.0, 3.0)
    assert pid.dt == 1.0  # the controller passed in is not changed
    wrapped.reset(load_params(["adult#001"]))
    # minute 0: basal = p*(150-120) + d*(150-0)/dt with dt = 3 (simglucose's PID divides by sample_time)
    assert float(wrapped.policy(np.array([150.0]), np.zeros(1), 0).basal[0]) == pytest.approx(0.06 + 25.0)
    assert isinstance(env_controller(_Echo(), 3).inner, _Echo)


def test_simglucose_output_is_the_step_mean_stamped_at_its_end() -> None:
    stream = np.arange(0.0, 21.0, 3.0)[:, None]  # 0, 3, ..., 18 at minutes 0..6
    out = simglucose_output(stream, 3)
    # minute 0: the value at 0; minute 3: (3+6+9)/3 = 6; minute 6: (12+15+18)/3 = 15
    assert out[[0, 3, 6], 0] == pytest.approx([0.0, 6.0, 15.0], abs=1e-12)
    assert np.isnan(out[[1, 2, 4, 5], 0]).all()
    with pytest.raises(ValueError, match="sample_time"):
        simglucose_output(stream, 0)


def test_exact_sensor_is_noise_free_sampled_and_clipped() -> None:
    sensor = Sensor.named("exact:3")
    assert sensor == Sensor.exact(3)
    assert sensor.sample_time == 3
    rng = np.random.default_rng(1)
    before = rng.bit_generator.state
    assert not sensor.noise(2, 10, rng).any()
    assert rng.bit_generator.state == before
    assert sensor.read(np.array([20.0, 123.4, 700.0]), np.zeros(3)).tolist() == [39.0, 123.4, 600.0]
    assert Sensor.exact(5, -np.inf, np.inf).read(np.array([20.0]), np.zeros(1)).tolist() == [20.0]
    assert [sensor.is_sample(t) for t in range(4)] == [True, False, False, True]
    for bad in ("exact:0", "exact:x", "exact:"):
        with pytest.raises(WearbenchError, match="exact:N"):
            Sensor.named(bad)


def test_simulate_refuses_an_unknown_loop() -> None:
    with pytest.raises(WearbenchError, match="loop"):
        simulate(["adult#001"], 1, loop="env")  # type: ignore[arg-type]


def test_cli_simglucose_loop_writes_env_columns(tmp_path: Path) -> None:
    meals = tmp_path / "meals.csv"
    meals.write_text("minute,carbs_g\n" + "".join(f"{m},{g}\n" for m, g in MEALS.items()))
    out = tmp_path / "run"
    args = ["cgm", "simulate", "--patients", "adult#001", "--days", "1", "--loop", "simglucose",
            "--sensor", "exact:3", "--meals", str(meals), "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    truth = pd.read_parquet(out / "truth.parquet")
    assert len(truth) == 480
    assert {"true_bg", "env_bg", "env_cgm"} <= set(truth.columns)
    # no noise: the reading at minute 0 is the steady-state subcutaneous glucose, as env_bg there
    assert truth["env_bg"].iloc[0] == truth["cgm"].iloc[0] == truth["env_cgm"].iloc[0]
    bad = CliRunner().invoke(cli, [*args[:-6], "--sensor", "exact:zero", "--out", str(out)])
    assert bad.exit_code != 0
    assert "exact:N" in bad.output


class _FastParams:
    """A patient's parameter row with plain attribute access (same float64 values).

    ``T1DPatient.model`` reads ~40 parameters as ``params.x`` from a pandas Series in each ODE call,
    which is ~90% of simglucose's run time; plain attributes give bit-identical results ~5x faster.
    ``iloc`` (the initial state, read by ``reset``) stays the Series'.
    """

    def __init__(self, row: Any) -> None:
        self.__dict__.update(row.to_dict())
        self.iloc = row.iloc


def _simglucose_env_bg(name: str, pid: bool = False) -> np.ndarray:
    """simglucose's env ``BG`` history (481 values, minutes 0, 3, ..., 1440) for one patient-day.

    With ``pid``, simglucose's ``PIDController`` with our PID's default gains replaces ``BBController``.
    """
    env_mod = pytest.importorskip("simglucose.simulation.env")
    from simglucose.actuator.pump import InsulinPump
    from simglucose.controller.basal_bolus_ctrller import BBController
    from simglucose.controller.pid_ctrller import PIDController as SimglucosePID
    from simglucose.patient.t1dpatient import T1DPatient
    from simglucose.sensor.cgm import CGMSensor
    from simglucose.simulation.scenario import CustomScenario

    class ExactCGM(CGMSensor):  # type: ignore[misc]
        """Dexcom timing and clipping; the noise generator yields zeros (``measure`` adds it)."""

        def __init__(self, params: Any, seed: int | None = None) -> None:
            super().__init__(params, seed=seed)
            self._noise_generator = itertools.repeat(0.0)

        def reset(self) -> None:
            super().reset()
            self._noise_generator = itertools.repeat(0.0)

    patient = T1DPatient.withName(name)
    patient._params = _FastParams(patient._params)
    start = datetime(2024, 1, 1)
    scenario = CustomScenario(start_time=start, scenario=[(m / 60, g) for m, g in MEALS.items()])
    env = env_mod.T1DSimEnv(patient, ExactCGM.withName("Dexcom"), InsulinPump.withName("Insulet"), scenario)
    controller = SimglucosePID(P=0.001, I=0.00001, D=0.001) if pid else BBController()
    controller.reset()
    obs, reward, done, info = env.reset()
    while env.time < start + timedelta(days=1):  # as SimObj.simulate
        obs, reward, done, info = env.step(controller.policy(obs, reward, done, **info))
    return np.asarray(env.show_history()["BG"].to_numpy(), dtype=np.float64)


@pytest.fixture(scope="module")
def env_bg() -> dict[str, np.ndarray]:
    return {name: _simglucose_env_bg(name) for name in PATIENTS}


@pytest.mark.slow
@pytest.mark.parametrize("loop", ["simglucose", "default"])
def test_simglucose_loop_matches_t1dsimenv_within_1_mg_dl(env_bg: dict[str, np.ndarray], loop: str) -> None:
    carbs = np.zeros((len(PATIENTS), 1440))
    for minute, grams in MEALS.items():
        carbs[:, minute] = grams
    frame = simulate(PATIENTS, 1, sensor="exact:3", pump="Insulet", meals=carbs, loop=loop)  # type: ignore[arg-type]
    diffs = {}
    for name in PATIENTS:
        mine = frame[frame["patient"] == name].sort_values("minute")
        ref = env_bg[name][:480]  # minutes 0, 3, ..., 1437 (the env's last value is minute 1440)
        assert np.ptp(ref) > 80  # the meals move glucose, so the comparison means something
        if loop == "simglucose":
            diffs[name] = float(np.max(np.abs(mine["env_bg"].to_numpy()[::3] - ref)))
        else:  # the default loop, read as the env's BG (subcutaneous, step mean)
            ours = simglucose_output(mine["gsub"].to_numpy()[:, None], 3)[::3, 0]
            diffs[name] = float(np.max(np.abs(ours - ref)))
    print(loop, diffs)
    for name, d in diffs.items():
        if loop == "simglucose":
            assert d < 1.0, name
        else:  # measured 1.7-4.3 mg/dL: the default loop gives the bolus 3 minutes earlier, at once
            assert d > 1.0, name


@pytest.mark.slow
def test_simglucose_loop_matches_t1dsimenv_with_pid() -> None:
    ref = _simglucose_env_bg("adult#001", pid=True)[:480]
    carbs = np.zeros((1, 1440))
    for minute, grams in MEALS.items():
        carbs[0, minute] = grams
    frame = simulate(
        ["adult#001"], 1, controller="pid", sensor="exact:3", pump="Insulet", meals=carbs, loop="simglucose"
    )
    assert np.ptp(ref) > 80
    # measured 1.7e-4 mg/dL; with the PID's per-minute dt (1) it would be 58 mg/dL away
    assert np.max(np.abs(frame["env_bg"].to_numpy()[::3] - ref)) < 1.0
