"""Interval-level source de-duplication of cumulative samples, and splitting over local days.

Apple Health shows one source per stretch of time: where an Apple Watch and an iPhone both
counted steps, only the Watch's count is used. Here every source gets a rank (Watch > iPhone >
other; ties by source name) and sources are taken from the best down: a sample keeps only the
part of its interval no better-ranked source has covered, and its value is scaled by that
part's share of its duration (uniform rate). A zero-length sample is kept whole unless its
instant is covered. Fully covered samples are dropped and partly covered ones scaled; both
are counted as repairs.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from wearbench.sources._report import ImportLog

#: Buffered samples of one type before a flush is tried.
FLUSH = 8192
#: Out-of-order tolerance (s): samples may arrive up to this much earlier than the latest start.
HORIZON = 2 * 86400
Where = Callable[[int, float | None, int], str]


@dataclass
class Samples:
    """Flat columns of one cumulative type: UTC start/end (s), value, offset (s), source, line."""

    start: array[float] = field(default_factory=lambda: array("d"))
    end: array[float] = field(default_factory=lambda: array("d"))
    value: array[float] = field(default_factory=lambda: array("d"))
    offset: array[int] = field(default_factory=lambda: array("i"))
    source: array[int] = field(default_factory=lambda: array("i"))
    line: array[int] = field(default_factory=lambda: array("l"))

    def __len__(self) -> int:
        return len(self.start)

    def take(self, idx: list[int]) -> Samples:
        """A new :class:`Samples` with the rows ``idx``."""
        out = Samples()
        for name in ("start", "end", "value", "offset", "source", "line"):
            col = getattr(self, name)
            getattr(out, name).extend(col[i] for i in idx)
        return out

    def add(self, start: int, end: int, value: float, offset: int, source: int, line: int) -> None:
        """Append one sample."""
        self.start.append(start)
        self.end.append(end)
        self.value.append(value)
        self.offset.append(offset)
        self.source.append(source)
        self.line.append(line)


#: A kept stretch: UTC start, UTC end (s), value over it, offset (s).
Piece = tuple[float, float, float, int]


def _merge(intervals: list[tuple[float, float]]) -> tuple[list[float], list[float]]:
    starts: list[float] = []
    ends: list[float] = []
    for s, e in sorted(intervals):
        if starts and s <= ends[-1]:
            ends[-1] = max(ends[-1], e)
        else:
            starts.append(s)
            ends.append(e)
    return starts, ends


def _uncovered(s: float, e: float, starts: list[float], ends: list[float]) -> list[tuple[float, float]]:
    """Parts of ``[s, e)`` outside the merged intervals."""
    i = max(bisect_right(starts, s) - 1, 0)
    out: list[tuple[float, float]] = []
    cur = s
    while i < len(starts) and starts[i] < e:
        if ends[i] > cur:
            if starts[i] > cur:
                out.append((cur, starts[i]))
            cur = max(cur, ends[i])
        i += 1
    if cur < e:
        out.append((cur, e))
    return out


def _covers(t: float, starts: list[float], ends: list[float]) -> bool:
    i = bisect_right(starts, t) - 1
    return i >= 0 and t < ends[i]


def deduplicate(
    what: str, samples: Samples, ranks: dict[int, tuple[int, str]], log: ImportLog, where: Where
) -> list[Piece]:
    """Kept pieces of ``samples`` after source priority (see the module docstring).

    Args:
        what: Metric name for repair kinds (``steps``).
        samples: One cumulative type's columns (a closed group: nothing outside overlaps them).
        ranks: Source id → (priority class, source name); higher class wins, then name order.
        log: Receives the repairs, each with an example.
        where: ``(line, utc, offset) → "file line N, user U, date"`` for examples.
    """
    by_source: defaultdict[int, list[int]] = defaultdict(list)
    for i, sid in enumerate(samples.source):
        by_source[sid].append(i)
    order = sorted(by_source, key=lambda sid: (-ranks[sid][0], ranks[sid][1]))
    starts: list[float] = []
    ends: list[float] = []
    pieces: list[Piece] = []
    for sid in order:
        if not starts:
            _keep_all(samples, by_source[sid], pieces)
        for i in by_source[sid] if starts else ():
            s, e, v, off = samples.start[i], samples.end[i], samples.value[i], samples.offset[i]
            if e == s:
                if _covers(s, starts, ends):
                    _count(
                        log,
                        f"{what}: sample inside a better source's interval, dropped",
                        where,
                        what,
                        samples,
                        i,
                    )
                else:
                    pieces.append((s, e, v, off))
                continue
            parts = _uncovered(s, e, starts, ends)
            kept = sum(b - a for a, b in parts)
            if kept < e - s:
                kind = "dropped" if not parts else "value split proportionally"
                _count(log, f"{what}: sample overlapped by a better source, {kind}", where, what, samples, i)
            pieces.extend((a, b, v * (b - a) / (e - s), off) for a, b in parts)
        if sid != order[-1]:
            starts, ends = _merge(
                [(a, b) for a, b in zip(starts, ends, strict=True)]
                + [(samples.start[i], samples.end[i]) for i in by_source[sid]]
            )
    return pieces


def _keep_all(samples: Samples, idx: list[int], pieces: list[Piece]) -> None:
    """The best source's samples: nothing covers them (the same arithmetic as a partial keep)."""
    start, end, value, offset = samples.start, samples.end, samples.value, samples.offset
    for i in idx:
        s, e, v = start[i], end[i], value[i]
        pieces.append((s, e, v, offset[i]) if e == s else (s, e, v * (e - s) / (e - s), offset[i]))


