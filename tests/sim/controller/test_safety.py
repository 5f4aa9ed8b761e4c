"""Safety rules of the therapies on hand-built situations (``docs/cgm-therapies.md``, "Safety")."""

from __future__ import annotations

import numpy as np
import pytest

from wearbench.sim import load_params, simulate
from wearbench.sim.controller import (
    BasalBolusController,
    ControllerAction,
    MDIController,
    MPCController,
    OpenAPSController,
    Prediction,
    SAPController,
    rule_1800_isf,
)
from wearbench.sim.patient import PatientParams
from wearbench.sim.patient._params import FloatArray

PARAMS = load_params(["adult#001", "child#002"])
BASAL = PARAMS.basal_rate
ISF = rule_1800_isf(BASAL)
ZERO = np.zeros(2)


def _flat(value: float) -> np.ndarray:
    return np.full(2, value)


def _mpc_ready() -> MPCController:
    mpc = MPCController()
    mpc.reset(PARAMS)
    return mpc


# --- hcl-mpc -------------------------------------------------------------------------------


def test_mpc_gives_no_more_than_basal_while_glucose_falls_fast() -> None:
    mpc = _mpc_ready()
    free = np.full((2, mpc.horizon), 260.0)  # the model predicts 260 mg/dL: it wants to raise
    raised = mpc.decide(_flat(300.0), free, ZERO, _flat(0.0))
    assert np.all(raised > 1.5 * BASAL)
    # the same prediction while the CGM falls 2 mg/dL/min (a down arrow): scheduled basal at most
    np.testing.assert_allclose(mpc.decide(_flat(300.0), free, ZERO, _flat(-2.0)), BASAL)
    # falling slower than falling_rate (1 mg/dL/min): the rise is allowed
    np.testing.assert_allclose(mpc.decide(_flat(300.0), free, ZERO, _flat(-0.5)), raised)
    off = MPCController(falling_rate=np.inf)
    off.reset(PARAMS)
    np.testing.assert_allclose(off.decide(_flat(300.0), free, ZERO, _flat(-2.0)), raised)


def test_mpc_suspends_when_the_cgm_trend_predicts_a_low() -> None:
    mpc = _mpc_ready()
    free = np.full((2, mpc.horizon), 120.0)  # the model sees no low
    # 130 mg/dL falling 2 mg/dL/min: 130 - 2 * 30 = 70 < 80 mg/dL in 30 min -> suspend
    np.testing.assert_array_equal(mpc.decide(_flat(130.0), free, ZERO, _flat(-2.0)), ZERO)
    # falling 1.5 mg/dL/min: 130 - 45 = 85 >= 80 -> no suspend (and no rise: at the basal cap)
    assert np.all(mpc.decide(_flat(130.0), free, ZERO, _flat(-1.5)) > 0)
    off = MPCController(trend_horizon=0.0)
    off.reset(PARAMS)
    assert np.all(off.decide(_flat(130.0), free, ZERO, _flat(-2.0)) > 0)


def test_mpc_suspends_on_a_low_predicted_anywhere_in_its_horizon() -> None:
    mpc = _mpc_ready()
    free = np.full((2, mpc.horizon), 150.0)
    free[:, 30] = 75.0  # below the 80 mg/dL safety limit 155 min ahead only
    np.testing.assert_array_equal(mpc.decide(_flat(150.0), free, ZERO, _flat(0.0)), ZERO)
    short = MPCController(suspend_horizon=30.0)  # the PLGS horizon: not a low within 30 min
    short.reset(PARAMS)
    assert np.all(short.decide(_flat(150.0), free, ZERO, _flat(0.0)) > 0)


def _feed(
    ctrl: MPCController | OpenAPSController | SAPController, cgms: list[float], extra_bolus: float = 0.0
) -> ControllerAction:
    """One CGM value per 5-minute step; at minute 0 the pump reports ``extra_bolus`` U not asked for.

    Returns the last minute's basal and the boluses asked for over the whole run.
    """
    ctrl.reset(PARAMS)
    action, asked = ControllerAction(ZERO, ZERO), ZERO
    for i, g in enumerate(cgms):
        for minute in range(5 * i, 5 * i + 5):
            action = ctrl.policy(_flat(g), ZERO, minute)
            asked = asked + action.bolus
            reported = action.bolus + (_flat(extra_bolus) if minute == 0 else ZERO)
            ctrl.observe(minute, action.basal, reported)
    return ControllerAction(action.basal, asked)


@pytest.mark.parametrize("ctrl", [MPCController(), OpenAPSController()], ids=["hcl-mpc", "openaps"])
def test_loop_counts_a_bolus_it_did_not_ask_for(ctrl: MPCController | OpenAPSController) -> None:
    # steady 250 mg/dL, nothing on board: a high temp
    assert np.all(_feed(ctrl, [250.0] * 4).basal > 1.5 * BASAL)
    # the same, but the pump reports a 5 U bolus at minute 0 (a replayed bolus): no high temp
    assert np.all(_feed(ctrl, [250.0] * 4, extra_bolus=5.0).basal <= BASAL + 1e-12)


# --- openaps -------------------------------------------------------------------------------


