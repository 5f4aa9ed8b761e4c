"""Official WearableQA format: export shape, import into cohort + bench, round trip, errors."""

import json
from pathlib import Path

import pytest

from wearbench._errors import WearbenchError
from wearbench.bench import IMPORTED_REF, read_items, verify_benchmark
from wearbench.cohort import METRICS, load_cohort, validate_cohort
from wearbench.interop import OFFICIAL_KEYS, export_official, import_official, official_document
from wearbench.interop._common import MCQ_KEYS
from wearbench.questions import LETTERS
from wearbench.scoring import solve_benchmark


@pytest.fixture(scope="module")
def exported(trend_bench: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_official(trend_bench, tmp_path_factory.mktemp("official") / "WearableQA_raw.json")


def test_export_has_the_official_shape(exported: Path, trend_bench: Path) -> None:
    doc = json.loads(exported.read_text(encoding="utf-8"))
    items = read_items(trend_bench)
    assert tuple(doc) == OFFICIAL_KEYS
    assert doc["n_mcqs"] == len(items) == len(doc["mcqs"]) > 0
    assert doc["n_unique_users"] == len(doc["user_histories"]) == len({i.user_id for i in items})
    assert doc["gt_balancing"] == "uniform A-J within each reasoning group (data / health)"
    for q, item in zip(doc["mcqs"], items, strict=True):
        assert tuple(q) == MCQ_KEYS
        assert q["options"] == {k: item.options[k] for k in LETTERS}
        assert q["gt_letter"] == item.answer
        assert q["stem"] == item.question
        assert (q["reasoning_group"], q["signal"], q["grounding"]) == ("data", "single", "definition")
        assert set(q["context"]) == {
            "demographics",
            "blood_panel",
            "cohort_reference",
            "cohort_reference_group",
        }
        assert set(q["context"]["cohort_reference"]) == {
            "rhr",
            "steps",
            "hrv",
            "sleep_duration",
            "sleep_efficiency",
        }
    day = next(iter(doc["user_histories"].values()))[0]
    assert list(day) == ["date", *(m.wearableqa for m in METRICS)]


def test_units_are_scaled_to_official(trend_cohort: Path, exported: Path) -> None:
    doc = json.loads(exported.read_text(encoding="utf-8"))
    user, days = next(iter(doc["user_histories"].items()))
    cohort = load_cohort(trend_cohort)
    rec = cohort.user(user)
    i = next(n for n, d in enumerate(days) if d["sleep_duration"] is not None)
    assert days[i]["date"] == str(rec.dates[i])
    assert days[i]["sleep_duration"] == pytest.approx(rec["sleep_minutes"][i] / 60, abs=1e-6)
    assert days[i]["rhr"] == pytest.approx(rec["resting_hr"][i], abs=1e-6)
    cells = [q["context"]["cohort_reference"]["sleep_duration"] for q in doc["mcqs"]]
    assert all(3 < cell["p50"] < 12 for cell in cells)  # hours


def test_round_trip_is_a_fixed_point(exported: Path, tmp_path: Path) -> None:
    result = import_official(exported, tmp_path / "imported")
    assert validate_cohort(result.cohort_dir).ok, validate_cohort(result.cohort_dir).lines()
    again = export_official(result.bench_dir, tmp_path / "again.json")
    assert again.read_bytes() == exported.read_bytes()
    assert official_document(result.bench_dir) == json.loads(exported.read_text(encoding="utf-8"))


def test_imported_items_are_reported_not_failed(exported: Path, tmp_path: Path) -> None:
    result = import_official(exported, tmp_path / "imported")
    items = read_items(result.bench_dir)
    assert len(items) == result.n_items
    assert all(i.graph == {} and i.grounding_ref == IMPORTED_REF for i in items)
    report = verify_benchmark(result.bench_dir)
    assert report.failures == ()
    assert len(report.imported) == len(items)
    assert report.n_checked == 0
    oracle = solve_benchmark(result.bench_dir, "oracle")
    assert oracle.n_skipped == len(items)
    assert oracle.overall.n == 0
    assert solve_benchmark(result.bench_dir, "random").overall.n == len(items)


def test_options_may_be_a_list(exported: Path, tmp_path: Path) -> None:
    doc = json.loads(exported.read_text(encoding="utf-8"))
    for q in doc["mcqs"]:
        q["options"] = [q["options"][k] for k in LETTERS]
    path = tmp_path / "list.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = import_official(path, tmp_path / "out")
    assert read_items(result.bench_dir)[0].options["A"] == doc["mcqs"][0]["options"][0]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.pop("mcqs"), "missing key"),
        (lambda d: d["mcqs"][0]["options"].pop("J"), "10 options"),
        (lambda d: d["mcqs"][0].pop("gt_letter"), "gt_letter"),
        (lambda d: next(iter(d["user_histories"].values()))[0].update(heart=1.0), "heart"),
    ],
)
def test_malformed_files_name_the_problem(exported: Path, tmp_path: Path, edit: object, message: str) -> None:
    doc = json.loads(exported.read_text(encoding="utf-8"))
    edit(doc)  # type: ignore[operator]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(WearbenchError, match=message):
        import_official(path, tmp_path / "out")


def test_not_json_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{nope", encoding="utf-8")
    with pytest.raises(WearbenchError, match="cannot be read as JSON"):
        import_official(tmp_path / "x.json", tmp_path / "out")
    with pytest.raises(WearbenchError, match="no such file"):
        import_official(tmp_path / "missing.json", tmp_path / "out")
