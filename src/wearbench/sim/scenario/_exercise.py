"""Exercise scenarios: intensity per patient and minute plus a table of sessions.

Intensity is the fraction of the heart-rate reserve (equivalently, roughly, of VO2max) in [0, 1];
0 means rest. Running and cycling differ by a documented profile and multiplier (see
``docs/cgm-exercise.md``): running ramps up over a 5-min warm-up and holds the nominal intensity
(multiplier 1.0, weight-bearing, large muscle mass); cycling holds ``0.85 x`` the nominal
intensity after a 3-min warm-up (less muscle mass active at the same heart-rate reserve).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sim.patient._params import FloatArray

EXERCISE_KINDS: dict[str, tuple[float, int]] = {"running": (1.0, 5), "cycling": (0.85, 3)}
"""Session kind -> (intensity multiplier, warm-up ramp in min)."""

SESSION_COLUMNS = ["patient", "start", "duration", "kind", "intensity"]


def exercise_array(sessions: pd.DataFrame, n_patients: int, minutes: int) -> FloatArray:
    """Effective intensity (0-1) of shape ``(P, minutes)`` from a table of sessions.

    Args:
        sessions: Columns ``patient`` (row index 0..P-1), ``start`` (minute), ``duration`` (min),
            ``kind`` (a key of :data:`EXERCISE_KINDS`) and ``intensity`` (nominal, 0-1).
        n_patients: Number of patients P.
        minutes: Length of the run (min).

    Returns:
        The intensity array; overlapping sessions take the larger intensity.

    Raises:
        WearbenchError: Unknown kind, intensity outside [0, 1] or a session outside the run.
    """
    out = np.zeros((n_patients, minutes))
    columns = (sessions[c].tolist() for c in SESSION_COLUMNS)
    for p_raw, start_raw, duration_raw, kind_raw, level_raw in zip(*columns, strict=True):
        kind, level = str(kind_raw), float(level_raw)
        if kind not in EXERCISE_KINDS:
            raise WearbenchError(f"exercise kind {kind!r}: expected one of {sorted(EXERCISE_KINDS)}")
        p, start, duration = int(p_raw), int(start_raw), int(duration_raw)
        if not 0.0 <= level <= 1.0 or not 0 <= p < n_patients or start < 0 or start + duration > minutes:
            raise WearbenchError(
                f"exercise session (patient {p}, start {start}, {duration} min, {kind}@{level}) "
                "is outside the run or its intensity outside [0, 1]"
            )
        profile = session_profile(kind, level, duration)
        out[p, start : start + duration] = np.maximum(out[p, start : start + duration], profile)
    return out


def session_profile(kind: str, intensity: float, duration: int) -> FloatArray:
    """Effective intensity (0-1) of one session minute by minute, shape ``(duration,)``.

    Args:
        kind: A key of :data:`EXERCISE_KINDS` (its multiplier and warm-up ramp apply).
        intensity: Nominal intensity (0-1).
        duration: Minutes.

    Raises:
        WearbenchError: Unknown kind.
    """
    if kind not in EXERCISE_KINDS:
        raise WearbenchError(f"exercise kind {kind!r}: expected one of {sorted(EXERCISE_KINDS)}")
    mult, ramp = EXERCISE_KINDS[kind]
    k = np.arange(duration)
    profile: FloatArray = mult * intensity * np.minimum((k + 1) / ramp, 1.0)
    return profile


def exercise_sessions(
    n_patients: int,
    days: int,
    rng: np.random.Generator,
    *,
    per_week: float = 3,
    kinds: Sequence[str] = ("running", "cycling"),
) -> tuple[FloatArray, pd.DataFrame]:
    """Random exercise sessions: at most one a day, on average ``per_week`` a week.

    A session starts at a uniform time between 06:00 and 19:00, lasts 20-60 min (uniform, whole
    minutes) at nominal intensity uniform in [0.4, 0.8], with a kind drawn uniformly from ``kinds``.

    Args:
        n_patients: Number of patients P.
        days: Number of days.
        rng: Random generator.
        per_week: Expected sessions per week (0-7).
        kinds: Session kinds to draw from (keys of :data:`EXERCISE_KINDS`).

    Returns:
        ``(intensity, sessions)``: the effective intensity array of shape ``(P, days * 1440)`` and
        the sessions table (``patient``, ``start``, ``duration``, ``kind``, ``intensity``).
    """
    if not 0 <= per_week <= 7 or not kinds or any(k not in EXERCISE_KINDS for k in kinds):
        raise WearbenchError(f"exercise_sessions: per_week in [0, 7] and kinds in {sorted(EXERCISE_KINDS)}")
    shape = (n_patients, days)
    active = rng.random(shape) < per_week / 7.0
    start = rng.integers(6 * 60, 19 * 60, size=shape)
    duration = rng.integers(20, 61, size=shape)
    level = np.round(rng.uniform(0.4, 0.8, size=shape), 2)
    kind = rng.integers(0, len(kinds), size=shape)
    p_idx, d_idx = np.nonzero(active)
    sessions = pd.DataFrame(
        {
            "patient": p_idx.astype(np.int64),
            "start": (d_idx * 1440 + start[active]).astype(np.int64),
            "duration": duration[active].astype(np.int64),
            "kind": [kinds[i] for i in kind[active]],
            "intensity": level[active].astype(np.float64),
        },
        columns=SESSION_COLUMNS,
    )
    return exercise_array(sessions, n_patients, days * 1440), sessions
