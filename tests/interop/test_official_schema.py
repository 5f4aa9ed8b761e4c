"""The export checked field by field against the official WearableQA schema.

The schema below is written down from two sources in facebookresearch/WearableQA (commit
39fb7ab5f25127e290e6e7e09e38b4fb3d2d7df3):

- README.md, section "### 2. `WearableQA_raw.json` — the structured source": the top-level
  block (``cohort_reference: { "<metric>": {p10, p25, p50, p75, p90, _min, _max, ...} }`` for
  5 metrics, ``user_histories: { "<user_id>": [ {date, <metric>: value, ...} ] }``) and the
  table "Each entry in `mcqs` carries"; section "### 1." for the label values
  (``reasoning_group`` data/health, ``signal`` single/cross, ``grounding`` population/literature)
  and the 16 daily metrics.
- render_raw.py, ``render_question``: what the renderer reads from an MCQ (``options`` keyed
  A–J, ``context.demographics``/``blood_panel``, ``no_cohort``, ``full_dropped_metrics`` and the
  optional ``hidden_metric`` and ``window_dropped_metrics``) and that it prints each
  ``cohort_reference`` metric's dict as ``key=value`` pairs, skipping ``_n_users`` and
  ``_median_days_per_user``.
"""

import json
import re
from pathlib import Path
from typing import Any

import pytest

from wearbench.bench import read_items
from wearbench.interop import export_official, export_official_groups, import_official
from wearbench.questions import LETTERS

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
#: README "### 2.": top-level keys and value types, in file order.
TOP: dict[str, type] = {
    "description": str,
    "n_mcqs": int,
    "n_unique_users": int,
    "gt_balancing": str,  # "uniform A-J within each reasoning group (data / health)"
    "cohort_reference": dict,
    "user_histories": dict,
    "mcqs": list,
}
#: README "Each entry in `mcqs` carries": key → type (label keys → allowed values below).
MCQ: dict[str, Any] = {
    "id": str,
    "user_id": str,
    "stem": str,
    "options": dict,  # render_raw.py: ``for k in "ABCDEFGHIJ": if k in mcq["options"]``
    "gt_letter": str,
    "question_type": str,
    "reasoning_group": {"data", "health"},
    "signal": {"single", "cross"},
    # README: population / literature. wearbench adds "definition" (docs/official-format.md):
    # data-reasoning items with neither a card nor a population gate are not relabelled.
    "grounding": {"population", "literature", "definition"},
    "context": dict,
    "end_date": str,
    "window_size": int,
    "full_dropped_metrics": list,
    "no_cohort": bool,
}
#: render_raw.py reads these when present.
OPTIONAL_MCQ: dict[str, type] = {"hidden_metric": str, "window_dropped_metrics": list}
#: README "### 1.": the 16 daily metrics, as render_raw.py's field names.
DAILY_FIELDS = {
    "steps", "rhr", "hrv", "vo2_max", "sleep_duration", "sleep_efficiency", "deep_percentage",
    "rem_percentage", "bed_time_std", "active_burn", "calories_bmr", "avg_stress_level",
    "exercise_count", "exercise_hours", "exercise_mets", "exercise_avg_hr",
}  # fmt: skip
#: README "### 1.": "p10/p25/p50/p75/p90 for 5 metrics".
REFERENCE_METRICS = {"rhr", "steps", "hrv", "sleep_duration", "sleep_efficiency"}
REFERENCE_REQUIRED = {"p10", "p25", "p50", "p75", "p90"}
REFERENCE_OPTIONAL = {"p5", "p95", "_min", "_max", "_n_users", "_median_days_per_user"}


def _check_reference(ref: dict[str, Any], where: str) -> None:
    assert set(ref) <= REFERENCE_METRICS, where
    for metric, cell in ref.items():
        assert isinstance(cell, dict), f"{where}.{metric}"
        assert REFERENCE_REQUIRED <= set(cell) <= REFERENCE_REQUIRED | REFERENCE_OPTIONAL, f"{where}.{metric}"
        # printed as key=value: a scalar each, never a nested dict of age bands
        assert all(isinstance(v, int | float) for v in cell.values()), f"{where}.{metric}"


