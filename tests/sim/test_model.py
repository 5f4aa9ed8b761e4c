"""The vectorised right-hand side equals simglucose's ``T1DPatient.model`` term by term."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from wearbench._errors import UnknownNameError
from wearbench.sim import initial_state, load_params, patient_names, rhs, step_minute
from wearbench.sim.patient import N_STATES


def test_patient_table() -> None:
    names = patient_names()
    assert len(names) == 30
    assert {n.split("#")[0] for n in names} == {"adult", "adolescent", "child"}
    p = load_params(["adult#001", "adolescent#003", "child#007", "adult#001"])
    assert p.x0.shape == (N_STATES, 4)
    np.testing.assert_array_equal(p.x0[:, 0], p.x0[:, 3])
    assert np.all(p.basal_rate > 0)
    assert np.all(p.CR > 0)


def test_unknown_patient_suggests() -> None:
    with pytest.raises(UnknownNameError, match="adult#001"):
        load_params(["adult#01"])


def test_rhs_matches_simglucose_model() -> None:
    t1d = pytest.importorskip("simglucose.patient.t1dpatient")
    table = pd.read_csv(t1d.PATIENT_PARA_FILE)
    names = patient_names()
    params = load_params(names)
    rng = np.random.default_rng(0)
    for trial in range(8):
        # steady state scaled randomly; some states negative to exercise simglucose's clipping
        x = params.x0 * rng.uniform(0.2, 2.5, size=params.x0.shape)
        x[:3] = rng.uniform(0, 60_000, size=(3, 30))
        if trial % 2:
            x[rng.integers(0, N_STATES, 10), rng.integers(0, 30, 10)] *= -1
        carbs = rng.choice([0.0, 5.0, 2.5], size=30)
        insulin = rng.uniform(0, 2, size=30)
        dbar = rng.choice([0.0, 30_000.0, 80_000.0], size=30)
        ours = rhs(x, carbs, insulin, dbar, params)
        for i, name in enumerate(names):
            row = table.loc[table.Name == name].squeeze()
            action = t1d.Action(CHO=carbs[i], insulin=insulin[i])
            ref = t1d.T1DPatient.model(0.0, x[:, i], action, row, dbar[i], 0.0)
            np.testing.assert_allclose(ours[:, i], ref, rtol=1e-9, atol=1e-9, err_msg=name)


def test_steady_state_holds_on_basal() -> None:
    params = load_params(patient_names())
    state = initial_state(params)
    zero = np.zeros(params.n_patients)
    for _ in range(120):
        state = step_minute(state, zero, params.basal_rate, params)
    np.testing.assert_allclose(state.bg(params), params.x0[3] / params.Vg, atol=0.5)


def test_meal_eaten_at_5_g_per_min() -> None:
    params = load_params(["adult#002"])
    state = initial_state(params)
    carbs = [np.array([12.0]), np.zeros(1), np.zeros(1), np.zeros(1)]
    eaten = []
    for c in carbs:
        state = step_minute(state, c, params.basal_rate, params)
        eaten.append(float(state.last_carbs[0]))
    assert eaten == [5.0, 5.0, 2.0, 0.0]
    assert state.food_taken[0] == 12.0


def test_import_is_silent_and_lazy() -> None:
    code = "import sys, wearbench.sim; print('simglucose' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert out.stderr == ""
