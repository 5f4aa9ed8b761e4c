"""Acceptance test: our vectorised simulator reproduces simglucose's T1DPatient to < 1 mg/dL.

Setup (identical on both sides, noise-free, no pump rounding):
* patients adult#001, adolescent#003, child#007 from their default steady state at minute 0;
* 1 day, meals announced at 07:00 45 g, 12:00 70 g, 15:00 10 g, 18:00 80 g (eaten at 5 g/min);
* basal-bolus control every minute from the patient's own noise-free subcutaneous glucose
  (``observation.Gsub``): basal ``u2ss*BW/6000`` U/min, and at a meal minute a bolus
  ``carbs/CR + (G > 150)*(G - 140)/CF`` U given within that minute (``Quest.csv`` CR, CF);
* simglucose: ``T1DPatient.withName(name).step(Action(CHO=carbs, insulin=rate))`` once per minute
  (scipy dopri5); ours: ``simulate(..., sensor=None, pump=None)`` (RK4, 2 sub-steps per minute, the default).
Compared each minute: plasma glucose ``Gp/Vg`` and subcutaneous glucose ``Gs/Vg`` (mg/dL).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from wearbench.sim import fixed_meals, load_params, simulate

PATIENTS = ["adult#001", "adolescent#003", "child#007"]
MINUTES = 1440


def _simglucose_run(name: str, carbs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t1d = pytest.importorskip("simglucose.patient.t1dpatient")
    patient = t1d.T1DPatient.withName(name)
    params = load_params([name])
    basal = float(params.basal_rate[0])
    cr, cf, vg = float(params.CR[0]), float(params.CF[0]), float(params.Vg[0])
    bg, gsub = np.empty(MINUTES), np.empty(MINUTES)
    for t in range(MINUTES):
        g = patient.observation.Gsub
        bg[t], gsub[t] = patient.state[3] / vg, g
        bolus = carbs[t] / cr + (g > 150) * (g - 140.0) / cf if carbs[t] > 0 else 0.0
        patient.step(t1d.Action(CHO=float(carbs[t]), insulin=basal + bolus))
    return bg, gsub


@pytest.mark.slow
def test_matches_simglucose_within_1_mg_dl() -> None:
    carbs = fixed_meals(len(PATIENTS), 1)
    ours = simulate(PATIENTS, 1, sensor=None, pump=None, meals=carbs)
    diffs = {}
    for i, name in enumerate(PATIENTS):
        ref_bg, ref_gsub = _simglucose_run(name, carbs[i])
        mine = ours[ours["patient"] == name].sort_values("minute")
        diffs[name] = (
            float(np.max(np.abs(mine["true_bg"].to_numpy() - ref_bg))),
            float(np.max(np.abs(mine["gsub"].to_numpy() - ref_gsub))),
        )
        # the scenario must actually move glucose for the comparison to mean anything
        assert np.ptp(ref_bg) > 40
    print(pd.DataFrame(diffs, index=["max |dBG|", "max |dGsub|"]).T)
    for name, (d_bg, d_gsub) in diffs.items():
        assert d_bg < 1.0, name
        assert d_gsub < 1.0, name
