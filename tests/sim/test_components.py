"""Pump, controller, sensor, scenario and the closed-loop ``simulate``."""

from __future__ import annotations

import numpy as np
import pytest

from wearbench._errors import UnknownNameError, WearbenchError
from wearbench.sim import (
    BasalBolusController,
    PIDController,
    Pump,
    Sensor,
    fixed_meals,
    load_params,
    random_meals,
    simulate,
)


def test_pump_rounds_and_clips() -> None:
    pump = Pump.named("Insulet")
    assert pump.max_bolus == 30.0
    out = pump.bolus(np.array([-1.0, 0.1, 100.0]))
    np.testing.assert_allclose(out, [0.0, 0.1, 30.0])
    step = pump.inc_basal / 6000.0  # increments are pmol/min, as in simglucose
    out = pump.basal(np.array([0.4 * step, 2.6 * step]))
    np.testing.assert_allclose(out, [0.0, 3 * step])
    with pytest.raises(UnknownNameError):
        Pump.named("Omnipod")


def test_basal_bolus_controller() -> None:
    params = load_params(["adult#001", "child#001"])
    ctrl = BasalBolusController(target=140)
    ctrl.reset(params)
    act = ctrl.policy(np.array([120.0, 200.0]), np.array([60.0, 30.0]), 0)
    np.testing.assert_allclose(act.basal, params.basal_rate)
    expected = [60.0 / params.CR[0], 30.0 / params.CR[1] + 60.0 / params.CF[1]]
    np.testing.assert_allclose(act.bolus, expected)
    act = ctrl.policy(np.array([300.0, 300.0]), np.zeros(2), 1)
    np.testing.assert_array_equal(act.bolus, 0.0)


def test_pid_controller() -> None:
    params = load_params(["adult#001", "child#001"])
    ctrl = PIDController(p=0.001, i=0.0001, d=0.01, target=140)
    ctrl.reset(params)
    first = ctrl.policy(np.array([150.0, 130.0]), np.zeros(2), 0)
    np.testing.assert_allclose(first.basal, [0.01 + 1.5, -0.01 + 1.3])  # previous value starts at 0
    second = ctrl.policy(np.array([152.0, 130.0]), np.zeros(2), 1)
    np.testing.assert_allclose(second.basal, [0.012 + 0.001 + 0.02, -0.01 - 0.001])
    np.testing.assert_array_equal(second.bolus, 0.0)
    df = simulate(["adult#001"], 1, controller="pid", sensor=None)
    assert len(df) == 1440


def test_simulate_looks_controllers_up_in_the_registry() -> None:
    with pytest.raises(UnknownNameError, match="pid"):  # close match offered
        simulate(["adult#001"], 1, controller="pdi", sensor=None)


def test_sensor_noise_is_seeded_and_plausible() -> None:
    sensor = Sensor.named("Dexcom")
    assert sensor.sample_time == 3
    assert Sensor.named("GuardianRT").sample_time == 5
    a = sensor.noise(4, 10 * 1440, np.random.default_rng(3))
    b = sensor.noise(4, 10 * 1440, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
    assert a.shape == (4, 14400)
    # simglucose's Johnson SU noise: a few mg/dL negative bias, sd ~10-20 mg/dL, smooth in time
    assert -15 < a.mean() < 5
    assert 5 < a.std() < 30
    assert np.abs(np.diff(a, axis=1)).mean() < 3
    np.testing.assert_array_equal(sensor.read(np.array([10.0, 700.0]), np.zeros(2)), [39.0, 600.0])


def test_random_meals() -> None:
    meals = random_meals(50, 20, np.random.default_rng(0))
    assert meals.shape == (50, 20 * 1440)
    np.testing.assert_array_equal(meals, random_meals(50, 20, np.random.default_rng(0)))
    daily = meals.reshape(50, 20, 1440).sum(axis=2)
    assert 150 < daily.mean() < 220  # 0.95*(45+70+80) + 0.3*30 ~ 194 g
    per_day_count = (meals.reshape(50, 20, 1440) > 0).sum(axis=2)
    assert per_day_count.min() >= 0
    assert per_day_count.max() <= 6
    hours = np.nonzero(meals)[1] % 1440 / 60
    assert hours.min() >= 5
    assert hours.max() <= 23
    assert fixed_meals(2, 2).sum() == 2 * 2 * (45 + 70 + 10 + 80)


def test_simulate_frame() -> None:
    df = simulate(["adult#001", "child#002"], 1, seed=5)
    assert list(df.columns) == [
        "patient", "minute", "true_bg", "gsub", "cgm", "carbs", "insulin", "basal", "bolus"
    ]  # fmt: skip
    assert np.allclose(df["basal"] + df["bolus"], df["insulin"])
    assert len(df) == 2 * 1440
    assert df["cgm"].between(39, 600).all()
    assert (df["insulin"] >= 0).all()
    # Dexcom: readings change only every 3 minutes
    one = df[df["patient"] == "adult#001"]
    changes = np.nonzero(np.diff(one["cgm"].to_numpy()))[0] + 1
    assert np.all(changes % 3 == 0)
    # boluses exactly at announced meals
    bolus_minutes = one["minute"][one["insulin"] > one["insulin"].min() + 1e-9]
    meal_minutes = one["minute"][one["carbs"] > 0]
    assert set(bolus_minutes) == set(meal_minutes)
    again = simulate(["adult#001", "child#002"], 1, seed=5)
    np.testing.assert_array_equal(df["cgm"].to_numpy(), again["cgm"].to_numpy())


def test_simulate_noise_free_and_fixed_meals() -> None:
    df = simulate(["adolescent#001"], 1, sensor=None, meals="fixed")
    np.testing.assert_array_equal(df["cgm"].to_numpy(), df["gsub"].to_numpy())
    assert df["carbs"].sum() == 205
    with pytest.raises(WearbenchError):
        simulate(["adolescent#001"], 1, meals=np.zeros((1, 10)))
