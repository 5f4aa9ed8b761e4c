"""The 19 OpenMHC-style minute channels of one export, written to Parquet.

Channels (float32, one row per local wall-clock minute that has any data; minutes with no data
are omitted): ``phone_steps``, ``watch_steps`` (count), ``phone_distance``, ``watch_distance``
(m), ``flights_climbed`` (count), ``heart_rate`` (bpm, mean of the minute's samples),
``active_energy`` (kcal, after Watch > iPhone > other de-duplication), ``asleep``, ``in_bed``
(share of the minute, 0-1), and ``workout_<type>`` (share of the minute in a workout of that
type) for the ten types in :data:`~wearbench.sources.apple_health._generate.WORKOUT_TYPES`
(any other type counts as ``Other``). Interval samples are spread over the minutes they cover in
proportion to the overlap. Steps and distance from sources that are neither iPhone nor Watch
are left out of the phone/watch channels.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from wearbench.sources._report import ImportLog
from wearbench.sources.apple_health._collect import Collector
from wearbench.sources.apple_health._dedup import Samples, deduplicate
from wearbench.sources.apple_health._generate import WORKOUT_TYPES
from wearbench.sources.apple_health._parse import stream


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


_WORKOUT_CHANNELS = {t: f"workout_{_snake(t)}" for t in WORKOUT_TYPES}
#: Channel names, in column order.
CHANNELS: tuple[str, ...] = (
    "phone_steps",
    "watch_steps",
    "phone_distance",
    "watch_distance",
    "flights_climbed",
    "heart_rate",
    "active_energy",
    "asleep",
    "in_bed",
    *_WORKOUT_CHANNELS.values(),
)
Spread = tuple[np.ndarray, np.ndarray]
#: Local days per Parquet row group (the table is built and written one chunk at a time).
CHUNK_DAYS = 7


def _spread(ls: np.ndarray, le: np.ndarray, value: np.ndarray) -> Spread:
    """(local minute index, share of value) for every minute each interval (local s) covers."""
    m0 = np.floor(ls / 60).astype(np.int64)
    m1 = np.maximum(np.ceil(le / 60).astype(np.int64) - 1, m0)
    n = m1 - m0 + 1
    rep = np.repeat(np.arange(len(ls)), n)
    minutes = m0[rep] + np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    length = (le - ls)[rep]
    overlap = np.minimum(le[rep], (minutes + 1) * 60.0) - np.maximum(ls[rep], minutes * 60.0)
    share = np.where(length > 0, overlap / np.where(length > 0, length, 1.0), 1.0)
    return minutes, value[rep] * share


@dataclass
class _Channel:
    """One channel's intervals in local seconds, sorted by start."""

    ls: np.ndarray
    le: np.ndarray
    value: np.ndarray
    longest: float

    @classmethod
    def of(cls, ls: np.ndarray, le: np.ndarray, value: np.ndarray) -> _Channel:
        order = np.argsort(ls, kind="stable")
        longest = float((le - ls).max()) if len(ls) else 0.0
        return cls(ls[order], le[order], value[order], longest)

    def window(self, lo: float, hi: float) -> Spread:
        """Minutes in ``[lo, hi)`` (local s) with this channel's share of each sample."""
        i0 = int(np.searchsorted(self.ls, lo - self.longest, side="left"))
        i1 = int(np.searchsorted(self.ls, hi, side="left"))
        minutes, values = _spread(self.ls[i0:i1], self.le[i0:i1], self.value[i0:i1])
        keep = (minutes >= lo // 60) & (minutes < hi // 60)
        return minutes[keep], values[keep]


def _local(s: Samples, keep: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    off = np.frombuffer(s.offset, dtype=np.int32).astype(np.float64)
    ls = np.frombuffer(s.start, dtype=np.float64) + off
    le = np.frombuffer(s.end, dtype=np.float64) + off
    value = np.frombuffer(s.value, dtype=np.float64)
    return (ls[keep], le[keep], value[keep]) if keep is not None else (ls, le, value)


def _channels(col: Collector) -> dict[str, _Channel]:
    out: dict[str, _Channel] = {}
    prio = np.array([*col.source_priority, 0], dtype=np.int8)
    for what, label in (("steps", "steps"), ("distance", "distance")):
        if what in col.dedup.buffers:
            s = col.dedup.buffers[what]
            cls = prio[np.frombuffer(s.source, dtype=np.int32)]
            out[f"phone_{label}"] = _Channel.of(*_local(s, cls == 1))
            out[f"watch_{label}"] = _Channel.of(*_local(s, cls == 2))
    for what, label in (("flights", "flights_climbed"), ("active_kcal", "active_energy")):
        if what in col.dedup.buffers:
            pieces = deduplicate(what, col.dedup.buffers[what], col.ranks, ImportLog(), col.where)
            arr = np.array(pieces, dtype=np.float64).reshape(-1, 4)
            out[label] = _Channel.of(arr[:, 0] + arr[:, 3], arr[:, 1] + arr[:, 3], arr[:, 2])
    out["asleep"] = _intervals([(s, e, off) for s, e, off, stage, _, _ in col.sleep if stage in (1, 3, 4, 5)])
    out["in_bed"] = _intervals([(s, e, off) for s, e, off, _, _, _ in col.sleep])
    for kind, name in _WORKOUT_CHANNELS.items():
        other = kind == "Other"
        rows = [
            (w.start, w.end, w.offset)
            for w in col.workouts
            if w.kind == kind or (other and w.kind not in _WORKOUT_CHANNELS)
        ]
        out[name] = _intervals(rows)
    return out


def _intervals(rows: Sequence[tuple[float, float, float]]) -> _Channel:
    arr = np.array(rows, dtype=np.float64).reshape(-1, 3)
    return _Channel.of(arr[:, 0] + arr[:, 2], arr[:, 1] + arr[:, 2], (arr[:, 1] - arr[:, 0]) / 60)


_SHARES = ("asleep", "in_bed", *_WORKOUT_CHANNELS.values())


def _chunk(channels: dict[str, _Channel], hr: _Channel, lo: float, hi: float) -> pd.DataFrame:
    """The rows of minutes in ``[lo, hi)`` (local s) that have any data."""
    m_lo, n = int(lo // 60), int((hi - lo) // 60)
    dense = {}
    for name in CHANNELS:
        if name == "heart_rate":
            minutes, values = hr.window(lo, hi)
            total = np.bincount(minutes - m_lo, weights=values, minlength=n)
            count = np.bincount(minutes - m_lo, minlength=n)
            dense[name] = np.where(count > 0, total / np.maximum(count, 1), np.nan)
            continue
        ch = channels.get(name)
        if ch is None or not len(ch.ls):
            dense[name] = np.zeros(n)
            continue
        minutes, values = ch.window(lo, hi)
        col = np.bincount(minutes - m_lo, weights=values, minlength=n)
        dense[name] = np.minimum(col, 1.0) if name in _SHARES else col
    frame = pd.DataFrame(dense).astype("float32")
    keep = (frame.drop(columns="heart_rate") != 0).any(axis=1) | frame["heart_rate"].notna()
    minutes = (np.flatnonzero(keep.to_numpy()) + m_lo).astype(np.int64) * np.int64(60_000_000_000)
    frame = frame[keep.to_numpy()]
    frame.index = pd.DatetimeIndex(minutes.astype("datetime64[ns]"), name="minute")
    return frame


def minute_channels(path: str | Path, out_parquet: str | Path) -> Path:
    """Derive the 19 minute channels of an export and write them to ``out_parquet``.

    The export is streamed once (every cumulative and heart-rate sample kept in compact
    arrays, about 30 bytes each); the table is then built and written
    :data:`CHUNK_DAYS` local days at a time (one Parquet row group each).

    Args:
        path: ``export.zip`` or ``export.xml``.
        out_parquet: Parquet file to write (index ``minute``: local wall-clock minute).

    Returns:
        ``out_parquet`` as a Path. ``heart_rate`` is NaN in minutes without a sample; minutes
        where every other channel is 0 and there is no heart-rate sample are omitted.

    Raises:
        WearbenchError: For an unreadable or malformed export.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    path, out = Path(path), Path(out_parquet)
    col = Collector(path.name, ImportLog(), "", keep_all=True)
    stream(path, col.start, col.end)
    channels = _channels(col)
    hr_off = np.frombuffer(col.hr_offset, dtype=np.int32).astype(np.float64)
    hr_t = np.frombuffer(col.hr_time, dtype=np.float64) + hr_off
    hr = _Channel.of(hr_t, hr_t, np.frombuffer(col.hr_value, dtype=np.float64))
    starts = [c.ls[0] for c in (*channels.values(), hr) if len(c.ls)]
    ends = [c.le.max() for c in (*channels.values(), hr) if len(c.ls)]
    step = CHUNK_DAYS * 86400
    first = (min(starts) // 86400) * 86400 if starts else 0.0
    chunks = np.arange(first, max(ends) + 1, step) if ends else np.array([0.0])
    writer: pq.ParquetWriter | None = None
    try:
        for lo in chunks:
            table = pa.Table.from_pandas(_chunk(channels, hr, float(lo), float(lo + step)))
            if writer is None:
                writer = pq.ParquetWriter(out, table.schema)
            writer.write_table(table.cast(writer.schema))
    finally:
        if writer is not None:
            writer.close()
    return out
