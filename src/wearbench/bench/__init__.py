"""Benchmark builds: generation orchestration, artifact, verification, reference solvers."""

from wearbench.bench._artifact import load_context, read_items, read_manifest
from wearbench.bench._build import MAX_FDR, BuildResult, build_benchmark
from wearbench.bench._datasheet import OFFICIAL_COUNTS
from wearbench.bench._executor import Executor, LocalExecutor
from wearbench.bench._generate import stable_rng
from wearbench.bench._shortcut import varying_features
from wearbench.bench._solvers import oracle_answers, random_answers
from wearbench.bench._verify import IMPORTED_REF, VerifyReport, is_imported, judge_options, verify_benchmark

__all__ = [
    "IMPORTED_REF",
    "MAX_FDR",
    "OFFICIAL_COUNTS",
    "BuildResult",
    "Executor",
    "LocalExecutor",
    "VerifyReport",
    "build_benchmark",
    "is_imported",
    "judge_options",
    "load_context",
    "oracle_answers",
    "random_answers",
    "read_items",
    "read_manifest",
    "stable_rng",
    "varying_features",
    "verify_benchmark",
]
