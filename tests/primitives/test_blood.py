"""Tests for homa_ir / threshold_flags and the cut-off table loader."""

from __future__ import annotations

import copy
import json
import math
from importlib import resources

import numpy as np
import pytest

from wearbench.primitives import FLAG_BIOMARKERS, Flag, homa_ir, threshold_flags
from wearbench.primitives._cutoffs import _parse, cutoff_tables, sources

NAN = math.nan


def raw_cutoffs():
    return json.loads(
        resources.files("wearbench.primitives").joinpath("data/cutoffs.json").read_text("utf-8")
    )


def category(biomarker, value, sex=None):
    return threshold_flags({biomarker: value}, sex=sex)[biomarker].category


# --- homa_ir -------------------------------------------------------------------------------


def test_homa_ir_hand_computed():
    assert homa_ir(100.0, 10.0) == pytest.approx(1000 / 405)  # 2.469
    assert homa_ir(90.0, 11.25) == 2.5  # 1012.5 / 405 exactly
    assert isinstance(homa_ir(90, 11.25), float)


def test_homa_ir_arrays_and_nan():
    out = homa_ir(np.array([81.0, 162.0, NAN]), np.array([5.0, 5.0, 5.0]))
    np.testing.assert_allclose(out, [1.0, 2.0, NAN])
    np.testing.assert_allclose(homa_ir(np.array([81.0, 162.0]), 10.0), [2.0, 4.0])
    assert math.isnan(homa_ir(NAN, 5.0))


# --- category boundaries (value exactly on a cut goes to the band that includes it) --------


@pytest.mark.parametrize(
    ("biomarker", "value", "expected"),
    [
        ("fasting_glucose", 99.9, "normal"),
        ("fasting_glucose", 100, "prediabetes"),
        ("fasting_glucose", 125.9, "prediabetes"),
        ("fasting_glucose", 126, "diabetes"),
        ("hba1c", 5.6, "normal"),
        ("hba1c", 5.7, "prediabetes"),
        ("hba1c", 6.4, "prediabetes"),
        ("hba1c", 6.5, "diabetes"),
        ("triglycerides", 149, "normal"),
        ("triglycerides", 150, "borderline_high"),
        ("triglycerides", 200, "high"),
        ("triglycerides", 499, "high"),
        ("triglycerides", 500, "very_high"),
        ("ldl", 99, "optimal"),
        ("ldl", 100, "near_optimal"),
        ("ldl", 130, "borderline_high"),
        ("ldl", 160, "high"),
        ("ldl", 190, "very_high"),
        ("total_cholesterol", 199, "desirable"),
        ("total_cholesterol", 200, "borderline_high"),
        ("total_cholesterol", 240, "high"),
        ("homa_ir", 2.49, "normal"),
        ("homa_ir", 2.5, "insulin_resistant"),
    ],
)
def test_boundaries(biomarker, value, expected):
    assert category(biomarker, value) == expected


@pytest.mark.parametrize(
    ("sex", "value", "expected", "flagged"),
    [
        ("M", 39.9, "low", True),
        ("M", 40, "normal", False),
        ("M", 45, "normal", False),
        ("F", 45, "low", True),
        ("F", 50, "normal", False),
        ("F", 60, "high", False),
        ("M", 60, "high", False),
        (None, 30, "undefined", False),
    ],
)
def test_hdl_is_sex_specific(sex, value, expected, flagged):
    f = threshold_flags({"hdl": value}, sex=sex)["hdl"]
    assert (f.category, f.flagged) == (expected, flagged)


def test_full_panel():
    panel = {
        "fasting_glucose": 90.0,
        "insulin": 11.25,
        "hba1c": 5.9,
        "triglycerides": 120.0,
        "hdl": 55.0,
        "ldl": 135.0,
        "total_cholesterol": 210.0,
        "alt": 20.0,
    }
    flags = threshold_flags(panel, sex="F")
    assert tuple(flags) == FLAG_BIOMARKERS
    summary = {k: (f.category, f.flagged) for k, f in flags.items()}
    assert summary == {
        "fasting_glucose": ("normal", False),
        "hba1c": ("prediabetes", True),
        "triglycerides": ("normal", False),
        "hdl": ("normal", False),
        "ldl": ("borderline_high", True),
        "total_cholesterol": ("borderline_high", True),
        "homa_ir": ("insulin_resistant", True),  # 90 * 11.25 / 405 = 2.5
    }
    assert flags["homa_ir"].value == 2.5
    assert flags["hba1c"] == Flag("hba1c", 5.9, "prediabetes", True, "ada_soc_2024")
    assert flags["ldl"].cutoff_source == "ncep_atp3_2002"
    assert flags["homa_ir"].cutoff_source == "homa_ir_convention"


