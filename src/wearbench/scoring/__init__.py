"""Scoring: MCQ accuracy with Wilson confidence intervals, run breakdowns, paired comparisons."""

from wearbench._stats import Accuracy, accuracy, wilson_interval
from wearbench.scoring._affiliation import (
    Affiliation,
    Interval,
    affiliation,
    affiliation_from_events,
    clean_intervals,
)
from wearbench.scoring._bootstrap import cluster_bootstrap_ci
from wearbench.scoring._breakdown import (
    LABEL_FAMILIES,
    PositionBias,
    RunScore,
    align_rows,
    check_bench,
    covered_items,
    position_bias,
    score_run,
    score_store,
)
from wearbench.scoring._compare import Comparison, compare_runs, mcnemar_exact
from wearbench.scoring._solve import SolveResult, solve_benchmark

__all__ = [
    "LABEL_FAMILIES",
    "Accuracy",
    "Affiliation",
    "Comparison",
    "Interval",
    "PositionBias",
    "RunScore",
    "SolveResult",
    "accuracy",
    "affiliation",
    "affiliation_from_events",
    "align_rows",
    "check_bench",
    "clean_intervals",
    "cluster_bootstrap_ci",
    "compare_runs",
    "covered_items",
    "mcnemar_exact",
    "position_bias",
    "score_run",
    "score_store",
    "solve_benchmark",
    "wilson_interval",
]
