"""Unit sanity for CGM readings: find and convert blocks written in the other glucose unit.

A loader converts glucose to mg/dL with the unit its file (or header segment) declares. A block
written in the other unit then shows as a non-physiological step: a mg/dL file whose 3-hour
block reads ``22.0`` (mmol/L) drops from ~396 to 22 "mg/dL" in 5 minutes and jumps back.
:func:`fix_units` finds such blocks per subject and per segment (a second header inside a
file starts a segment; see :func:`~wearbench.cgm.sources._common.read_csv_strings`):

* readings are split, in file order, where consecutive values differ by a factor of
  :data:`UNIT_STEP` (4) or more — glucose changes at most ~4 mg/dL/min, so 40 → 160 mg/dL
  between two 5-minute readings is impossible — and where the segment number changes;
* each piece's median says its unit: 39–600 mg/dL as declared; 2.2–33.3 (mmol/L read as
  mg/dL) → multiply by 18.0156; 702–10,800 (mg/dL read as mmol/L) → divide by 18.0156;
* a piece is converted (a counted repair naming its rows) when the converted values join a
  neighbouring reading within 30 minutes at a physiological rate (≤ :data:`MAX_RATE` mg/dL/min
  plus 5 mg/dL), or when it is at least :data:`MIN_BLOCK` readings long;
* a shorter piece that joins nothing is left alone (the range rule rejects it, counted): a
  single 0.2 mmol/L sensor glitch is not a unit block;
* a piece of at least :data:`MIN_BLOCK` readings whose median fits neither unit (e.g. 33.3–39),
  or whose converted values contradict a reading within 30 minutes, is refused:
  :class:`WearbenchError` with one line naming the rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.cgm._record import MMOL_TO_MGDL
from wearbench.sources import ImportLog

#: Consecutive readings differing by this factor (either way) may start a block in another unit.
UNIT_STEP = 4.0
#: Fastest physiological glucose change used to check a converted block joins its neighbours.
MAX_RATE = 3.0  # mg/dL per minute ("rapidly rising/falling" on CGM arrows)
#: A block this long (readings) is converted on its values alone, without a neighbour to join.
MIN_BLOCK = 12
#: Median glucose (mg/dL) a correctly declared piece has: sensors show 39/40 to 400/500.
_MGDL = (39.0, 600.0)
_NEAR = pd.Timedelta(minutes=30)
_TOLERANCE = 5.0  # mg/dL, for mmol/L rounded to one decimal (0.9 mg/dL) and sensor noise


def _factor(median: float) -> float | None:
    """Factor that brings a piece with this median (declared mg/dL) into mg/dL; None: neither."""
    for f in (1.0, MMOL_TO_MGDL, 1.0 / MMOL_TO_MGDL):
        if _MGDL[0] <= median * f <= _MGDL[1]:
            return f
    return None


def _pieces(sub: pd.DataFrame) -> np.ndarray:
    """Piece number of each row of one subject (file order)."""
    g = sub["glucose"].to_numpy(dtype=float)
    ratio = np.ones_like(g)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio[1:] = np.maximum(g[1:] / g[:-1], g[:-1] / g[1:])
    new = ~(ratio < UNIT_STEP)  # NaN (a zero) also splits
    if "_segment" in sub:
        seg = sub["_segment"].fillna(0).to_numpy()
        new[1:] |= seg[1:] != seg[:-1]
    new[0] = True
    return np.cumsum(new) - 1


def _rows(sub: pd.DataFrame) -> str:
    first, last = str(sub["_where"].iloc[0]), str(sub["_where"].iloc[-1])
    if first == last:
        return first
    head, _, n_last = last.rpartition(" ")
    return f"{first}-{n_last}" if first.startswith(head + " ") else f"{first} to {last}"


def _joins(sub: pd.DataFrame, piece: np.ndarray, k: int, values: np.ndarray) -> bool:
    """Whether piece ``k`` (values already converted) joins a neighbour within 30 min."""
    idx = np.flatnonzero(piece == k)
    t = sub["time"].to_numpy()
    for mine, other in ((idx[0], idx[0] - 1), (idx[-1], idx[-1] + 1)):
        if not 0 <= other < len(sub):
            continue
        dt = abs(pd.Timedelta(t[mine] - t[other]))
        allowed = MAX_RATE * dt.total_seconds() / 60 + _TOLERANCE
        if dt <= _NEAR and abs(values[mine] - values[other]) <= allowed:
            return True
    return False


def _fix_subject(sub: pd.DataFrame, what: str, log: ImportLog) -> pd.Series:
    piece = _pieces(sub)
    g = sub["glucose"].to_numpy(dtype=float)
    n = int(piece[-1]) + 1 if len(piece) else 0
    factors = [_factor(float(np.median(g[piece == k]))) for k in range(n)]
    if all(f == 1.0 for f in factors):
        return sub["glucose"]
    values = g * np.array([f or 1.0 for f in factors])[piece]
    out = g.copy()
    for k, f in enumerate(factors):
        rows = sub[piece == k]
        if f is None and len(rows) >= MIN_BLOCK:
            raise WearbenchError(
                f"{what}: {_rows(rows)}: {len(rows)} glucose readings (median {np.median(g[piece == k]):g}) "
                "fit neither mg/dL nor mmol/L; refusing to guess their unit"
            )
        if f is None or f == 1.0:
            continue
        joins = _joins(sub, piece, k, values)
        if not joins and len(rows) < MIN_BLOCK:
            continue  # a short glitch, not a block: the range rule rejects it
        if not joins and n > 1 and _has_near_neighbour(sub, piece, k):
            raise WearbenchError(
                f"{what}: {_rows(rows)}: {len(rows)} readings look like the other glucose unit but, "
                "converted, do not join the readings around them; refusing to guess their unit"
            )
        out[piece == k] = values[piece == k]
        unit, declared = ("mmol/L", "mg/dL") if f > 1 else ("mg/dL", "mmol/L")
        log.repair(
            f"{what}: glucose block written in {unit} inside {declared} data, converted",
            f"{_rows(rows)} ({len(rows)} readings, subject {rows['subject_id'].iloc[0]}): "
            f"{g[piece == k][0]:g} -> {values[piece == k][0]:.1f} mg/dL",
            n=len(rows),
        )
    return pd.Series(out, index=sub.index)


def _has_near_neighbour(sub: pd.DataFrame, piece: np.ndarray, k: int) -> bool:
    idx = np.flatnonzero(piece == k)
    t = sub["time"].to_numpy()
    pairs = [(idx[0], idx[0] - 1), (idx[-1], idx[-1] + 1)]
    return any(0 <= o < len(sub) and abs(pd.Timedelta(t[m] - t[o])) <= _NEAR for m, o in pairs)


def fix_units(raw: pd.DataFrame, what: str, log: ImportLog) -> pd.DataFrame:
    """Convert blocks written in the other glucose unit (module docstring), per subject.

    Args:
        raw: ``subject_id``, ``time``, ``glucose`` (mg/dL as declared), ``_where`` and optionally
            ``_segment`` (header segment), in file order.
        what: Source name for log kinds.
        log: Import log; each converted block is a counted repair naming its rows.

    Returns:
        ``raw`` with converted glucose.

    Raises:
        WearbenchError: One line naming the rows whose unit cannot be told.
    """
    if raw.empty:
        return raw
    raw = raw.copy()
    for _, sub in raw.groupby("subject_id", sort=False):
        raw.loc[sub.index, "glucose"] = _fix_subject(sub, what, log)
    return raw
