"""ReferenceResolver: population, leave-the-user-out cohort and external cells, hand-computed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from wearbench.cohort import Cohort, ReferenceCell, ReferenceResolver, empty_tables, table_kind
from wearbench.cohort import _resolve as resolve_module
from wearbench.cohort._external import ExternalReference, external_reference

END = "2024-01-20"


def _cohort(
    n_users: int = 32,
    *,
    late: int | None = 31,
    source: dict[str, object] | None = None,
    metric: str = "resting_hr",
) -> Cohort:
    """``n_users`` women aged 35: user i has ``metric`` 100 + i on Jan 1–20 and 500 on Jan 21–60.

    User ``late`` records only from Jan 16 (5 days on or before the end date).
    """
    rows = []
    for i in range(n_users):
        for d in range(60):
            if i == late and d < 15:
                continue
            value = 100.0 + i if d < 20 else 500.0
            rows.append(
                {
                    "user_id": f"u{i:02d}",
                    "date": pd.Timestamp("2024-01-01") + pd.Timedelta(days=d),
                    metric: value,
                }
            )
    daily = pd.DataFrame(rows)
    demo = pd.DataFrame({"user_id": [f"u{i:02d}" for i in range(n_users)], "age": 35.0, "sex": "F"})
    _, _, blood, ref = empty_tables()
    return Cohort(daily, demo, blood, ref, source=source or {"name": "csv", "params": {}})


def test_leave_user_out_hand_computed() -> None:
    res = ReferenceResolver.from_cohort(_cohort(), ["resting_hr"])
    cell = res.resolve("u00", {"age": 35.0, "sex": "F"}, "resting_hr", END)
    assert isinstance(cell, ReferenceCell)
    # others u01…u30 (u31 has 5 days up to the end date < 14; days after the end date unused):
    # medians 101 … 130, 30 users
    assert (cell.kind, cell.age_band, cell.sex, cell.n_users) == ("cohort", "30-39", "F", 30)
    values = np.arange(101.0, 131.0)
    assert cell.percentiles[50] == pytest.approx(115.5)
    assert cell.percentiles[10] == pytest.approx(101.0 + 0.1 * 29)  # linear interpolation
    assert cell.mean == pytest.approx(115.5)
    assert cell.sd == pytest.approx(float(np.sqrt(((values - 115.5) ** 2).sum() / 29)))
    assert "on or before 2024-01-20" in cell.source
    # the tested user's own value (100) never enters: u30's cell holds u00 but not u30
    other = res.resolve("u30", {"age": 35.0, "sex": "F"}, "resting_hr", END)
    assert isinstance(other, ReferenceCell)
    assert other.percentiles[5] == pytest.approx(np.percentile(np.arange(100.0, 130.0), 5))


def test_later_end_date_uses_later_data_and_too_few_peers_drop() -> None:
    res = ReferenceResolver.from_cohort(_cohort(), ["resting_hr"])
    later = res.resolve("u00", {"age": 35.0, "sex": "F"}, "resting_hr", "2024-03-01")
    assert isinstance(later, ReferenceCell)
    assert later.n_users == 31
    assert later.percentiles[50] == 500.0
    small = ReferenceResolver.from_cohort(_cohort(31, late=30), ["resting_hr"])  # 29 usable others
    # resting HR falls back to the shipped external table (NHSR 41, women 20-39 y: P50 73 bpm) ...
    fallback = small.resolve("u00", {"age": 35.0, "sex": "F"}, "resting_hr", END)
    assert isinstance(fallback, ReferenceCell)
    assert (fallback.kind, fallback.age_band, fallback.sex) == ("external", "30-39", "F")
    assert fallback.percentiles[50] == external_reference("resting_hr", "30-39", "F").percentiles[50]
    # ... a metric without an external table drops the window with the counted reason
    steps = ReferenceResolver.from_cohort(_cohort(31, late=30, metric="steps"), ["steps"])
    reason = steps.resolve("u00", {"age": 35.0, "sex": "F"}, "steps", END)
    assert isinstance(reason, str)
    assert "fewer than 30 independent peers" in reason
    no_group = small.resolve("u00", {"age": None, "sex": "F"}, "resting_hr", END)
    assert isinstance(no_group, str)
    assert "age or sex unknown" in no_group


def test_external_when_the_cohort_is_too_small(monkeypatch: pytest.MonkeyPatch) -> None:
    ext = ExternalReference(
        "resting_hr", "30-39", "F", {50: 70.0}, 71.0, 9.0, 5000, "SRC", "A 2020; doi", "c"
    )
    monkeypatch.setattr(resolve_module, "external_reference", lambda m, a, s: ext)
    res = ReferenceResolver.from_cohort(_cohort(5, late=None), ["resting_hr"])
    cell = res.resolve("u00", {"age": 35.0, "sex": "F"}, "resting_hr", END)
    assert isinstance(cell, ReferenceCell)
    assert (cell.kind, cell.n_users, cell.mean, cell.citation) == ("external", 5000, 71.0, "A 2020; doi")


def test_population_table_only_when_independent_and_large() -> None:
    base = _cohort(5, late=None)
    ref = pd.DataFrame(
        {
            "metric": ["resting_hr"],
            "age_band": ["30-39"],
            "sex": ["F"],
            "n_users": [40],
            "p5": [50.0],
            "p50": [60.0],
        }
    )
    synthetic = Cohort(base.daily, base.demographics, base.blood, ref, source={"name": "synthetic"})
    cell = ReferenceResolver.from_cohort(synthetic, ["resting_hr"]).resolve(
        "u00", {"age": 35.0, "sex": "F"}, "resting_hr", END
    )
    assert isinstance(cell, ReferenceCell)
    assert (cell.kind, cell.n_users, dict(cell.percentiles)) == ("population", 40, {5: 50.0, 50: 60.0})
    # the same table computed from the cohort's own users is never used
    imported = Cohort(base.daily, base.demographics, base.blood, ref, source={"name": "pmdata"})
    got = ReferenceResolver.from_cohort(imported, ["resting_hr"]).resolve(
        "u00", {"age": 35.0, "sex": "F"}, "resting_hr", END
    )
    assert isinstance(got, ReferenceCell)
    assert got.kind == "external"  # not the self-including table: the shipped external one
    small = Cohort(
        base.daily, base.demographics, base.blood, ref.assign(n_users=29), source={"name": "synthetic"}
    )
    too_small = ReferenceResolver.from_cohort(small, ["resting_hr"]).resolve(
        "u00", {"age": 35.0, "sex": "F"}, "resting_hr", END
    )
    assert isinstance(too_small, ReferenceCell)
    assert too_small.kind == "external"


def test_table_kind_and_cell_round_trip() -> None:
    assert table_kind({"name": "synthetic"}) == "population"
    assert table_kind({"name": "pmdata"}) == "cohort_self"
    assert table_kind({"name": "x", "reference": {"kind": "population"}}) == "population"
    cell = ReferenceCell("steps", "cohort", "18-29", "M", {10: 1.5, 90: 9.0}, 5.0, None, 31, "src")
    assert ReferenceCell.from_json(cell.to_json()) == cell
