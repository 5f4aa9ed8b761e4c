"""One prompt-only solver per question type: ``solve(prompt) -> letter`` (see ``tests/validity``)."""

from __future__ import annotations

from collections.abc import Callable

from tests.validity.prompt import Prompt
from tests.validity.solvers import (
    activity_recommendation,
    acute_strain,
    anomaly,
    blood_state,
    cohort_position,
    concordance,
    conditional_effect,
    coupling_lag,
    differential_rhr,
    excursion_count,
    fitness_prediction,
    period_comparison,
    recovery_time,
    sleep_phenotype,
    strongest_pair,
    trend,
)
from tests.validity.solvers._common import Unsolvable

__all__ = ["SOLVERS", "Unsolvable"]

SOLVERS: dict[str, Callable[[Prompt], str]] = {
    "activity_recommendation": activity_recommendation.solve,
    "acute_strain": acute_strain.solve,
    "anomaly": anomaly.solve,
    "blood_state": blood_state.solve,
    "cohort_position": cohort_position.solve,
    "concordance": concordance.solve,
    "conditional_effect": conditional_effect.solve,
    "coupling_lag": coupling_lag.solve,
    "differential_rhr": differential_rhr.solve,
    "excursion_count": excursion_count.solve,
    "fitness_prediction": fitness_prediction.solve,
    "period_comparison": period_comparison.solve,
    "recovery_time": recovery_time.solve,
    "sleep_phenotype": sleep_phenotype.solve,
    "strongest_pair": strongest_pair.solve,
    "trend": trend.solve,
}
