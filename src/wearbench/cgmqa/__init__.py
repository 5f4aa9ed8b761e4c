"""CGM question answering (HealthLoopQA): patient records on the 5-minute grid and the templates.

:func:`read_records` turns a simulated or imported CGM folder into :class:`PatientRecord` objects;
a :class:`Template` (registry kind ``cgm_template``, one per public HealthLoopQA id) computes its
answer from one record.
"""

from wearbench.cgmqa._read import read_records
from wearbench.cgmqa._record import Bolus, Exercise, Meal, PatientRecord
from wearbench.cgmqa._rerun import Rerun, Trace, rerun_folder
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

__all__ = [
    "ANSWER_TYPES",
    "DAY_MIN",
    "FAMILIES",
    "HYPER_MGDL",
    "HYPO_MGDL",
    "LEVELS",
    "METRICS",
    "NEEDS",
    "POINTS_PER_DAY",
    "STEP_MIN",
    "Answer",
    "AnswerType",
    "Bolus",
    "Exercise",
    "Family",
    "Level",
    "Meal",
    "Metric",
    "Need",
    "Params",
    "PatientRecord",
    "Rerun",
    "Template",
    "Trace",
    "check_answer",
    "clock_mask",
    "day_of_week",
    "day_points",
    "days_points",
    "get_template",
    "long_runs",
    "read_records",
    "rerun_folder",
    "runs",
    "sampler_names",
    "template",
    "templates",
    "to_intervals",
]
