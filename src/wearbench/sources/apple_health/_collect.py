"""One streaming pass over an export: windowed source de-duplication, sleep segments, workouts.

Cumulative samples (steps, energy, distance, flights, exercise time) go to a
:class:`~wearbench.sources.apple_health._dedup.WindowedDedup`, which settles them window by
window into per-day sums; point readings (resting HR, HRV, VO2max) are reduced to per-day sums
as they stream. Kept whole are only the small things: sleep segments (a few per night) and
workouts. With ``keep_all`` every cumulative and heart-rate sample is kept instead (minute
channels; exports whose records are out of time order).
"""

from __future__ import annotations

import math
from array import array
from collections import defaultdict
from dataclasses import dataclass

from wearbench.sources._report import ImportLog
from wearbench.sources.apple_health._dedup import WindowedDedup
from wearbench.sources.apple_health._fastlane import HeartRateLane
from wearbench.sources.apple_health._parse import parse_time

_Q = "HKQuantityTypeIdentifier"
#: Cumulative record types → short name (values are summed over time).
CUMULATIVE = {
    _Q + "StepCount": "steps",
    _Q + "ActiveEnergyBurned": "active_kcal",
    _Q + "BasalEnergyBurned": "bmr_kcal",
    _Q + "AppleExerciseTime": "exercise_time",
    _Q + "DistanceWalkingRunning": "distance",
    _Q + "FlightsClimbed": "flights",
}
#: Point record types → canonical metric (daily mean).
POINT = {
    _Q + "RestingHeartRate": "resting_hr",
    _Q + "HeartRateVariabilitySDNN": "hrv",
    _Q + "VO2Max": "vo2max",
}
_HR = _Q + "HeartRate"
_SLEEP = "HKCategoryTypeIdentifierSleepAnalysis"
_S = "HKCategoryValueSleepAnalysis"
#: Sleep values → stage code (0 in bed, 1 asleep unspecified/legacy, 2 awake, 3 core, 4 deep, 5 REM).
SLEEP_STAGES = {
    _S + "InBed": 0,
    _S + "Asleep": 1,
    _S + "AsleepUnspecified": 1,
    _S + "Awake": 2,
    _S + "AsleepCore": 3,
    _S + "AsleepDeep": 4,
    _S + "AsleepREM": 5,
}
_ENERGY = {"kcal": 1.0, "Cal": 1.0, "kJ": 1 / 4.184, "J": 1 / 4184.0}
_DISTANCE = {"m": 1.0, "km": 1000.0, "mi": 1609.344, "ft": 0.3048, "yd": 0.9144}
_DURATION = {"min": 1.0, "s": 1 / 60, "hr": 60.0, "h": 60.0}


def priority(source: str, device: str) -> int:
    """Source class: 2 Apple Watch, 1 iPhone, 0 anything else."""
    if "Watch" in device or "Watch" in source:
        return 2
    if "iPhone" in device or "iPhone" in source:
        return 1
    return 0


@dataclass
class Workout:
    """One workout: UTC start/end (s), offset (s), type, minutes, mean HR, METs, source, line."""

    start: int
    end: int
    offset: int
    kind: str
    minutes: float
    avg_hr: float = math.nan
    mets: float = math.nan
    source: int = 0
    line: int = 0


