"""On a real import (PMData) no item compares against a reference that includes the tested user."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from wearbench.bench import build_benchmark
from wearbench.bench._artifact import load_context, read_items
from wearbench.cohort import MIN_USERS, ReferenceResolver, load_cohort, table_kind
from wearbench.questions import graph_references
from wearbench.sources import import_source

REFERENCE_TYPES = (
    "cohort_position",
    "sleep_phenotype",
    "fitness_prediction",
    "activity_recommendation",
    "blood_state",
)


@pytest.fixture(scope="module")
def pmdata_bench(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("pmdata")
    import_source("pmdata", shared_data / "pmdata", root / "cohort")
    # every type: the reference types alone give 0 items here (no independent reference for their
    # metrics), and a build with 0 items is refused
    result = build_benchmark(root / "cohort", root / "bench", seed=0)
    assert not set(result.stats["by_type"]) & set(REFERENCE_TYPES)
    return root / "cohort", root / "bench"


def test_import_records_the_self_including_table_and_counts_reference_kinds(
    pmdata_bench: tuple[Path, Path],
) -> None:
    cohort, _ = pmdata_bench
    report = json.loads((cohort / "import_report.json").read_text(encoding="utf-8"))
    assert report["reference"]["table_kind"] == "cohort_self"
    rhr = report["reference"]["users_by_kind"]["resting_hr"]
    assert set(rhr) == {"population", "cohort", "external", "none"}
    # 10 participants, one per age band x sex cell at most: never 30 other users
    assert rhr["population"] == rhr["cohort"] == 0
    manifest = json.loads((cohort / "cohort.json").read_text(encoding="utf-8"))
    assert table_kind(manifest["source"]) == "cohort_self"


def test_no_item_uses_a_small_or_self_including_reference(pmdata_bench: tuple[Path, Path]) -> None:
    _, bench = pmdata_bench
    items = read_items(bench)
    for item in items:
        for cell in graph_references(item.graph).values():
            assert cell.kind == "external" or (cell.n_users or 0) >= MIN_USERS, item.id
            assert cell.kind != "population", item.id  # a real import has no independent population
        assert load_context(bench, item.user_id).reference == {}  # the cohort's own table is never shown
    datasheet = (bench / "datasheet.md").read_text(encoding="utf-8")
    assert "## References items compare against" in datasheet
    drops = [
        line for line in datasheet.splitlines() if "no reference: fewer than 30 independent peers" in line
    ]
    assert drops  # windows without an independent reference are dropped with a counted reason


def test_every_real_reference_lookup_is_external_or_dropped(pmdata_bench: tuple[Path, Path]) -> None:
    """The resolver itself on every participant, reference metric and month end of the real import.

    The benchmark above has no reference item (every window drops), so this checks the lookups
    directly: each is the cited external table or a counted drop, never a cell of the cohort's own,
    self-including users.
    """
    cohort = load_cohort(pmdata_bench[0])
    metrics = ["resting_hr", "steps", "sleep_minutes", "hrv", "vo2max"]
    resolver = ReferenceResolver.from_cohort(cohort, metrics)
    demo = cohort.demographics.set_index("user_id")
    kinds: Counter[str] = Counter()
    for user, days in cohort.daily.groupby("user_id"):
        person = {"age": float(demo.loc[user, "age"]), "sex": str(demo.loc[user, "sex"])}
        for end in pd.to_datetime(days["date"]).dt.strftime("%Y-%m-%d").iloc[27::28]:
            for metric in metrics:
                got = resolver.resolve(str(user), person, metric, end)
                if isinstance(got, str):
                    kinds["drop"] += 1
                    assert "fewer than 30 independent peers" in got or "age or sex" in got, got
                else:
                    kinds[got.kind] += 1
                    assert got.kind == "external", (user, metric, end, got.kind)
    assert kinds["external"] > 0  # resting HR and VO2max resolve to NHSR 41 / FRIEND cells
    assert kinds["drop"] > 0  # steps, sleep and HRV have no external table