def test_openaps_no_high_temp_when_falling_faster_than_expected() -> None:
    aps = OpenAPSController()
    aps.reset(PARAMS)
    pred = Prediction(_flat(150.0), _flat(150.0), _flat(150.0), ZERO)
    # eventual 150 > max_bg: high temp basal + 2 * (150 - 110) / ISF U/h when not falling
    high = np.minimum(BASAL + (150.0 - 110.0) / ISF / 30, 3 * BASAL)
    np.testing.assert_allclose(aps.decide(_flat(200.0), ZERO, ZERO, pred, BASAL), high)
    # expected delta = bgi + (110 - 150) / 24 = -1.67 mg/dL/5 min; falling 5 per 5 min: basal
    np.testing.assert_allclose(aps.decide(_flat(200.0), _flat(-5.0), ZERO, pred, BASAL), BASAL)
    # falling 1 per 5 min (slower than expected): the high temp stays
    np.testing.assert_allclose(aps.decide(_flat(200.0), _flat(-1.0), ZERO, pred, BASAL), high)


# --- sap -----------------------------------------------------------------------------------


def test_sap_predictive_suspend_from_the_cgm_trend() -> None:
    # 160, 150, 140, 130: falling 10 per 5 min, 130 + 6 * (-10) = 70 < 80 in 30 min -> 0
    np.testing.assert_array_equal(_feed(SAPController(), [160.0, 150.0, 140.0, 130.0]).basal, ZERO)
    # steady at 130: pump basal
    np.testing.assert_allclose(_feed(SAPController(), [130.0] * 4).basal, BASAL)
    # falling 5 per 5 min: 130 - 30 = 100 -> pump basal; threshold-only pump never suspends at 130
    np.testing.assert_allclose(_feed(SAPController(), [145.0, 140.0, 135.0, 130.0]).basal, BASAL)
    only_threshold = SAPController(predict_below=0.0)
    np.testing.assert_allclose(_feed(only_threshold, [160.0, 150.0, 140.0, 130.0]).basal, BASAL)


def test_sap_counts_a_reported_bolus_against_corrections() -> None:
    # rising above 250 from minute 0: a correction (260 + 2 * 6 - 140) / ISF at minute 30, the
    # first check with the 30-min window filled
    cgms = [260.0 + 2 * i for i in range(8)]
    np.testing.assert_allclose(_feed(SAPController(), cgms).bolus, (272.0 - 140.0) / ISF)
    # a 1 U bolus reported at minute 0 starts the 4-h gap: no correction
    np.testing.assert_array_equal(_feed(SAPController(), cgms, extra_bolus=1.0).bolus, ZERO)


# --- mdi -----------------------------------------------------------------------------------


def _mdi_meal(cgms: list[float], trend_minutes: float = 30.0, reduce_below_target: bool = True) -> np.ndarray:
    """One CGM value per 5-minute step, then the bolus for 60 g at the last step."""
    mdi = MDIController(
        bolus_increment=0.0, trend_minutes=trend_minutes, reduce_below_target=reduce_below_target
    )
    mdi.reset(PARAMS)
    for i, g in enumerate(cgms[:-1]):
        for minute in range(5 * i, 5 * i + 5):
            mdi.policy(_flat(g), ZERO, minute)
    return mdi.policy(_flat(cgms[-1]), _flat(60.0), 5 * (len(cgms) - 1)).bolus


def test_mdi_meal_bolus_follows_the_cgm_trend() -> None:
    # 200 mg/dL steady: carbs plus the full correction (200 - 140) / ISF
    np.testing.assert_allclose(_mdi_meal([200.0] * 4), 60 / PARAMS.CR + 60 / ISF)
    # 200 falling 10 per 5 min: the trend points to 200 - 60 = 140 in 30 min: no correction
    np.testing.assert_allclose(_mdi_meal([230.0, 220.0, 210.0, 200.0]), 60 / PARAMS.CR)
    # 120 falling 10 per 5 min -> 60 in 30 min: the bolus drops by (140 - 60) / ISF
    np.testing.assert_allclose(
        _mdi_meal([150.0, 140.0, 130.0, 120.0]), np.maximum(60 / PARAMS.CR - 80 / ISF, 0)
    )
    # without the trend and the reduction (the former behaviour): carbs only
    got = _mdi_meal([150.0, 140.0, 130.0, 120.0], trend_minutes=0.0, reduce_below_target=False)
    np.testing.assert_allclose(got, 60 / PARAMS.CR)


# --- the loop reports the pump history -----------------------------------------------------


class _Spy(BasalBolusController):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[int, FloatArray, FloatArray]] = []

    def reset(self, params: PatientParams) -> None:
        super().reset(params)
        self.seen = []

    def observe(self, minute: int, basal: FloatArray, bolus: FloatArray) -> None:
        self.seen.append((minute, basal.copy(), bolus.copy()))


def test_loop_reports_what_the_pump_delivered() -> None:
    meals = np.zeros((1, 1440))
    meals[0, 10] = 40.0
    spy = _Spy()
    frame = simulate(["adult#001"], 1, controller=spy, meals=meals, seed=1)
    assert [m for m, _, _ in spy.seen] == list(range(1440))
    np.testing.assert_array_equal([b[0] for _, b, _ in spy.seen], frame["basal"].to_numpy())  # pump-rounded
    np.testing.assert_array_equal([b[0] for _, _, b in spy.seen], frame["bolus"].to_numpy())
    assert frame["bolus"].iloc[10] > 0
