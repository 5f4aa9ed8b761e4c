"""Benchmark builds: generation orchestration, artifact, verification.

Names are imported on first use (PEP 562): reading a benchmark (``load_context``,
``read_items``) must not pay for the builder's imports (question types, primitives,
``scipy.stats``), which dominate the fixed cost of ``wearbench eval`` with a baseline.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wearbench.bench._artifact import load_context, read_items, read_manifest, write_artifact
    from wearbench.bench._build import MAX_FDR, BuildResult, build_benchmark
    from wearbench.bench._datasheet import OFFICIAL_COUNTS, build_stats, render_datasheet
    from wearbench.bench._generate import Pending, UserTask, generate_user, stable_rng, type_names
    from wearbench.bench._option_text import varying_features
    from wearbench.bench._pool import build_pool
    from wearbench.bench._prior import prior_answers
    from wearbench.bench._shortcut import text_only_answers
    from wearbench.bench._verify import (
        CHUNK_ITEMS,
        IMPORTED_REF,
        VerifyReport,
        is_imported,
        judge_options,
        preload_types,
        user_chunks,
        verify_benchmark,
    )

_SOURCES = {
    "_artifact": ("load_context", "read_items", "read_manifest", "write_artifact"),
    "_build": ("MAX_FDR", "BuildResult", "build_benchmark"),
    "_datasheet": ("OFFICIAL_COUNTS", "build_stats", "render_datasheet"),
    "_generate": ("Pending", "UserTask", "generate_user", "stable_rng", "type_names"),
    "_pool": ("build_pool",),
    "_prior": ("prior_answers",),
    "_option_text": ("varying_features",),
    "_shortcut": ("text_only_answers",),
    "_verify": (
        "CHUNK_ITEMS",
        "IMPORTED_REF",
        "VerifyReport",
        "is_imported",
        "judge_options",
        "preload_types",
        "user_chunks",
        "verify_benchmark",
    ),
}
_MODULE_OF = {name: module for module, names in _SOURCES.items() for name in names}

__all__ = [
    "CHUNK_ITEMS",
    "IMPORTED_REF",
    "MAX_FDR",
    "OFFICIAL_COUNTS",
    "BuildResult",
    "Pending",
    "UserTask",
    "VerifyReport",
    "build_benchmark",
    "build_pool",
    "build_stats",
    "generate_user",
    "is_imported",
    "judge_options",
    "load_context",
    "preload_types",
    "prior_answers",
    "read_items",
    "read_manifest",
    "render_datasheet",
    "stable_rng",
    "text_only_answers",
    "type_names",
    "user_chunks",
    "varying_features",
    "verify_benchmark",
    "write_artifact",
]


def __getattr__(name: str) -> Any:
    """Import an exported name from its private module on first access."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
