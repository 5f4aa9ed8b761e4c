"""MDI, SAP, hybrid closed loop (MPC) and OpenAPS-style controllers on hand-built situations."""

from __future__ import annotations

import numpy as np
import pytest

from wearbench._registry import registry
from wearbench.sim import load_params, simulate
from wearbench.sim.controller import (
    MDIController,
    MPCController,
    OpenAPSController,
    Prediction,
    SAPController,
    exponential_iob,
    mpc_gain,
    rule_1800_isf,
)

PARAMS = load_params(["adult#001", "child#002"])
BASAL = PARAMS.basal_rate
ISF = rule_1800_isf(BASAL)
ZERO = np.zeros(2)


def _flat(value: float) -> np.ndarray:
    return np.full(2, value)


def test_therapies_are_registered() -> None:
    for name, cls in [("mdi", MDIController), ("sap", SAPController), ("hcl-mpc", MPCController),
                      ("openaps", OpenAPSController)]:  # fmt: skip
        assert registry.get("controller", name).obj is cls


def test_mdi_injects_the_daily_basal_need_at_22h() -> None:
    mdi = MDIController()
    mdi.reset(PARAMS)
    doses = {m: mdi.policy(_flat(120.0), ZERO, m).long_acting for m in (0, 1319, 1320, 1321, 1320 + 1440)}
    np.testing.assert_array_equal(doses[1319], ZERO)
    np.testing.assert_allclose(doses[1320], BASAL * 1440)
    np.testing.assert_allclose(doses[2760], BASAL * 1440)
    twice = MDIController(injection_hours=(8.0, 20.0))
    twice.reset(PARAMS)
    np.testing.assert_allclose(twice.policy(_flat(120.0), ZERO, 480).long_acting, BASAL * 720)


@pytest.mark.parametrize("hours", [(22.0,), (8.0, 20.0)])
def test_mdi_absorption_starts_and_stays_at_the_basal_need(hours: tuple[float, ...]) -> None:
    mdi = MDIController(injection_hours=hours)
    mdi.reset(PARAMS)
    for minute in (0, 1, 479, 700, 1320, 1400, 3000, 10000):
        np.testing.assert_allclose(mdi.policy(_flat(120.0), ZERO, minute).basal, BASAL, rtol=1e-9)


def test_mdi_meal_bolus_counts_carbs_and_corrects_only_at_meals() -> None:
    mdi = MDIController(bolus_increment=0.5)
    mdi.reset(PARAMS)
    # no meal: no bolus even when high (a steady CGM: no trend adjustment)
    np.testing.assert_array_equal(mdi.policy(_flat(250.0), ZERO, 10).bolus, ZERO)
    # 60 g at 250 mg/dL: 60/CR + (250-140)/ISF, rounded down to 0.5 U
    got = mdi.policy(_flat(250.0), _flat(60.0), 20).bolus
    np.testing.assert_allclose(got, np.floor((60 / PARAMS.CR + 110 / ISF) * 2) / 2)
    # another meal an hour later: carbs only (no correction within 3 h of a bolus)
    got = mdi.policy(_flat(250.0), _flat(30.0), 80).bolus
    np.testing.assert_allclose(got, np.floor(30 / PARAMS.CR * 2) / 2)


def test_sap_correction_bolus_only_when_due() -> None:
    sap = SAPController()
    sap.reset(PARAMS)
    for minute in range(0, 30, 5):  # rising, below the 250 threshold: nothing
        np.testing.assert_array_equal(sap.policy(_flat(200.0 + minute), ZERO, minute).bolus, ZERO)
    got = sap.policy(_flat(280.0), ZERO, 30).bolus  # high and rising, no insulin on board
    np.testing.assert_allclose(got, (280 - 140) / ISF)
    for minute in range(31, 270):  # within 4 h of that bolus: no second correction
        np.testing.assert_array_equal(sap.policy(_flat(300.0), ZERO, minute).bolus, ZERO)
    # 4 h later, still high: the correction is reduced by the insulin on board
    got = sap.policy(_flat(300.0), ZERO, 270).bolus
    iob = (280 - 140) / ISF * _iob_curve()[240]
    np.testing.assert_allclose(got, (300 - 140) / ISF - iob, rtol=1e-6)


def test_sap_does_not_correct_a_falling_cgm() -> None:
    sap = SAPController()
    sap.reset(PARAMS)
    for minute in range(0, 35, 5):  # 400 falling to 340: a post-meal peak coming down
        np.testing.assert_array_equal(sap.policy(_flat(400.0 - 2 * minute), ZERO, minute).bolus, ZERO)


def test_sap_meal_bolus_subtracts_insulin_on_board_from_the_correction_only() -> None:
    sap = SAPController(min_gap=0)
    sap.reset(PARAMS)
    first = sap.policy(_flat(100.0), _flat(50.0), 0).bolus  # below target: reduced
    np.testing.assert_allclose(first, 50 / PARAMS.CR + (100 - 140) / ISF)
    got = sap.policy(_flat(160.0), _flat(20.0), 60).bolus
    iob = first * _iob_curve()[60]
    np.testing.assert_allclose(got, 20 / PARAMS.CR + np.maximum((160 - 140) / ISF - iob, 0.0))


def _iob_curve() -> np.ndarray:
    return exponential_iob(np.arange(301.0))


