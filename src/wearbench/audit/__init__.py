"""Validity audits: do the primitives recover what a generator planted?"""

from wearbench.audit._planted import (
    EPISODE_MARKERS,
    CouplingCheck,
    EpisodeCheck,
    PlantedAudit,
    audit_planted,
)
from wearbench.audit._readings import (
    AUDITED_TYPES,
    MAX_NOISE_RATIO,
    MIN_PPV,
    TRUTH,
    PlantedDays,
    ReadingRow,
    ReadingsTable,
    claimed_readings,
    keyed_items,
    permute_cohort,
    planted_days,
    readings_table,
)

__all__ = [
    "AUDITED_TYPES",
    "EPISODE_MARKERS",
    "MAX_NOISE_RATIO",
    "MIN_PPV",
    "TRUTH",
    "CouplingCheck",
    "EpisodeCheck",
    "PlantedAudit",
    "PlantedDays",
    "ReadingRow",
    "ReadingsTable",
    "audit_planted",
    "claimed_readings",
    "keyed_items",
    "permute_cohort",
    "planted_days",
    "readings_table",
]
