"""Exercise: intensity input, session generator, effect on glucose, events written."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench._errors import WearbenchError
from wearbench.sim import exercise_array, exercise_sessions, simulate, write_simulation

PATIENTS = ["adult#001", "adult#005", "adolescent#003", "child#002"]
N, M = len(PATIENTS), 1440
START, DURATION = 600, 45


def _run(level: float | None, kind: str = "running") -> pd.DataFrame:
    exercise = None
    if level is not None:
        s = pd.DataFrame({"patient": range(N), "start": START, "duration": DURATION, "kind": kind,
                          "intensity": level})  # fmt: skip
        exercise = (exercise_array(s, N, M), s)
    return simulate(PATIENTS, 1, meals="fixed", sensor=None, pump=None, seed=0, exercise=exercise)


@pytest.fixture(scope="module")
def base() -> np.ndarray:
    return _run(None)["true_bg"].to_numpy().reshape(N, M)


def _drop(level: float, base: np.ndarray, kind: str = "running") -> np.ndarray:
    out: np.ndarray = base - _run(level, kind)["true_bg"].to_numpy().reshape(N, M)
    return out


def test_zero_exercise_is_identical() -> None:
    plain = simulate(PATIENTS, 1, seed=3)
    s = pd.DataFrame(columns=["patient", "start", "duration", "kind", "intensity"])
    ex = simulate(PATIENTS, 1, seed=3, exercise=(np.zeros((N, M)), s))
    assert (ex.pop("exercise") == 0).all()
    pd.testing.assert_frame_equal(plain, ex, check_exact=True)


def test_running_lowers_bg_during_and_after(base: np.ndarray) -> None:
    drop = _drop(0.7, base)
    assert np.all(drop[:, : START + 1] == 0)  # nothing changes before the session
    # observed end of session: 30-35 mg/dL; 2 h after: 22-38 mg/dL
    end, after = drop[:, START + DURATION], drop[:, START + DURATION + 120]
    assert np.all((end > 15) & (end < 60)), end
    assert np.all(after > 10), after


def test_effect_grows_with_intensity(base: np.ndarray) -> None:
    t = START + DURATION
    d4, d7, d10 = (_drop(lv, base)[:, t] for lv in (0.4, 0.7, 1.0))
    assert np.all((d4 < d7) & (d7 < d10))
    assert np.all(_drop(0.7, base, "cycling")[:, t] < d7)  # cycling: lower effective intensity


def test_effect_decays_after_session(base: np.ndarray) -> None:
    drop = _drop(0.7, base)
    peak = drop[:, START : START + 360].max(axis=1)
    late = np.abs(drop[:, M - 1])  # 12.5 h after the end (Z decayed by exp(-750/240) ~ 4 %)
    assert np.all(late < 0.5 * peak), (late, peak)


def test_sessions_generator() -> None:
    rng = np.random.default_rng(1)
    ex, sessions = exercise_sessions(3, 28, rng, per_week=3)
    assert ex.shape == (3, 28 * 1440)
    assert ex.min() >= 0.0
    assert ex.max() <= 0.8
    assert 20 <= len(sessions) <= 60
    assert sessions["duration"].between(20, 60).all()
    assert sessions["intensity"].between(0.4, 0.8).all()
    assert set(sessions["kind"]) <= {"running", "cycling"}
    assert (sessions["start"] % 1440).between(360, 19 * 60).all()
    assert np.count_nonzero(ex) == sessions["duration"].sum()
    with pytest.raises(WearbenchError):
        exercise_sessions(1, 1, rng, kinds=("swimming",))


def test_bad_exercise_rejected() -> None:
    s = pd.DataFrame(columns=["patient", "start", "duration", "kind", "intensity"])
    with pytest.raises(WearbenchError):
        simulate(PATIENTS, 1, exercise=(np.full((N, M), 1.5), s))


def test_events_written(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    ex, sessions = exercise_sessions(2, 3, rng, per_week=7)
    frame = simulate(PATIENTS[:2], 3, seed=0, exercise=(ex, sessions))
    write_simulation(frame, tmp_path, sample_time=5, params={}, exercise=sessions)
    events = pd.read_parquet(tmp_path / "events.parquet")
    rows = events[events["kind"] == "exercise"]
    assert len(rows) == len(sessions) == 6
    assert (rows["unit"] == "min").all()
    assert rows["value"].between(20, 60).all()
    assert rows["detail"].str.fullmatch(r"(running|cycling)@0\.\d\d").all()
    assert set(rows["subject_id"]) == set(PATIENTS[:2])