def _count(log: ImportLog, kind: str, where: Where, what: str, samples: Samples, i: int) -> None:
    place = where(samples.line[i], samples.start[i], samples.offset[i])
    log.repair(kind, f"{place}, {what} = {samples.value[i]:g}")


def per_local_day(pieces: list[Piece]) -> dict[int, float]:
    """Sum of piece values per local day (days since 1970-01-01), split at local midnight."""
    out: defaultdict[int, float] = defaultdict(float)
    for s, e, v, off in pieces:
        ls, le = s + off, e + off
        d0, d1 = int(ls // 86400), int(le // 86400)
        if d0 == d1 or le == d1 * 86400 or e == s:
            out[d0] += v
            continue
        for d in range(d0, d1 + 1):
            a, b = max(ls, d * 86400), min(le, (d + 1) * 86400)
            if b > a:
                out[d] += v * (b - a) / (le - ls)
    return dict(out)


class WindowedDedup:
    """Streaming :func:`deduplicate`: per type, buffered samples are settled in closed groups.

    When a type's buffer reaches :data:`FLUSH` samples, the samples are sorted by start and cut
    at the latest point that (a) no buffered sample straddles and (b) lies at least
    :data:`HORIZON` before the latest start seen; everything before the cut is de-duplicated
    (nothing later can overlap it) and added to per-day sums, and only the rest is kept. The
    result equals de-duplicating everything at once. A sample that starts before an earlier cut
    sets :attr:`unordered` (the caller then re-reads with ``keep_all``).
    """

    def __init__(
        self, ranks: dict[int, tuple[int, str]], log: ImportLog, where: Where, *, keep_all: bool = False
    ) -> None:
        self.ranks = ranks
        self.log = log
        self.where = where
        self.keep_all = keep_all
        self.buffers: defaultdict[str, Samples] = defaultdict(Samples)
        self.daily: defaultdict[str, defaultdict[int, float]] = defaultdict(lambda: defaultdict(float))
        self.unordered = False
        self._cut: dict[str, float] = {}
        self._latest: dict[str, float] = {}
        self._threshold: dict[str, int] = {}

    def add(self, what: str, start: int, end: int, value: float, offset: int, source: int, line: int) -> None:
        """Buffer one sample of type ``what`` (flushing a settled group when the buffer is full)."""
        if start < self._cut.get(what, -math.inf):
            self.unordered = True
        buf = self.buffers[what]
        buf.add(start, end, value, offset, source, line)
        if start > self._latest.get(what, -math.inf):
            self._latest[what] = start
        if not self.keep_all and len(buf) >= self._threshold.get(what, FLUSH):
            self._flush(what, final=False)

    def finish(self) -> dict[str, dict[int, float]]:
        """Settle every buffer; per type, the de-duplicated sum per local day (days since 1970)."""
        for what in list(self.buffers):
            self._flush(what, final=True)
        return {what: dict(days) for what, days in self.daily.items()}

    def _flush(self, what: str, *, final: bool) -> None:
        buf = self.buffers[what]
        order = sorted(range(len(buf)), key=buf.start.__getitem__)
        cut = len(order) if final else _cut_index(buf, order, self._latest[what] - HORIZON)
        if cut:
            head = buf.take(order[:cut])
            for day, total in per_local_day(
                deduplicate(what, head, self.ranks, self.log, self.where)
            ).items():
                self.daily[what][day] += total
            rest = buf.take(order[cut:])
            self.buffers[what] = rest
            if cut < len(order):
                self._cut[what] = rest.start[0]
        self._threshold[what] = max(FLUSH, 2 * len(self.buffers[what]))


def _cut_index(buf: Samples, order: list[int], limit: float) -> int:
    """Largest k with every sample before position k ending by the k-th start (≤ ``limit``)."""
    cut, run_end = 0, -math.inf
    for k, i in enumerate(order):
        s = buf.start[i]
        if s > limit:
            break
        if k and run_end <= s:
            cut = k
        run_end = max(run_end, buf.end[i])
    return cut
