"""Realistic, DTD-conformant ``export.xml`` for one synthetic cohort user.

Per day the generator writes what an iPhone + Apple Watch owner's export holds, consistent with
the user's daily values: intra-day heart rate, Watch step bouts with iPhone samples that
duplicate or half-overlap them (plus iPhone-only walks while the Watch charges), active and
basal energy, distance, resting HR, HRV (SDNN), VO2max, an iPhone InBed span with Watch
sleep stages (iOS 16+), and workouts with HKAverageMETs and heart-rate statistics. Records
come first, then workouts, as Apple writes them. After the loader's source de-duplication the
daily steps, energy, resting HR, sleep and exercise values equal the cohort's (within rounding).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.cohort import Cohort
from wearbench.minutes import CHANNEL_NAMES, WORKOUTS
from wearbench.sources.apple_health._dtd import APPLE_DTD

#: The seed's ten workout types (HKWorkoutActivityType names), in the order of the minute channels
#: 9–18 of :mod:`wearbench.minutes`; the generator draws each workout's type uniformly from them.
WORKOUT_TYPES: tuple[str, ...] = tuple(CHANNEL_NAMES[c] for c in WORKOUTS)
#: Sleep layouts :func:`write_export` can write (``sleep=``).
SLEEP_STYLES = ("stages", "asleep", "core")
_Q = "HKQuantityTypeIdentifier"
_WATCH = (
    "Apple Watch",
    "&lt;&lt;HKDevice: 0x3012772a0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, "
    "hardware:Watch6,7, software:10.2&gt;",
    "10.2",
)
_PHONE = (
    "iPhone",
    "&lt;&lt;HKDevice: 0x30125f110&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, "
    "hardware:iPhone14,2, software:17.2.1&gt;",
    "17.2.1",
)


class _Writer:
    def __init__(self, fh: IO[str], offset_min: int) -> None:
        self.fh = fh
        self.offset = offset_min * 60
        sign = "+" if offset_min >= 0 else "-"
        self.tz = f" {sign}{abs(offset_min) // 60:02d}{abs(offset_min) % 60:02d}"

    def ts(self, local_seconds: float) -> str:
        """Local wall time (s since 1970, local) → Apple timestamp text."""
        t = pd.Timestamp(round(local_seconds), unit="s")
        return t.strftime("%Y-%m-%d %H:%M:%S") + self.tz

    def record(
        self, rtype: str, dev: tuple[str, str, str], unit: str | None, value: str, s: float, e: float
    ) -> None:
        unit_attr = f' unit="{unit}"' if unit else ""
        self.fh.write(
            f'  <Record type="{rtype}" sourceName="{dev[0]}" sourceVersion="{dev[2]}" device="{dev[1]}"'
            f'{unit_attr} creationDate="{self.ts(e + 60)}" startDate="{self.ts(s)}" endDate="{self.ts(e)}"'
            f' value="{value}"/>\n'
        )


def _parts(total: float, n: int, rng: np.random.Generator, integer: bool, alpha: float = 4.0) -> list[float]:
    w = rng.dirichlet(np.full(n, alpha))
    if not integer:
        return [float(x) for x in w * total]
    raw = np.floor(w * total).astype(int)
    raw[0] += int(total) - int(raw.sum())
    return [float(x) for x in raw]


def _steps(wr: _Writer, day0: float, steps: float, n: int, rng: np.random.Generator) -> None:
    """Watch bouts (kept), iPhone duplicates (dropped), an iPhone half-overlap, a phone-only walk."""
    extra = 10.0 if steps >= 40 else 0.0  # steps the half-overlapping iPhone sample adds
    values = _parts(steps - extra, n + 1, rng, integer=True)
    slots = np.sort(rng.choice(np.arange(8, 42), size=n, replace=False))  # 20-min slots, 09:40-21:00
    phone_only = values.pop()
    wr.record(_Q + "StepCount", _PHONE, "count", f"{phone_only:.0f}", day0 + 6 * 3600, day0 + 6.5 * 3600)
    for k, (slot, v) in enumerate(zip(slots, values, strict=True)):
        s = day0 + 7 * 3600 + float(slot) * 1200
        wr.record(_Q + "StepCount", _WATCH, "count", f"{v:.0f}", s, s + 600)
        wr.record(_Q + "DistanceWalkingRunning", _WATCH, "km", f"{v * 0.00075:.4f}", s, s + 600)
        if k % 2:  # the iPhone counted the same bout, a little lower: dropped
            wr.record(_Q + "StepCount", _PHONE, "count", f"{max(v - 7, 0):.0f}", s, s + 600)
    if extra:  # the iPhone covers [s - 600, s + 600) of the first bout: its first half is kept
        first = day0 + 7 * 3600 + float(slots[0]) * 1200
        wr.record(_Q + "StepCount", _PHONE, "count", f"{2 * extra:.0f}", first - 600, first + 600)


def write_export(
    cohort: Cohort,
    user_id: str,
    out_xml: str | Path,
    *,
    seed: int,
    samples_per_day: int = 300,
    sleep: str = "stages",
) -> Path:
    """Write ``out_xml`` for ``user_id`` of ``cohort`` (every day of that user).

    Args:
        cohort: A cohort (e.g. ``wearbench.synth(...)``).
        user_id: The user to export.
        out_xml: Output path (``export.xml``).
        seed: Seed for the intra-day detail; fixes every output byte.
        samples_per_day: About how many heart-rate samples per day (file size scales with it).
        sleep: ``"stages"`` (iPhone InBed + Watch Awake/Core/Deep/REM, iOS 16+), ``"asleep"``
            (legacy: Watch ``Asleep`` segments only, no InBed, no Awake) or ``"core"`` (InBed +
            Watch Awake and ``AsleepCore`` only, no Deep or REM).

    Returns:
        ``out_xml`` as a Path.

    Raises:
        WearbenchError: If the user is not in the cohort or ``sleep`` is unknown.
    """
    if sleep not in SLEEP_STYLES:
        raise WearbenchError(f"sleep style {sleep!r}: expected one of {', '.join(SLEEP_STYLES)}")
    daily = cohort.daily[cohort.daily["user_id"] == user_id].sort_values("date")
    if daily.empty:
        raise WearbenchError(f"user {user_id!r} is not in the cohort")
    demo = cohort.demographics.set_index("user_id").loc[user_id]
    demo = demo if isinstance(demo, pd.Series) else demo.iloc[0]
    rng0 = np.random.default_rng(seed)
    offset_min = int(rng0.choice([-300, 0, 60, 120]))
    out = Path(out_xml)
    with out.open("w", encoding="utf-8", newline="\n") as fh:
        wr = _Writer(fh, offset_min)
        last = daily["date"].max().value // 10**9 + 86400 + 9 * 3600
        fh.write(APPLE_DTD + '<HealthData locale="en_US">\n')
        fh.write(f' <ExportDate value="{wr.ts(last)}"/>\n')
        fh.write(_me(demo, daily["date"].max() + pd.Timedelta(days=1)))
        for i, row in enumerate(daily.itertuples(index=False)):
            _day(wr, row, np.random.default_rng([seed, i]), samples_per_day, sleep)
        for i, row in enumerate(daily.itertuples(index=False)):
            _workouts(wr, row, np.random.default_rng([seed, i, 7]))
        fh.write("</HealthData>\n")
    return out


def _me(demo: pd.Series, exported: pd.Timestamp) -> str:
    """``<Me>`` with a birth date that makes the user ``age`` on the export date (birthday next day)."""
    age = demo.get("age")
    dob = ""
    if age is not None and not pd.isna(age):
        ref = exported.date()
        born = ref.replace(year=ref.year - int(age) - 1, day=min(ref.day, 28) if ref.month == 2 else ref.day)
        dob = (born + pd.Timedelta(days=1)).isoformat()
    sex = {"F": "HKBiologicalSexFemale", "M": "HKBiologicalSexMale"}.get(
        str(demo.get("sex")), "HKBiologicalSexNotSet"
    )
    return (
        f' <Me HKCharacteristicTypeIdentifierDateOfBirth="{dob}"'
        f' HKCharacteristicTypeIdentifierBiologicalSex="{sex}"'
        ' HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet"'
        ' HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet"'
        ' HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>\n'
    )


def _ok(v: float) -> bool:
    return math.isfinite(v)


def _v(row: Any, name: str) -> float:
    value = getattr(row, name)
    return math.nan if value is None or pd.isna(value) else float(value)


def _day(wr: _Writer, row: Any, rng: np.random.Generator, n: int, style: str) -> None:
    day0 = float(row.date.value // 10**9)
    rhr = _v(row, "resting_hr")
    base = rhr if _ok(rhr) else 65.0
    times = np.sort(rng.uniform(0, 86400, size=n))
    hr = base + 12 + 8 * np.sin(times / 86400 * 2 * np.pi - 2) + rng.normal(0, 4, size=n)
    for t, v in zip(times, hr, strict=True):
        wr.record(_Q + "HeartRate", _WATCH, "count/min", f"{max(v, 35):.0f}", day0 + t, day0 + t)
    if _ok(rhr):
        wr.record(_Q + "RestingHeartRate", _WATCH, "count/min", f"{rhr:g}", day0 + 60, day0 + 86340)
    if _ok(_v(row, "hrv")):
        for d in (-3.0, 3.0):
            wr.record(
                _Q + "HeartRateVariabilitySDNN",
                _WATCH,
                "ms",
                f"{_v(row, 'hrv') + d:.2f}",
                day0 + 4e4 + d * 1e3,
                day0 + 4e4 + d * 1e3 + 60,
            )
    if _ok(_v(row, "vo2max")):
        wr.record(_Q + "VO2Max", _WATCH, "mL/min·kg", f"{_v(row, 'vo2max'):g}", day0 + 5e4, day0 + 5e4)
    if _ok(_v(row, "steps")):
        _steps(wr, day0, _v(row, "steps"), min(max(n // 12, 2), 30), rng)
    for name, col in (("ActiveEnergyBurned", "active_kcal"), ("BasalEnergyBurned", "bmr_kcal")):
        if _ok(_v(row, col)):
            # active: 144 ten-minute records, most of the day's total in a few active ones (as a
            # Watch writes it: minute energy varies, so a worn day passes the seed's variance filter)
            k, alpha = (144, 0.02) if col == "active_kcal" else (24, 4.0)
            for j, v in enumerate(_parts(_v(row, col), k, rng, integer=False, alpha=alpha)):
                s = day0 + j * 86400 / k
                wr.record(_Q + name, _WATCH, "kcal", f"{v:.6f}", s, s + 86400 / k - 1)
    if _ok(_v(row, "sleep_minutes")) and _ok(_v(row, "sleep_efficiency")):
        _sleep(wr, day0, row, rng, style)


def _sleep(wr: _Writer, day0: float, row: Any, rng: np.random.Generator, style: str) -> None:
    asleep = _v(row, "sleep_minutes") * 60
    in_bed = asleep * 100 / _v(row, "sleep_efficiency")
    wake = day0 + 7 * 3600 + float(rng.integers(-2400, 2400))
    bed = wake - in_bed
    latency = (in_bed - asleep) / 2
    if style == "asleep":  # legacy Asleep only: two segments with an unrecorded gap between them
        half = asleep / 2
        for s in (bed + latency, bed + latency + half + (in_bed - asleep - latency) / 2):
            wr.record(
                "HKCategoryTypeIdentifierSleepAnalysis",
                _WATCH,
                None,
                "HKCategoryValueSleepAnalysisAsleep",
                s,
                s + half,
            )
        return
    wr.record(
        "HKCategoryTypeIdentifierSleepAnalysis", _PHONE, None, "HKCategoryValueSleepAnalysisInBed", bed, wake
    )
    deep_pct, rem_pct = _v(row, "deep_sleep_pct"), _v(row, "rem_sleep_pct")
    deep = asleep * deep_pct / 100 if _ok(deep_pct) else 0.0
    rem = asleep * rem_pct / 100 if _ok(rem_pct) else 0.0
    stages = [("Awake", latency)]
    if style == "core":
        stages += [("AsleepCore", asleep)]
    elif _ok(deep_pct) and _ok(rem_pct):
        stages += [("AsleepCore", (asleep - deep - rem) / 2), ("AsleepDeep", deep), ("AsleepREM", rem)]
        stages += [("AsleepCore", (asleep - deep - rem) / 2)]
    else:
        stages += [("AsleepUnspecified", asleep)]
    stages += [("Awake", in_bed - asleep - latency)]
    t = bed
    for stage, length in stages:
        if round(t + length) > round(t):
            wr.record(
                "HKCategoryTypeIdentifierSleepAnalysis",
                _WATCH,
                None,
                f"HKCategoryValueSleepAnalysis{stage}",
                t,
                t + length,
            )
        t += length


def _workouts(wr: _Writer, row: Any, rng: np.random.Generator) -> None:
    count, minutes = _v(row, "exercise_count"), _v(row, "exercise_minutes")
    if not (_ok(count) and _ok(minutes)) or count < 1:
        return
    day0 = float(row.date.value // 10**9)
    each = minutes * 60 / count
    start = day0 + 17 * 3600
    for _ in range(int(count)):
        kind = WORKOUT_TYPES[int(rng.integers(0, len(WORKOUT_TYPES)))]
        end = start + each
        wr.fh.write(
            f'  <Workout workoutActivityType="HKWorkoutActivityType{kind}" duration="{each / 60:.6f}"'
            f' durationUnit="min" sourceName="{_WATCH[0]}" sourceVersion="{_WATCH[2]}" device="{_WATCH[1]}"'
            f' creationDate="{wr.ts(end + 60)}"'
            f' startDate="{wr.ts(start)}" endDate="{wr.ts(end)}">\n'
        )
        hours = minutes / 60
        if _ok(_v(row, "mets")) and hours > 0:
            wr.fh.write(
                f'   <MetadataEntry key="HKAverageMETs" value="{_v(row, "mets") / hours:.6f} kcal/hr·kg"/>\n'
            )
        if _ok(_v(row, "exercise_avg_hr")):
            wr.fh.write(
                f'   <WorkoutStatistics type="{_Q}HeartRate" startDate="{wr.ts(start)}"'
                f' endDate="{wr.ts(end)}"'
                f' average="{_v(row, "exercise_avg_hr"):g}" unit="count/min"/>\n'
            )
        wr.fh.write("  </Workout>\n")
        start = end + 900
