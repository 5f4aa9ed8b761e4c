"""Canonical cohort: data model, per-user contexts, validation and Parquet IO."""

from wearbench.cohort._cohort import Cohort, UserRecord, empty_tables
from wearbench.cohort._context import REFERENCED_METRICS, UserContext, contexts_from_cohort
from wearbench.cohort._describe import describe_cohort
from wearbench.cohort._external import (
    EXTERNAL_METRICS,
    ExternalReference,
    external_reference,
    external_sources,
)
from wearbench.cohort._hash import content_hash
from wearbench.cohort._io import load_cohort, read_manifest, save_cohort
from wearbench.cohort._problems import Problem, ValidationReport
from wearbench.cohort._published import (
    PUBLISHED_CAVEAT,
    PUBLISHED_FIGURES,
    PUBLISHED_HEADER,
    PublishedFigure,
    published_comparison,
    published_table_rows,
)
from wearbench.cohort._reference import ALL_PERCENTILES, reference_percentiles
from wearbench.cohort._render import render_describe
from wearbench.cohort._resolve import (
    MIN_DAYS_BY_METRIC,
    MIN_USERS,
    REFERENCE_KINDS,
    ReferenceCell,
    ReferenceKind,
    ReferenceResolver,
    TableKind,
    table_kind,
)
from wearbench.cohort._schema import (
    AGE_BANDS,
    BIOMARKER_NAMES,
    BIOMARKERS,
    DEMOGRAPHIC_COLUMNS,
    ETHNICITIES,
    EXTRA_PERCENTILES,
    METRIC_NAMES,
    METRICS,
    PERCENTILES,
    REFERENCE_METRICS,
    SCHEMA_VERSION,
    SEXES,
    Biomarker,
    Metric,
    age_band,
    from_wearableqa,
    metric,
    to_wearableqa,
)
from wearbench.cohort._shard_read import CohortShards, open_cohort
from wearbench.cohort._shards import ShardedCohortWriter
from wearbench.cohort._validate import MANIFEST, validate_cohort

__all__ = [
    "AGE_BANDS",
    "ALL_PERCENTILES",
    "BIOMARKERS",
    "BIOMARKER_NAMES",
    "DEMOGRAPHIC_COLUMNS",
    "ETHNICITIES",
    "EXTERNAL_METRICS",
    "EXTRA_PERCENTILES",
    "MANIFEST",
    "METRICS",
    "METRIC_NAMES",
    "MIN_DAYS_BY_METRIC",
    "MIN_USERS",
    "PERCENTILES",
    "PUBLISHED_CAVEAT",
    "PUBLISHED_FIGURES",
    "PUBLISHED_HEADER",
    "REFERENCED_METRICS",
    "REFERENCE_KINDS",
    "REFERENCE_METRICS",
    "SCHEMA_VERSION",
    "SEXES",
    "Biomarker",
    "Cohort",
    "CohortShards",
    "ExternalReference",
    "Metric",
    "Problem",
    "PublishedFigure",
    "ReferenceCell",
    "ReferenceKind",
    "ReferenceResolver",
    "ShardedCohortWriter",
    "TableKind",
    "UserContext",
    "UserRecord",
    "ValidationReport",
    "age_band",
    "content_hash",
    "contexts_from_cohort",
    "describe_cohort",
    "empty_tables",
    "external_reference",
    "external_sources",
    "from_wearableqa",
    "load_cohort",
    "metric",
    "open_cohort",
    "published_comparison",
    "published_table_rows",
    "read_manifest",
    "reference_percentiles",
    "render_describe",
    "save_cohort",
    "table_kind",
    "to_wearableqa",
    "validate_cohort",
]
