"""The canonical data model: daily metrics, blood panel, demographics, reference percentiles.

Units are fixed here, once; every loader converts into them. Plausible ranges bound
physiologically possible device readings (not clinical normal ranges): a value outside
is a device or unit error and is flagged, then set missing as a counted repair.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SCHEMA_VERSION = 1

Domain = Literal["cardio", "activity", "sleep", "stress"]


@dataclass(frozen=True)
class Metric:
    """One daily wearable metric.

    Attributes:
        name: Canonical column name.
        unit: Unit of the canonical column.
        lo: Lowest plausible value (inclusive).
        hi: Highest plausible value (inclusive).
        domain: Physiological domain.
        wearableqa: Field name in the WearableQA release.
        wearableqa_scale: Multiply the canonical value by this to get the WearableQA unit.
        integer: Whether values are counts (stored as float, NaN = missing, but whole numbers).
        description: One-line meaning.
    """

    name: str
    unit: str
    lo: float
    hi: float
    domain: Domain
    wearableqa: str
    wearableqa_scale: float
    integer: bool
    description: str


METRICS: tuple[Metric, ...] = (
    Metric("resting_hr", "bpm", 25, 150, "cardio", "rhr", 1.0, False, "resting heart rate"),
    Metric("hrv", "ms", 3, 300, "cardio", "hrv", 1.0, False, "nightly heart-rate variability (RMSSD)"),
    Metric("vo2max", "mL/kg/min", 10, 95, "cardio", "vo2_max", 1.0, False, "estimated VO2max"),
    Metric("steps", "steps", 0, 100_000, "activity", "steps", 1.0, True, "daily step count"),
    Metric("active_kcal", "kcal", 0, 8_000, "activity", "active_burn", 1.0, False, "active energy burned"),
    Metric("bmr_kcal", "kcal", 700, 4_500, "activity", "calories_bmr", 1.0, False, "basal metabolic energy"),
    Metric("exercise_count", "sessions", 0, 20, "activity", "exercise_count", 1.0, True, "exercise sessions"),
    Metric(
        "exercise_minutes", "min", 0, 900, "activity", "exercise_hours", 1 / 60, False, "exercise duration"
    ),
    Metric(
        "exercise_avg_hr",
        "bpm",
        50,
        220,
        "activity",
        "exercise_avg_hr",
        1.0,
        False,
        "mean HR during exercise",
    ),
    Metric("mets", "MET-h", 0, 150, "activity", "exercise_mets", 1.0, False, "daily exercise MET-hours"),
    Metric(
        "sleep_minutes", "min", 30, 1_080, "sleep", "sleep_duration", 1 / 60, False, "main sleep duration"
    ),
    Metric(
        "sleep_efficiency", "%", 30, 100, "sleep", "sleep_efficiency", 1.0, False, "time asleep / time in bed"
    ),
    Metric("deep_sleep_pct", "%", 0, 60, "sleep", "deep_percentage", 1.0, False, "deep sleep share of sleep"),
    Metric("rem_sleep_pct", "%", 0, 60, "sleep", "rem_percentage", 1.0, False, "REM sleep share of sleep"),
    Metric(
        "bedtime_regularity",
        "min",
        0,
        720,
        "sleep",
        "bed_time_std",
        1.0,
        False,
        "SD of sleep onset over the trailing 7 days",
    ),
    Metric("stress", "score 0-100", 0, 100, "stress", "avg_stress_level", 1.0, False, "average stress level"),
)
METRIC_NAMES: tuple[str, ...] = tuple(m.name for m in METRICS)
_METRIC_BY_NAME = {m.name: m for m in METRICS}
_METRIC_BY_WQA = {m.wearableqa: m for m in METRICS}


@dataclass(frozen=True)
class Biomarker:
    """One blood-panel biomarker.

    Attributes:
        name: Canonical column name.
        unit: Unit of the canonical column.
        lo: Lowest plausible value.
        hi: Highest plausible value.
        description: One-line meaning.
    """

    name: str
    unit: str
    lo: float
    hi: float
    description: str


BIOMARKERS: tuple[Biomarker, ...] = (
    Biomarker("fasting_glucose", "mg/dL", 30, 600, "fasting plasma glucose"),
    Biomarker("hba1c", "%", 3, 20, "glycated haemoglobin"),
    Biomarker("insulin", "uIU/mL", 0.5, 300, "fasting insulin"),
    Biomarker("triglycerides", "mg/dL", 10, 5_000, "triglycerides"),
    Biomarker("hdl", "mg/dL", 5, 200, "HDL cholesterol"),
    Biomarker("ldl", "mg/dL", 5, 500, "LDL cholesterol"),
    Biomarker("total_cholesterol", "mg/dL", 50, 700, "total cholesterol"),
    Biomarker("hs_crp", "mg/L", 0.01, 300, "high-sensitivity C-reactive protein"),
    Biomarker("alt", "U/L", 1, 2_000, "alanine aminotransferase"),
    Biomarker("ast", "U/L", 1, 2_000, "aspartate aminotransferase"),
    Biomarker("ggt", "U/L", 1, 2_000, "gamma-glutamyl transferase"),
    Biomarker("creatinine", "mg/dL", 0.1, 15, "serum creatinine"),
    Biomarker("egfr", "mL/min/1.73m2", 5, 200, "estimated glomerular filtration rate"),
    Biomarker("uric_acid", "mg/dL", 0.5, 20, "serum uric acid"),
    Biomarker("tsh", "mIU/L", 0.005, 100, "thyroid-stimulating hormone"),
    Biomarker("vitamin_d", "ng/mL", 2, 200, "25-hydroxy vitamin D"),
    Biomarker("ferritin", "ng/mL", 1, 5_000, "ferritin"),
)
BIOMARKER_NAMES: tuple[str, ...] = tuple(b.name for b in BIOMARKERS)

#: Demographic columns (besides ``user_id``): age years, sex F/M, BMI kg/m2, ethnicity label.
DEMOGRAPHIC_COLUMNS: tuple[str, ...] = ("age", "sex", "bmi", "ethnicity")
SEXES: tuple[str, ...] = ("F", "M")
ETHNICITIES: tuple[str, ...] = ("asian", "black", "hispanic", "white", "other")
AGE_RANGE: tuple[float, float] = (18, 100)
BMI_RANGE: tuple[float, float] = (12, 80)

#: Metrics with cohort reference percentiles (WearableQA's five core metrics).
REFERENCE_METRICS: tuple[str, ...] = ("resting_hr", "steps", "hrv", "sleep_minutes", "sleep_efficiency")
#: Percentiles stored per (metric, age band, sex); columns are named ``p5`` ... ``p95``.
PERCENTILES: tuple[int, ...] = (5, 10, 25, 50, 75, 90, 95)
#: Further cuts stored when available (optional columns ``p20`` … ``p80``, with ``mean`` and ``sd``),
#: so that the reference deciles P10…P90 are complete.
EXTRA_PERCENTILES: tuple[int, ...] = (20, 30, 40, 60, 70, 80)
#: Age bands as half-open ``[lo, hi)`` years with their labels.
AGE_BANDS: tuple[tuple[str, float, float], ...] = (
    ("18-29", 18, 30),
    ("30-39", 30, 40),
    ("40-49", 40, 50),
    ("50-59", 50, 60),
    ("60+", 60, 200),
)


def metric(name: str) -> Metric:
    """Return the :class:`Metric` for a canonical name.

    Raises:
        UnknownNameError: With close matches if ``name`` is not a canonical metric.
    """
    try:
        return _METRIC_BY_NAME[name]
    except KeyError:
        import difflib

        from wearbench._errors import UnknownNameError

        close = difflib.get_close_matches(name, list(_METRIC_BY_NAME) + list(_METRIC_BY_WQA), n=3)
        raise UnknownNameError("metric", name, close) from None


def age_band(age: float) -> str:
    """Label of the age band containing ``age`` (years).

    Raises:
        ValueError: If ``age`` is below the first band or NaN.
    """
    for label, lo, hi in AGE_BANDS:
        if lo <= age < hi:
            return label
    raise ValueError(f"age {age!r} is outside the reference age bands (>= {AGE_BANDS[0][1]})")


def to_wearableqa(name: str, value: float) -> tuple[str, float]:
    """Map a canonical metric value to the WearableQA field name and unit."""
    m = metric(name)
    return m.wearableqa, value * m.wearableqa_scale


def from_wearableqa(field: str, value: float) -> tuple[str, float]:
    """Map a WearableQA field value to the canonical metric name and unit.

    Raises:
        UnknownNameError: If ``field`` is not a WearableQA daily field.
    """
    m = _METRIC_BY_WQA.get(field)
    if m is None:
        import difflib

        from wearbench._errors import UnknownNameError

        close = difflib.get_close_matches(field, list(_METRIC_BY_WQA), n=3)
        raise UnknownNameError("WearableQA field", field, close)
    return m.name, value / m.wearableqa_scale
