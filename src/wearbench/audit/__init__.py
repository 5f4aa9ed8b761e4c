"""Validity audits: do the primitives recover what a generator planted?"""

from wearbench.audit._planted import (
    EPISODE_MARKERS,
    CouplingCheck,
    EpisodeCheck,
    PlantedAudit,
    audit_planted,
)

__all__ = ["EPISODE_MARKERS", "CouplingCheck", "EpisodeCheck", "PlantedAudit", "audit_planted"]
