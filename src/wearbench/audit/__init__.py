"""Validity audits: do the primitives recover what a generator planted?"""

from wearbench.audit._planted import CouplingCheck, EpisodeCheck, PlantedAudit, audit_planted
from wearbench.audit._readings import (
    MAX_NOISE_RATIO,
    MIN_PPV,
    TRUTH,
    PlantedDays,
    ReadingRow,
    ReadingsTable,
    claimed_readings,
    permute_cohort,
    readings_table,
)

__all__ = [
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
    "permute_cohort",
    "readings_table",
]