def test_given_homa_ir_wins_over_computed():
    f = threshold_flags({"fasting_glucose": 90.0, "insulin": 11.25, "homa_ir": 1.2})["homa_ir"]
    assert (f.value, f.category) == (1.2, "normal")
    g = threshold_flags({"fasting_glucose": 90.0, "insulin": 11.25, "homa_ir": NAN})["homa_ir"]
    assert g.value == 2.5  # NaN given -> computed


def test_missing_values():
    flags = threshold_flags({"fasting_glucose": NAN, "hba1c": None})
    assert all(f.category == "missing" and not f.flagged for f in flags.values())
    assert math.isnan(flags["homa_ir"].value)  # no glucose, no insulin
    assert threshold_flags({"fasting_glucose": 100.0})["homa_ir"].category == "missing"  # no insulin
    assert threshold_flags({}, sex="M")["hdl"].category == "missing"


def test_bad_arguments():
    with pytest.raises(ValueError, match="table"):
        threshold_flags({}, table="nope")
    with pytest.raises(ValueError, match="sex"):
        threshold_flags({}, sex="X")
    with pytest.raises(ValueError, match="hba1c"):
        threshold_flags({"hba1c": "6.1"})
    with pytest.raises(ValueError, match="inf"):
        threshold_flags({"ldl": math.inf})


# --- the cut-off data file -----------------------------------------------------------------


def test_every_source_is_cited_with_a_doi():
    srcs = sources()
    assert set(srcs) == {"ada_soc_2024", "ncep_atp3_2002", "homa_ir_convention"}
    assert srcs["ada_soc_2024"]["doi"] == "10.2337/dc24-S002"
    assert srcs["ncep_atp3_2002"]["doi"] == "10.1161/circ.106.25.3143"
    assert srcs["homa_ir_convention"]["doi"] == "10.1007/BF00280883"
    assert "population-dependent" in srcs["homa_ir_convention"]["note"]
    for rule in cutoff_tables()["default"].values():
        assert rule.source in srcs


def test_loader_accepts_packaged_file():
    tables, _ = _parse(raw_cutoffs())
    assert set(tables["default"]) == set(FLAG_BIOMARKERS)
    assert set(tables["default"]["hdl"].bands) == {"F", "M"}


def _broken(edit):
    data = copy.deepcopy(raw_cutoffs())
    edit(data)
    return data


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(extra=1), "unknown keys"),
        (lambda d: d["tables"]["default"].pop("ldl"), "missing keys"),
        (lambda d: d["tables"]["default"]["ldl"].update(source="nobody"), "unknown source"),
        (lambda d: d["tables"]["default"]["ldl"]["bands"][1].update(lower=101), "share"),  # gap
        (lambda d: d["tables"]["default"]["ldl"]["bands"][1].update(lower_inclusive=False), "share"),
        (lambda d: d["tables"]["default"]["ldl"]["bands"][0].update(upper_inclusive=True), "share"),
        (lambda d: d["tables"]["default"]["ldl"]["bands"][-1].update(upper=1000), "last"),
        (lambda d: d["tables"]["default"]["ldl"]["bands"][0].update(flagged="no"), "booleans"),
        (lambda d: d["tables"]["default"]["ldl"]["bands"][0].update(colour="red"), "unknown keys"),
        (lambda d: d["tables"]["default"]["hdl"]["bands_by_sex"].pop("F"), "missing keys"),
        (lambda d: d["sources"]["ada_soc_2024"].pop("doi"), "missing keys"),
        (lambda d: d.update(schema_version=2), "schema_version"),
    ],
)
def test_loader_rejects_bad_files(edit, message):
    with pytest.raises(ValueError, match=message):
        _parse(_broken(edit))
