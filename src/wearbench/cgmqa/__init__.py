"""CGM question answering (HealthLoopQA): patient records on the 5-minute grid and the templates.

:func:`read_records` turns a simulated or imported CGM folder into :class:`PatientRecord` objects;
a :class:`Template` (registry kind ``cgm_template``, one per public HealthLoopQA id) computes its
answer from one record. :func:`build_cgm_benchmark` turns a CGM folder into a benchmark artifact
(items, contexts, manifest, datasheet) and :func:`verify_cgm_benchmark` recomputes it.
"""

from wearbench.cgmqa._artifact import KIND, SEED_COUNTS, is_cgm_benchmark, read_cgm_items, read_cgm_manifest
from wearbench.cgmqa._build import CGMBuildResult, build_cgm_benchmark, parse_families
from wearbench.cgmqa._context import (
    CONTEXT_SUFFIX,
    WINDOW_DAYS,
    Window,
    open_context,
    read_context_bytes,
    record_window,
)
from wearbench.cgmqa._read import read_records
from wearbench.cgmqa._record import MEAL_TYPES, Bolus, Exercise, Meal, PatientRecord
from wearbench.cgmqa._rerun import Rerun, Trace, rerun_folder
from wearbench.cgmqa._sample import SAMPLINGS, SEED_PATIENTS, LevelDraw, draw_patients
from wearbench.cgmqa._series import (
    DAY_MIN,
    HYPER_MGDL,
    HYPO_MGDL,
    POINTS_PER_DAY,
    STEP_MIN,
    clock_mask,
    day_of_week,
    day_points,
    days_points,
    long_runs,
    runs,
    to_intervals,
)
from wearbench.cgmqa._source import PM_PD_RUNS, DataSource, read_data_source
from wearbench.cgmqa._template import (
    ANSWER_TYPES,
    FAMILIES,
    LEVELS,
    METRICS,
    NEEDS,
    Answer,
    AnswerType,
    Family,
    Level,
    Metric,
    Need,
    Params,
    Template,
    check_answer,
    get_template,
    sampler_names,
    template,
    templates,
)
from wearbench.cgmqa._verify import CGMVerifyReport, verify_cgm_benchmark
from wearbench.sim import HYPO_TREATMENT

__all__ = [
    "ANSWER_TYPES",
    "CONTEXT_SUFFIX",
    "DAY_MIN",
    "FAMILIES",
    "HYPER_MGDL",
    "HYPO_MGDL",
    "HYPO_TREATMENT",
    "KIND",
    "LEVELS",
    "MEAL_TYPES",
    "METRICS",
    "NEEDS",
    "PM_PD_RUNS",
    "POINTS_PER_DAY",
    "SAMPLINGS",
    "SEED_COUNTS",
    "SEED_PATIENTS",
    "STEP_MIN",
    "WINDOW_DAYS",
    "Answer",
    "AnswerType",
    "Bolus",
    "CGMBuildResult",
    "CGMVerifyReport",
    "DataSource",
    "Exercise",
    "Family",
    "Level",
    "LevelDraw",
    "Meal",
    "Metric",
    "Need",
    "Params",
    "PatientRecord",
    "Rerun",
    "Template",
    "Trace",
    "Window",
    "build_cgm_benchmark",
    "check_answer",
    "clock_mask",
    "day_of_week",
    "day_points",
    "days_points",
    "draw_patients",
    "get_template",
    "is_cgm_benchmark",
    "long_runs",
    "open_context",
    "parse_families",
    "read_cgm_items",
    "read_cgm_manifest",
    "read_context_bytes",
    "read_data_source",
    "read_records",
    "record_window",
    "rerun_folder",
    "runs",
    "sampler_names",
    "template",
    "templates",
    "to_intervals",
    "verify_cgm_benchmark",
]