class Collector:
    """Element callbacks for :func:`~wearbench.sources.apple_health._parse.stream`."""

    def __init__(self, name: str, log: ImportLog, user: str, *, keep_all: bool = False) -> None:
        """Start an empty collection.

        Args:
            name: File name for messages.
            log: Import log to fill.
            user: User id for messages (replaced by ``<Me userId=...>`` if present).
            keep_all: Keep every cumulative and heart-rate sample (minute channels, or a
                second pass over an export whose records are out of time order); otherwise
                cumulative samples are de-duplicated and dropped window by window.
        """
        self.name = name
        self.log = log
        self.user = user
        self.keep_all = keep_all
        self.sources: dict[str, int] = {}
        self.source_priority: list[int] = []
        self.ranks: dict[int, tuple[int, str]] = {}
        self.dedup = WindowedDedup(self.ranks, log, self.where, keep_all=keep_all)
        self.point: defaultdict[tuple[str, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
        self.hr_count = 0
        self.daily_cumulative: dict[str, dict[int, float]] = {}
        self.hr_time: array[float] = array("d")
        self.hr_value: array[float] = array("d")
        self.hr_offset: array[int] = array("i")
        self.hr_end: array[float] = array("d")
        self.hr_source: array[int] = array("i")
        self.sleep: list[tuple[int, int, int, int, int, int]] = []
        self.workouts: list[Workout] = []
        self.me: dict[str, str] = {}
        self.export_date: tuple[int, int] | None = None
        self._workout: Workout | None = None
        self._kinds: dict[str, tuple[str, str, int]] = {}
        self._lane = HeartRateLane()
        self._depth_in_correlation = 0

    def where(self, line: int, utc: float | None = None, offset: int = 0) -> str:
        """``"export.xml line 12, user ann, 2024-01-01"`` for examples and errors."""
        day = "" if utc is None else ", " + _iso_day(int(utc) + offset)
        return f"{self.name} line {line}, user {self.user}{day}"

    def source_id(self, attrs: dict[str, str]) -> int:
        """Small integer id of the record's source (its priority kept in ``source_priority``)."""
        name = attrs.get("sourceName", "")
        sid = self.sources.get(name)
        if sid is None:
            sid = self.sources[name] = len(self.sources)
            self.source_priority.append(priority(name, attrs.get("device", "")))
            self.ranks[sid] = (self.source_priority[sid], name)
        return sid

    def chunk_filter(self, chunk: bytes, root_seen: bool) -> bytes:
        """``stream``'s chunk filter: the heart-rate fast lane, unless ``keep_all``.

        Plain valid heart-rate records are counted here (rows read, ``hr_count``) by
        :mod:`~wearbench.sources.apple_health._fastlane` and cut from the chunk.
        """
        if self.keep_all:
            return chunk
        before = self._lane.count
        out = self._lane(chunk, active=root_seen, in_correlation=self._depth_in_correlation > 0)
        if self._lane.count > before:
            self.log.rows_read["Record HeartRate"] += self._lane.count - before
            self.hr_count += self._lane.count - before
        return out

    def start(self, tag: str, attrs: dict[str, str], line: int) -> None:
        """Element opened."""
        if tag == "Record":
            if self._depth_in_correlation:
                return  # Apple repeats correlation children as top-level records
            rtype = attrs.get("type", "")
            kind = self._kinds.get(rtype)
            if kind is None:
                kind = self._kinds[rtype] = _kind(rtype)
            self.log.rows_read[kind[0]] += 1
            if kind[2] == _HR_KIND and not self.keep_all:
                # Fast path for the most common record (only its validity matters here); any
                # record it does not accept outright goes the general way, which logs why.
                text = attrs.get("startDate", "")
                end_text = attrs.get("endDate", "") or text
                try:
                    t0 = parse_time(text)[0]
                    t1 = t0 if end_text == text else parse_time(end_text)[0]
                    value = float(attrs.get("value", ""))
                except ValueError:
                    pass
                else:
                    if t1 >= t0 and 0 <= value < math.inf:
                        self.hr_count += 1
                        return
            if kind[2] != _SKIP:
                self._record(attrs, line, rtype, kind)
        elif tag == "Workout":
            self._workout = self._open_workout(attrs, line)
        elif tag == "MetadataEntry" and self._workout is not None:
            if attrs.get("key") == "HKAverageMETs":
                self._workout.mets = _leading_float(attrs.get("value", ""))
        elif tag == "WorkoutStatistics" and self._workout is not None:
            if attrs.get("type") == _HR and attrs.get("average"):
                self._workout.avg_hr = _leading_float(attrs["average"])
        elif tag == "Correlation":
            self._depth_in_correlation += 1
        elif tag == "Me":
            self.me = dict(attrs)
            self.user = attrs.get("userId") or attrs.get("user_id") or self.user
        elif tag == "ExportDate":
            try:
                self.export_date = parse_time(attrs.get("value", ""))
            except ValueError:
                self.log.reject("ExportDate: unreadable", self.where(line))

    def end(self, tag: str) -> None:
        """Element closed."""
        if tag == "Workout" and self._workout is not None:
            self.workouts.append(self._workout)
            self._workout = None
        elif tag == "Correlation":
            self._depth_in_correlation -= 1

    def _times(self, attrs: dict[str, str], line: int, what: str) -> tuple[int, int, int] | None:
        start_text = attrs.get("startDate", "")
        end_text = attrs.get("endDate", "") or start_text
        try:
            start, offset = parse_time(start_text)
            end = start if end_text == start_text else parse_time(end_text)[0]
        except ValueError as exc:
            self.log.reject(f"{what}: unreadable startDate/endDate", f"{self.where(line)}: {exc}")
            return None
        if end < start:
            self.log.reject(f"{what}: endDate before startDate", self.where(line, start, offset))
            return None
        return start, end, offset

    def _record(self, attrs: dict[str, str], line: int, rtype: str, kind: tuple[str, str, int]) -> None:
        short = kind[1]
        times = self._times(attrs, line, short)
        if times is None:
            return
        start, end, offset = times
        if kind[2] == _SLEEP_KIND:
            stage = SLEEP_STAGES.get(attrs.get("value", ""))
            if stage is None:
                self.log.reject("SleepAnalysis: unknown value", f"{self.where(line, start, offset)}")
                return
            self.sleep.append((start, end, offset, stage, self.source_id(attrs), line))
            return
        value = self._value(attrs, line, short, start, offset)
        if value is None:
            return
        if kind[2] == _HR_KIND:
            self.hr_count += 1
            if self.keep_all:
                self.hr_time.append(start)
                self.hr_value.append(value)
                self.hr_offset.append(offset)
                self.hr_end.append(end)
                self.hr_source.append(self.source_id(attrs))
        elif kind[2] == _POINT_KIND:
            acc = self.point[(POINT[rtype], (start + offset) // 86400)]
            acc[0] += value
            acc[1] += 1
        else:
            self.dedup.add(CUMULATIVE[rtype], start, end, value, offset, self.source_id(attrs), line)

    def _value(self, attrs: dict[str, str], line: int, short: str, start: int, offset: int) -> float | None:
        raw = attrs.get("value", "")
        try:
            value = float(raw)
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or value < 0:
            self.log.reject(f"{short}: value not a number ≥ 0", f"{self.where(line, start, offset)}: {raw!r}")
            return None
        unit = attrs.get("unit", "")
        if short in ("ActiveEnergyBurned", "BasalEnergyBurned"):
            factor = _ENERGY.get(unit)
            if factor is None:
                self.log.reject(
                    f"{short}: unknown energy unit", f"{self.where(line, start, offset)}: {unit!r}"
                )
                return None
            if factor != 1.0:
                self.log.repair(
                    f"{short}: unit conversion {unit}→kcal",
                    f"{self.where(line, start, offset)}: {raw} {unit}",
                )
            return value * factor
        if short == "DistanceWalkingRunning":
            return value * _DISTANCE.get(unit, math.nan)
        return value

    def _open_workout(self, attrs: dict[str, str], line: int) -> Workout | None:
        self.log.read("Workout")
        times = self._times(attrs, line, "Workout")
        if times is None:
            return None
        start, end, offset = times
        minutes = (end - start) / 60
        if attrs.get("duration"):
            unit = _DURATION.get(attrs.get("durationUnit", "min"))
            stated = _leading_float(attrs["duration"]) * unit if unit else math.nan
            minutes = stated if math.isfinite(stated) else minutes
        kind = attrs.get("workoutActivityType", "").removeprefix("HKWorkoutActivityType") or "Other"
        return Workout(start, end, offset, kind, minutes, source=self.source_id(attrs), line=line)


_SKIP, _SLEEP_KIND, _HR_KIND, _POINT_KIND, _CUMULATIVE_KIND = range(5)


def _kind(rtype: str) -> tuple[str, str, int]:
    """(rows-read key, short name, what the collector does with it) of a record type."""
    short = rtype.removeprefix(_Q).removeprefix("HKCategoryTypeIdentifier")
    if rtype == _SLEEP:
        kind = _SLEEP_KIND
    elif rtype == _HR:
        kind = _HR_KIND
    elif rtype in POINT:
        kind = _POINT_KIND
    elif rtype in CUMULATIVE:
        kind = _CUMULATIVE_KIND
    else:
        kind = _SKIP
    return f"Record {short}", short, kind


def _leading_float(text: str) -> float:
    try:
        return float(text.split()[0])
    except (ValueError, IndexError):
        return math.nan


def _iso_day(local_seconds: int) -> str:
    import datetime as dt

    return (dt.date(1970, 1, 1) + dt.timedelta(days=local_seconds // 86400)).isoformat()