def _check_document(doc: dict[str, Any]) -> None:
    assert list(doc) == list(TOP)
    for key, kind in TOP.items():
        assert isinstance(doc[key], kind), key
    assert doc["n_mcqs"] == len(doc["mcqs"])
    assert doc["n_unique_users"] == len(doc["user_histories"])
    _check_reference(doc["cohort_reference"], "cohort_reference")
    for user, days in doc["user_histories"].items():
        assert isinstance(days, list), user
        assert days, user
        for day in days:
            assert ISO.match(day["date"]), user
            assert set(day) - {"date"} <= DAILY_FIELDS, user
            assert all(v is None or isinstance(v, int | float) for k, v in day.items() if k != "date")
    for q in doc["mcqs"]:
        assert set(MCQ) <= set(q) <= set(MCQ) | set(OPTIONAL_MCQ), q["id"]
        for key, kind in MCQ.items():
            assert q[key] in kind if isinstance(kind, set) else isinstance(q[key], kind), (q["id"], key)
        for key, kind in OPTIONAL_MCQ.items():
            assert key not in q or isinstance(q[key], kind), (q["id"], key)
        assert list(q["options"]) == list(LETTERS)
        assert q["gt_letter"] in LETTERS
        assert all(isinstance(t, str) and t for t in q["options"].values())
        assert q["user_id"] in doc["user_histories"]
        assert ISO.match(q["end_date"])
        assert q["window_size"] == 28  # README: "28 throughout"
        assert set(q["full_dropped_metrics"]) <= DAILY_FIELDS
        demo = q["context"]["demographics"]
        assert set(demo) == {"age", "sex", "bmi", "ethnicity"}
        assert q["context"]["blood_panel"] is None or isinstance(q["context"]["blood_panel"], dict)
        if not q["no_cohort"]:
            _check_reference(q["context"]["cohort_reference"], f"{q['id']}.context.cohort_reference")


@pytest.fixture(scope="module")
def exported(mixed_bench: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_official(mixed_bench, tmp_path_factory.mktemp("schema") / "WearableQA_raw.json")


def test_export_matches_the_documented_schema(exported: Path) -> None:
    _check_document(json.loads(exported.read_text(encoding="utf-8")))


def test_each_group_file_shows_every_question_its_own_reference(exported: Path, mixed_bench: Path) -> None:
    files = export_official_groups(mixed_bench, exported)
    docs = [json.loads(f.read_text(encoding="utf-8")) for f in files]
    assert len(docs) > 1  # the mixed cohort spans several age band x sex groups
    assert sum(d["n_mcqs"] for d in docs) == len(read_items(mixed_bench))
    for f, doc in zip(files, docs, strict=True):
        _check_document(doc)
        band, sex = f.name.split(".")[1:3]
        for q in doc["mcqs"]:
            assert q["context"]["cohort_reference_group"] == {"age_band": band, "sex": sex}
            # the top level (what the renderer prints) is this question's matched reference
            assert doc["cohort_reference"] == q["context"]["cohort_reference"]


def test_import_reads_the_flat_official_shape(exported: Path, tmp_path: Path) -> None:
    # As the official README writes it: one flat reference, p10..p90 and _min/_max, no
    # per-question copies. Every user group then gets that reference.
    doc = json.loads(exported.read_text(encoding="utf-8"))
    flat = {
        "rhr": {"p10": 52.0, "p25": 56.0, "p50": 61.0, "p75": 66.0, "p90": 71.0, "_min": 38.0, "_max": 95.0}
    }
    doc["cohort_reference"] = flat
    for q in doc["mcqs"]:
        q["context"] = {k: q["context"][k] for k in ("demographics", "blood_panel")}
    doc["mcqs"][0]["hidden_metric"] = "hrv"
    doc["mcqs"][0]["window_dropped_metrics"] = ["steps"]
    path = tmp_path / "flat.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = import_official(path, tmp_path / "out")
    again = export_official(result.bench_dir, tmp_path / "again.json")
    out = json.loads(again.read_text(encoding="utf-8"))
    assert out["cohort_reference"] == {
        "rhr": {"p10": 52.0, "p25": 56.0, "p50": 61.0, "p75": 66.0, "p90": 71.0}
    }
    assert out["mcqs"][0]["hidden_metric"] == "hrv"
    assert out["mcqs"][0]["window_dropped_metrics"] == ["steps"]


def test_import_reads_the_older_nested_shape(exported: Path, tmp_path: Path) -> None:
    doc = json.loads(exported.read_text(encoding="utf-8"))
    nested: dict[str, Any] = {}
    for q in doc["mcqs"]:
        group = q["context"].pop("cohort_reference_group")
        for field, cell in q["context"].pop("cohort_reference").items():
            nested.setdefault(field, {}).setdefault(group["age_band"], {})[group["sex"]] = cell
    doc["cohort_reference"] = nested
    path = tmp_path / "nested.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = import_official(path, tmp_path / "out")
    again = export_official(result.bench_dir, tmp_path / "again.json")
    assert again.read_bytes() == exported.read_bytes()
