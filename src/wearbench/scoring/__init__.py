"""Scoring: MCQ accuracy with Wilson confidence intervals, and reference solvers' scores."""

from wearbench.scoring._solve import SolveResult, solve_benchmark
from wearbench.scoring._wilson import Accuracy, accuracy, wilson_interval

__all__ = ["Accuracy", "SolveResult", "accuracy", "solve_benchmark", "wilson_interval"]
