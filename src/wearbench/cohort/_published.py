"""Published population figures to compare a cohort against (see ``docs/published-figures.md``).

Only figures checked against the cited source are stated as numbers; a figure marked
``approximate`` is a rounded reading and is labelled so wherever it is shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

#: Said wherever the comparison is shown: what the numbers are, and what a gap does not mean.
PUBLISHED_CAVEAT = (
    "A sanity check on scale and direction, not a validation: each published figure measured another "
    "population with another device (and the sleep range is a recommendation, not a measurement), so a "
    "gap is expected and does not by itself show an error. 'This cohort' is a per-user statistic (the "
    "mean or median of each user's mean), not the mean over all user-days in the daily-metrics table."
)

#: Column names of :func:`published_table_rows`.
PUBLISHED_HEADER: tuple[str, ...] = ("quantity", "this cohort", "statistic", "published", "caveat", "source")

_STATISTIC = {
    "mean": "mean of per-user means",
    "range": "median of per-user means",
    "direction": "Spearman ρ(age, per-user mean)",
}

Kind = Literal["mean", "range", "direction"]


@dataclass(frozen=True)
class PublishedFigure:
    """One published reference figure.

    Attributes:
        key: Stable identifier.
        metric: Canonical metric it describes.
        quantity: What is compared, in words.
        kind: ``"mean"`` (compare our per-user mean to ``value``), ``"range"`` (is our
            per-user median inside ``low``–``high``), or ``"direction"`` (sign of the
            age association, ``value`` = +1 or −1).
        value: Published mean (metric unit) or expected sign.
        low: Lower bound of a published range (metric unit), if any.
        high: Upper bound of a published range (metric unit), if any.
        unit: Unit of ``value`` / ``low`` / ``high``.
        population: Who was measured, and how.
        citation: Full reference.
        doi: DOI.
        approximate: Whether the number is a rounded or uncertain reading.
        note: Caveats for the comparison.
    """

    key: str
    metric: str
    quantity: str
    kind: Kind
    value: float | None
    low: float | None
    high: float | None
    unit: str
    population: str
    citation: str
    doi: str
    approximate: bool = False
    note: str = ""


PUBLISHED_FIGURES: tuple[PublishedFigure, ...] = (
    PublishedFigure(
        key="steps_worldwide_mean",
        metric="steps",
        quantity="mean daily steps (worldwide smartphone users)",
        kind="mean",
        value=4961.0,
        low=None,
        high=None,
        unit="steps/day",
        population="717,527 users of the Argus smartphone app in 111 countries, 68 million days",
        citation=(
            "Althoff T, Sosič R, Hicks JL, King AC, Delp SL, Leskovec J. Large-scale physical activity data "
            "reveal worldwide activity inequality. Nature. 2017;547(7663):336-339."
        ),
        doi="10.1038/nature23018",
        note=(
            "another population and device: phone accelerometers miss steps while the phone is not "
            "carried, so wrist-worn counts are expected to run higher"
        ),
    ),
    PublishedFigure(
        key="rhr_mean_wearable",
        metric="resting_hr",
        quantity="mean daily resting heart rate (wrist wearable)",
        kind="mean",
        value=65.5,
        low=39.7,
        high=108.6,
        unit="bpm",
        population="92,457 US adults wearing a Fitbit ≥35 weeks (median 320 days each)",
        citation=(
            "Quer G, Gouda P, Galarnyk M, Topol EJ, Steinhubl SR. Inter- and intraindividual variability in "
            "daily resting heart rate and its associations with age, sex, sleep, BMI, and time of year: "
            "retrospective, longitudinal cohort study of 92,457 adults. PLoS One. 2020;15(2):e0227709."
        ),
        doi="10.1371/journal.pone.0227709",
        note="mean 65.5 (SD 7.7) bpm; individual means ranged 39.7-108.6 bpm (abstract: 65, range 40-109)",
    ),
    PublishedFigure(
        key="sleep_recommended_adults",
        metric="sleep_minutes",
        quantity="recommended sleep duration, adults 18-64 years",
        kind="range",
        value=None,
        low=420.0,
        high=540.0,
        unit="min",
        population="expert consensus panel (National Sleep Foundation); a recommendation, not a measurement",
        citation=(
            "Hirshkowitz M, Whiton K, Albert SM, et al. National Sleep Foundation's sleep time duration "
            "recommendations: methodology and results summary. Sleep Health. 2015;1(1):40-43."
        ),
        doi="10.1016/j.sleh.2014.12.010",
        note="7-9 h for adults 18-64; 7-8 h for adults 65 and older",
    ),
    PublishedFigure(
        key="hrv_declines_with_age",
        metric="hrv",
        quantity="direction of the association between age and RMSSD",
        kind="direction",
        value=-1.0,
        low=None,
        high=None,
        unit="sign of Spearman rho",
        population="about 8 million Fitbit users (cross-sectional, PPG-derived RMSSD)",
        citation=(
            "Natarajan A, Pantelopoulos A, Emir-Farinas H, Natarajan P. Heart rate variability with "
            "photoplethysmography in 8 million individuals: a cross-sectional study. Lancet Digit Health. "
            "2020;2(12):e650-e657."
        ),
        doi="10.1016/S2589-7500(20)30246-6",
        note="only the direction is used: HRV (incl. RMSSD) declines with age; no norm values are imported",
    ),
)


def published_comparison(desc: dict[str, Any]) -> list[dict[str, Any]]:
    """Compare a :func:`~wearbench.cohort.describe_cohort` result with published figures.

    Args:
        desc: Output of ``describe_cohort``.

    Returns:
        One JSON-ready row per figure of :data:`PUBLISHED_FIGURES`: ``key``, ``metric``,
        ``quantity``, ``kind``, ``ours`` (our per-user mean for ``mean``, our median of
        per-user means for ``range``, our Spearman ρ(age, per-user mean) for
        ``direction``; ``None`` when not computable), ``published``, ``low``, ``high``,
        ``unit``, ``ratio`` (ours / published, means only), ``agrees`` (ours within the
        range / same sign; ``None`` for means and when not computable), ``approximate``,
        ``population``, ``citation``, ``doi``, ``note``.
    """
    rows = []
    for fig in PUBLISHED_FIGURES:
        ours = _ours(desc, fig)
        ratio = ours / fig.value if fig.kind == "mean" and ours is not None and fig.value else None
        agrees: bool | None = None
        if ours is not None and fig.kind == "range" and fig.low is not None and fig.high is not None:
            agrees = fig.low <= ours <= fig.high
        elif ours is not None and fig.kind == "direction" and fig.value is not None:
            agrees = ours * fig.value > 0
        rows.append(
            {
                "key": fig.key,
                "metric": fig.metric,
                "quantity": fig.quantity,
                "kind": fig.kind,
                "ours": ours,
                "published": fig.value,
                "low": fig.low,
                "high": fig.high,
                "unit": fig.unit,
                "ratio": ratio,
                "agrees": agrees,
                "approximate": fig.approximate,
                "population": fig.population,
                "citation": fig.citation,
                "doi": fig.doi,
                "note": fig.note,
            }
        )
    return rows


def _ours(desc: dict[str, Any], fig: PublishedFigure) -> float | None:
    if fig.kind == "direction":
        value = desc.get("age_association", {}).get(fig.metric)
        return None if value is None else float(value)
    means = desc.get("metrics", {}).get(fig.metric, {}).get("user_means", {})
    value = means.get("mean" if fig.kind == "mean" else "p50")
    return None if value is None else float(value)


def _num(x: float | None, digits: int) -> str:
    return "–" if x is None or x != x else f"{x:,.{digits}f}"


def _caveat(r: dict[str, Any]) -> str:
    parts = []
    if r["ratio"] is not None:
        parts.append(f"this cohort is {r['ratio']:.2f}× the published mean")
    elif r["agrees"] is not None:
        parts.append("agrees" if r["agrees"] else "does not agree")
    if r["approximate"]:
        parts.append("approximate published figure")
    if r["note"]:
        parts.append(str(r["note"]))
    return "; ".join(parts)


def published_table_rows(desc: dict[str, Any]) -> list[tuple[str, str, str, str, str, str]]:
    """:func:`published_comparison` as display rows, columns :data:`PUBLISHED_HEADER`.

    Each row: quantity (unit), this cohort's figure, which statistic of the cohort that is,
    the published figure, the caveat (ratio or agreement, and the figure's note), ``doi:…``.
    Show :data:`PUBLISHED_CAVEAT` with the table.
    """
    rows = []
    for r in published_comparison(desc):
        if r["kind"] == "range":
            published = f"{_num(r['low'], 0)}–{_num(r['high'], 0)}"
        elif r["kind"] == "direction":
            published = "negative" if (r["published"] or 0) < 0 else "positive"
        else:
            published = _num(r["published"], 1)
        ours = _num(r["ours"], 2 if r["kind"] == "direction" else 1)
        quantity = f"{r['quantity']} ({r['unit']})"
        rows.append((quantity, ours, _STATISTIC[r["kind"]], published, _caveat(r), f"doi:{r['doi']}"))
    return rows
