"""Published population reference values by metric, age band and sex (placeholder).

This stub fixes the interface agreed with the external-reference table (helper ``ext``):
:func:`external_reference` returns ``None`` for every cell until the cited table is merged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["EXTERNAL_METRICS", "ExternalReference", "external_reference"]

#: Metrics with at least one external reference cell (none in this placeholder).
EXTERNAL_METRICS: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExternalReference:
    """One published reference cell.

    Attributes:
        metric: Canonical metric name.
        age_band: Age band label (``18-29`` … ``60+``).
        sex: ``F`` or ``M``.
        percentiles: Percentile → value in the metric's canonical unit (may be empty).
        mean: Mean in the metric's unit, or None.
        sd: Standard deviation in the metric's unit, or None.
        n: Participants in the source cell, or None.
        source_id: Short identifier of the source.
        citation: Author year, journal; DOI; table.
        caveat: How the source population differs from a wearable cohort.
    """

    metric: str
    age_band: str
    sex: str
    percentiles: Mapping[int, float]
    mean: float | None
    sd: float | None
    n: int | None
    source_id: str
    citation: str
    caveat: str


def external_reference(metric: str, age_band: str, sex: str) -> ExternalReference | None:
    """The published reference of ``metric`` for ``age_band`` and ``sex``, or None (placeholder: None)."""
    del metric, age_band, sex
    return None
