"""The packaged external reference table: hand-checked cells, shape, ranges and citations.

The expected numbers below were read off the sources named in
``src/wearbench/cohort/data/external_sources.json`` (``verified_from``), not off the CSV.
"""

from __future__ import annotations

import csv
import json
from importlib import resources

import pytest

from wearbench.cohort import (
    AGE_BANDS,
    EXTERNAL_METRICS,
    PERCENTILES,
    SEXES,
    ExternalReference,
    external_reference,
    external_sources,
    metric,
)

BANDS = tuple(label for label, _, _ in AGE_BANDS)


def _csv_rows() -> list[dict[str, str]]:
    text = resources.files("wearbench.cohort").joinpath("data/external_reference.csv").read_text("utf-8")
    return list(csv.DictReader(text.splitlines()))


# FRIEND 2015 treadmill percentiles (JimPeterman/FRIENDanalysis R/FRIENDpercentile.R @81a0866,
# edition 1). The 20-29 y medians 48.0 / 37.6 are also in the abstract (PMID 26455884).
@pytest.mark.parametrize(
    ("band", "sex", "pct", "value"),
    [
        ("18-29", "M", 50, 48.0),  # men 20-29, abstract
        ("18-29", "F", 50, 37.6),  # women 20-29, abstract
        ("18-29", "M", 95, 66.3),
        ("30-39", "F", 5, 19.0),
        ("40-49", "M", 25, 31.9),
        ("50-59", "F", 75, 27.6),
        ("60+", "M", 90, 40.3),  # men 60-69
        ("60+", "F", 10, 14.6),  # women 60-69
    ],
)
def test_friend_cells_match_source(band: str, sex: str, pct: int, value: float) -> None:
    ref = external_reference("vo2max", band, sex)
    assert ref is not None
    assert ref.percentiles[pct] == value
    assert ref.source_id == "friend2015"


# NHSR 41 seated resting pulse percentiles (Tables 2-3; adult rows 20-39, 40-59, 60-79 y).
@pytest.mark.parametrize(
    ("band", "sex", "pct", "value"),
    [
        ("18-29", "M", 50, 69.0),  # males 20-39
        ("30-39", "M", 50, 69.0),  # same source row
        ("18-29", "F", 95, 95.0),  # females 20-39
        ("40-49", "M", 5, 52.0),  # males 40-59
        ("50-59", "F", 75, 79.0),  # females 40-59
        ("60+", "M", 95, 91.0),  # males 60-79
        ("60+", "F", 25, 64.0),  # females 60-79
    ],
)
def test_nhsr41_cells_match_source(band: str, sex: str, pct: int, value: float) -> None:
    ref = external_reference("resting_hr", band, sex)
    assert ref is not None
    assert ref.percentiles[pct] == value
    assert ref.source_id == "nhsr41"


def test_every_covered_cell_has_all_standard_percentiles_and_nothing_else() -> None:
    for name in EXTERNAL_METRICS:
        for band in BANDS:
            for sex in SEXES:
                ref = external_reference(name, band, sex)
                assert isinstance(ref, ExternalReference), (name, band, sex)
                assert tuple(ref.percentiles) == PERCENTILES
                assert (ref.mean, ref.sd, ref.n) == (None, None, None)


def test_percentiles_are_monotone_and_inside_the_plausible_range() -> None:
    for name in EXTERNAL_METRICS:
        m = metric(name)
        for band in BANDS:
            for sex in SEXES:
                ref = external_reference(name, band, sex)
                assert ref is not None
                values = [ref.percentiles[p] for p in PERCENTILES]
                assert values == sorted(values), (name, band, sex, values)
                assert values[0] < values[-1]
                assert all(m.lo <= v <= m.hi for v in values), (name, band, sex, values)


def test_csv_metrics_equal_external_metrics_and_are_canonical() -> None:
    rows = _csv_rows()
    assert tuple(sorted({r["metric"] for r in rows})) == EXTERNAL_METRICS
    for name in EXTERNAL_METRICS:
        metric(name)  # raises on a non-canonical name


def test_every_row_cites_a_source_with_doi_or_pmid_and_a_check_record() -> None:
    sources = external_sources()
    for row in _csv_rows():
        src = sources[row["source_id"]]
        assert src["doi"] or src["pmid"], row["source_id"]
        assert src["verified_from"], row["source_id"]
        assert src["caveat"], row["source_id"]
        assert src["table"], row["source_id"]
        assert " | " in row["source_cell"], row


def test_citation_and_caveat_name_the_source_row_and_band_mapping() -> None:
    ref = external_reference("resting_hr", "30-39", "F")
    assert ref is not None
    assert (
        ref.citation
        == "Ostchega 2011, Natl Health Stat Report 41 (NHANES 1999-2008); PMID 21905522; females 20-39 years"
    )
    assert "seated" in ref.caveat.lower()
    assert "our 30-39 ← source row 20-39 y" in ref.caveat
    friend = external_reference("vo2max", "60+", "M")
    assert friend is not None
    assert friend.citation.endswith("doi:10.1016/j.mayocp.2015.07.026; treadmill, men 60-69 y")
    assert "treadmill" in friend.caveat
    assert "60-69 y only" in friend.caveat


@pytest.mark.parametrize(
    ("name", "band", "sex"),
    [
        ("hrv", "30-39", "F"),  # no checked source
        ("steps", "18-29", "M"),
        ("sleep_minutes", "40-49", "F"),
        ("sleep_efficiency", "60+", "M"),
        ("vo2max", "70-79", "M"),  # not one of our bands
        ("vo2max", "30-39", "X"),
        ("no_such_metric", "30-39", "F"),
    ],
)
def test_uncovered_or_unknown_cells_return_none(name: str, band: str, sex: str) -> None:
    assert external_reference(name, band, sex) is None


def test_reference_is_frozen_and_read_only() -> None:
    ref = external_reference("vo2max", "40-49", "F")
    assert ref is not None
    with pytest.raises(AttributeError):
        ref.mean = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        ref.percentiles[50] = 1.0  # type: ignore[index]


def test_loader_rejects_a_source_without_doi_or_pmid_and_an_unknown_stat() -> None:
    from wearbench.cohort import _external as ext

    keys = dict.fromkeys(ext._SOURCE_KEYS, "x") | {"band_map": {"30-39": "source row 30-39 y"}}
    with pytest.raises(ValueError, match="needs a DOI or a PMID"):
        ext._parse_sources('{"s": ' + json.dumps(keys | {"doi": "", "pmid": ""}) + "}")
    sources = ext._parse_sources('{"s": ' + json.dumps(keys) + "}")
    row = dict(zip(ext._COLUMNS, ("vo2max", "30-39", "F", "p33", "30", "s", "r | c"), strict=True))
    with pytest.raises(ValueError, match="stat 'p33'"):
        ext._parse_row(row, 2, sources)
    row["stat"] = "p50"
    assert ext._parse_row(row, 2, sources) == ("p50", 30.0)
