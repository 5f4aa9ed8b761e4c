"""Benchmark builds: generation orchestration, artifact, verification, reference solvers."""

from wearbench.bench._artifact import load_context, read_items, read_manifest
from wearbench.bench._build import MAX_FDR, BuildResult, build_benchmark
from wearbench.bench._datasheet import OFFICIAL_COUNTS
from wearbench.bench._executor import Executor, LocalExecutor
from wearbench.bench._generate import stable_rng
from wearbench.bench._solvers import oracle_answers, random_answers
from wearbench.bench._verify import VerifyReport, judge_options, verify_benchmark

__all__ = [
    "MAX_FDR",
    "OFFICIAL_COUNTS",
    "BuildResult",
    "Executor",
    "LocalExecutor",
    "VerifyReport",
    "build_benchmark",
    "judge_options",
    "load_context",
    "oracle_answers",
    "random_answers",
    "read_items",
    "read_manifest",
    "stable_rng",
    "verify_benchmark",
]