def _run(ctrl: MPCController | OpenAPSController, cgms: list[float], carbs_at_0: float = 0.0) -> np.ndarray:
    """Feed one CGM value per 5-minute step; return the basal of the last step."""
    ctrl.reset(PARAMS)
    basal = ZERO
    for i, g in enumerate(cgms):
        for minute in range(5 * i, 5 * i + 5):
            carbs = _flat(carbs_at_0) if minute == 0 else ZERO
            basal = ctrl.policy(_flat(g), carbs, minute).basal
    return basal


@pytest.mark.parametrize("ctrl", [MPCController(), OpenAPSController()], ids=["hcl-mpc", "openaps"])
def test_loop_raises_basal_for_high_glucose_without_insulin_on_board(
    ctrl: MPCController | OpenAPSController,
) -> None:
    rate = _run(ctrl, [250.0] * 4)
    assert np.all(rate > 1.5 * BASAL)
    assert np.all(rate <= 4 * BASAL + 1e-12)


@pytest.mark.parametrize("ctrl", [MPCController(), OpenAPSController()], ids=["hcl-mpc", "openaps"])
def test_loop_suspends_on_a_predicted_low(ctrl: MPCController | OpenAPSController) -> None:
    # in range now, falling 10 mg/dL per 5 min: predicted below the suspend threshold
    np.testing.assert_array_equal(_run(ctrl, [150.0, 140.0, 130.0, 120.0]), ZERO)
    np.testing.assert_array_equal(_run(ctrl, [65.0] * 4), ZERO)  # already low
    assert np.all(_run(ctrl, [115.0] * 4) > 0)  # steady in range: no suspend


@pytest.mark.parametrize("ctrl", [MPCController(), OpenAPSController()], ids=["hcl-mpc", "openaps"])
def test_loop_max_iob_caps_delivery(ctrl: MPCController | OpenAPSController) -> None:
    # a 150 g meal bolus puts net IOB far above max_iob (2-3 h of basal): no rate above basal
    # although glucose is high and the loop would otherwise raise it
    rate = _run(ctrl, [300.0] * 4, carbs_at_0=150.0)
    np.testing.assert_allclose(rate, BASAL)


def test_openaps_decide_rules_by_hand() -> None:
    aps = OpenAPSController()
    aps.reset(PARAMS)
    bg, flat = _flat(200.0), ZERO

    def pred(eventual: float, min_pred: float | None = None, guard: float = 150.0) -> Prediction:
        return Prediction(
            _flat(eventual), _flat(eventual if min_pred is None else min_pred), _flat(guard), flat
        )

    # high: basal + 2 * insulin_req U/h, insulin_req = (eventual - target) / ISF, capped at 3x basal
    req = (150.0 - 110.0) / ISF
    np.testing.assert_allclose(
        aps.decide(bg, flat, flat, pred(150.0), BASAL), np.minimum(BASAL + req / 30, 3 * BASAL)
    )
    # max_iob = 3 h of basal: with IOB 0.5 U below it, at most 0.5 U more over 30 min
    iob = 180 * BASAL - 0.5
    np.testing.assert_allclose(
        aps.decide(bg, flat, iob, pred(400.0), BASAL), np.minimum(BASAL + 0.5 / 30, 3 * BASAL)
    )
    # in range (eventual between min_bg and max_bg): scheduled basal
    np.testing.assert_allclose(aps.decide(bg, flat, flat, pred(110.0), BASAL), BASAL)
    # eventual 80 < min_bg, not rising: low temp basal + 2 * (80 - 110) / ISF U/h, floored at 0
    np.testing.assert_allclose(
        aps.decide(bg, flat, flat, pred(80.0), BASAL), np.maximum(BASAL - 30 / ISF / 30, 0)
    )
    # lowest prediction under the 70 mg/dL threshold: zero temp
    np.testing.assert_array_equal(aps.decide(bg, flat, flat, pred(150.0, guard=65.0), BASAL), ZERO)
    assert aps.threshold == 70.0


def test_mpc_gain_single_move_is_the_scalar_least_squares() -> None:
    k = np.arange(1, 13)
    b = np.array(
        [-sum(5 * (1 - exponential_iob(np.array([5.0 * (kk - s)]))[0]) for s in range(kk)) for kk in k]
    )
    expected = b / (b @ b + 3600 * 0.5)
    np.testing.assert_allclose(mpc_gain(12, 1, 0.5), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="moves"):
        mpc_gain(4, 5, 0.1)


def test_mdi_fasting_equals_pump_basal_exactly() -> None:
    """Invariant behind the table: MDI's absorption is the pump basal (same fasting glucose)."""
    names = ["adult#001", "child#002"]
    meals = np.zeros((2, 1440))
    mdi = simulate(names, 1, controller="mdi", sensor=None, pump=None, meals=meals)
    sap = simulate(names, 1, controller="sap", sensor=None, pump=None, meals=meals)
    np.testing.assert_allclose(mdi["true_bg"], sap["true_bg"], atol=1e-9)
    np.testing.assert_allclose(mdi["true_bg"].iloc[[0, 1439]], sap["true_bg"].iloc[[0, 0]], atol=1e-6)


@pytest.mark.parametrize("therapy", ["mdi", "sap", "hcl-mpc", "openaps"])
def test_closed_loop_smoke(therapy: str) -> None:
    names = ["adolescent#003", "adult#004", "child#009"]
    frame = simulate(names, 2, controller=therapy, pump=None if therapy == "mdi" else "Insulet", seed=3)
    bg = frame["true_bg"].to_numpy()
    assert np.isfinite(bg).all()
    assert np.isfinite(frame["insulin"]).all()
    assert bg.min() > 40
    assert bg.max() < 400
    assert (frame["insulin"] >= 0).all()
