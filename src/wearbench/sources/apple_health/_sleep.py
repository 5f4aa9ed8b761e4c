"""Nights from SleepAnalysis segments: sessions, source choice, minutes, efficiency, stages.

Segments (any source) are grouped into sessions: sorted by start, a segment joins the current
session when it starts less than :data:`GAP` seconds after the session's latest end. A session
belongs to the local date it ends on (its wake date); per wake date the session with the most
sleep is the main sleep. Within a session the asleep stages come from one source, the best
ranked (Watch > iPhone > other) that has any; other sources' asleep segments are dropped and
counted. Time in bed is the union of every source's InBed segments and the chosen source's
asleep and awake segments.

What a night cannot support is missing, not guessed, and each case is counted (per main sleep)
as a repair in the import log:

* efficiency needs a time in bed that is measured apart from sleep: an ``InBed`` segment (any
  source) or an ``Awake`` segment of the chosen source. A night of ``Asleep`` segments only
  would otherwise read as 100 % efficient: its efficiency is NaN (:data:`NO_IN_BED`);
* deep and REM shares need a staged night: at least one ``AsleepDeep`` or ``AsleepREM``
  segment. Legacy ``Asleep``/``AsleepUnspecified`` nights (:data:`NO_STAGES`) and nights of
  ``AsleepCore`` only (:data:`CORE_ONLY`, e.g. an app that writes every minute as Core) would
  otherwise read as 0 % deep and 0 % REM: both shares are NaN.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import pandas as pd

from wearbench.sources._days import bedtime_regularity, onset_minutes
from wearbench.sources._report import ImportLog
from wearbench.sources.apple_health._dedup import Where

#: Largest gap (s) between segments of one session.
GAP = 2 * 3600
Segment = tuple[int, int, int, int, int, int]
_ASLEEP = (1, 3, 4, 5)
#: Repair kind: a night with no InBed and no Awake segment (efficiency set missing).
NO_IN_BED = "sleep: no InBed or Awake segment in the night, efficiency set missing"
#: Repair kind: a night of legacy Asleep segments only (deep/REM % set missing).
NO_STAGES = "sleep: no sleep stages (legacy Asleep only), deep and REM % set missing"
#: Repair kind: a night whose only stage is Core (deep/REM % set missing).
CORE_ONLY = "sleep: Core stage only (no Deep or REM segment), deep and REM % set missing"


def _sessions(segments: list[Segment]) -> list[list[Segment]]:
    out: list[list[Segment]] = []
    latest = -math.inf
    for seg in sorted(segments):
        if out and seg[0] < latest + GAP:
            out[-1].append(seg)
            latest = max(latest, seg[1])
        else:
            out.append([seg])
            latest = seg[1]
    return out


def _union_seconds(intervals: list[tuple[int, int]]) -> int:
    total, cur_s, cur_e = 0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            total += 0 if cur_e is None or cur_s is None else cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_s is not None and cur_e is not None:
        total += cur_e - cur_s
    return total


def _night(
    session: list[Segment], ranks: dict[int, tuple[int, str]], log: ImportLog, where: Where
) -> dict[str, Any] | None:
    asleep_sources = {seg[4] for seg in session if seg[3] in _ASLEEP}
    if not asleep_sources:
        return None
    chosen = min(asleep_sources, key=lambda sid: (-ranks[sid][0], ranks[sid][1]))
    mine = [seg for seg in session if seg[4] == chosen and seg[3] != 0]
    for seg in session:
        if seg[4] != chosen and seg[3] != 0:
            log.repair(
                "sleep: stage from a second source in the same night, dropped", f"{where} line {seg[5]}"
            )
    stage_sec: defaultdict[int, int] = defaultdict(int)
    for seg in mine:
        stage_sec[seg[3]] += seg[1] - seg[0]
    asleep = sum(stage_sec[k] for k in _ASLEEP)
    has_bed = any(s[3] == 0 for s in session) or stage_sec[2] > 0
    in_bed = _union_seconds([(s[0], s[1]) for s in session if s[3] == 0] + [(s[0], s[1]) for s in mine])
    staged = bool(stage_sec[4] or stage_sec[5])
    first = min((s for s in mine if s[3] in _ASLEEP), key=lambda s: s[0])
    last = max(session, key=lambda s: s[1])
    missing = [] if has_bed and in_bed else [NO_IN_BED]
    if not staged:
        missing.append(CORE_ONLY if stage_sec[3] else NO_STAGES)
    return {
        "wake_day": (last[1] + last[2]) // 86400,
        "onset_local": first[0] + first[2],
        "sleep_minutes": asleep / 60,
        "sleep_efficiency": 100 * asleep / in_bed if has_bed and in_bed else math.nan,
        "deep_sleep_pct": 100 * stage_sec[4] / asleep if staged and asleep else math.nan,
        "rem_sleep_pct": 100 * stage_sec[5] / asleep if staged and asleep else math.nan,
        "missing": tuple(missing),
        "example": where(first[5], first[0], first[2]),
    }


def sleep_daily(
    segments: list[Segment], ranks: dict[int, tuple[int, str]], log: ImportLog, where: Where
) -> pd.DataFrame:
    """One row per wake date (``day`` = days since 1970-01-01) with the main sleep's metrics.

    Columns: ``day``, ``sleep_minutes`` (min), ``sleep_efficiency`` (%), ``deep_sleep_pct`` and
    ``rem_sleep_pct`` (% of sleep), ``bedtime_regularity`` (min, SD of onsets over the trailing 7
    days via the shared helper). Efficiency is NaN for a night without InBed or Awake segments,
    the stage shares for a night without Deep or REM segments (module docstring); each such
    main sleep is counted as a repair with an example.
    """
    nights = [n for s in _sessions(segments) if (n := _night(s, ranks, log, where)) is not None]
    cols = [
        "day",
        "sleep_minutes",
        "sleep_efficiency",
        "deep_sleep_pct",
        "rem_sleep_pct",
        "bedtime_regularity",
    ]
    if not nights:
        return pd.DataFrame(columns=cols)
    frame = pd.DataFrame(nights).sort_values(["wake_day", "sleep_minutes"], ascending=[True, False])
    extra = frame.duplicated("wake_day")
    if extra.any():
        log.note(
            "sleep: the longest session per wake date is the main sleep; shorter ones (naps) are not added"
        )
    frame = frame[~extra].reset_index(drop=True)
    for missing, example in zip(frame["missing"], frame["example"], strict=True):
        for kind in missing:
            log.repair(kind, example)
    onset = pd.to_datetime(frame["onset_local"], unit="s")
    dates = pd.to_datetime(frame["wake_day"], unit="D")
    frame["bedtime_regularity"] = bedtime_regularity(dates, onset_minutes(onset))
    return frame.rename(columns={"wake_day": "day"})[cols]
