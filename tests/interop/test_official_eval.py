"""Official release files for evaluation: raw JSON and JSONL variants, caching, line-level errors."""

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from wearbench._errors import WearbenchError
from wearbench.bench import load_context, read_items
from wearbench.interop import RAW_NAME, export_official, item_data, jsonl_document, load_official
from wearbench.questions import LETTERS


@pytest.fixture(scope="module")
def raw(mixed_bench: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_official(mixed_bench, tmp_path_factory.mktemp("release") / RAW_NAME)


def _jsonl(mcqs: list[dict], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(q) + "\n" for q in mcqs), encoding="utf-8")
    return path


def _inline(doc: dict) -> list[dict]:
    """Each MCQ with its user's history up to its end date inline (what a per-question file shows)."""
    out = []
    for q in doc["mcqs"]:
        history = [r for r in doc["user_histories"][q["user_id"]] if r["date"] <= q["end_date"]]
        out.append({**q, "user_history": history})
    return out


def _assert_same_items(loaded: Path, original: Path) -> None:
    got = {i.id: i for i in read_items(loaded)}
    want = {i.id: i for i in read_items(original)}
    assert set(got) == set(want)
    for key, item in want.items():
        assert got[key].question == item.question
        assert [got[key].options[k] for k in LETTERS] == [item.options[k] for k in LETTERS]
        assert got[key].answer == item.answer
        assert (got[key].type, got[key].end_date, got[key].window_days) == (
            item.type,
            item.end_date,
            item.window_days,
        )


def test_raw_file_loads_into_a_cached_benchmark(raw: Path, mixed_bench: Path, tmp_path: Path) -> None:
    bench = load_official(raw, tmp_path / "cache")
    assert bench == tmp_path / "cache" / hashlib.sha256(raw.read_bytes()).hexdigest()[:12] / "bench"
    _assert_same_items(bench, mixed_bench)
    stamp = (bench / "manifest.json").stat().st_mtime_ns
    assert load_official(raw, tmp_path / "cache") == bench
    assert (bench / "manifest.json").stat().st_mtime_ns == stamp  # reused, not rebuilt
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [bench.parent.name]  # no leftovers


def test_jsonl_with_inline_histories(raw: Path, mixed_bench: Path, tmp_path: Path) -> None:
    doc = json.loads(raw.read_text(encoding="utf-8"))
    file = _jsonl(_inline(doc), tmp_path / "alone" / "WearableQA.jsonl")
    bench = load_official(file, tmp_path / "cache")
    _assert_same_items(bench, mixed_bench)
    for user in sorted({q["user_id"] for q in doc["mcqs"]}):
        last = max(q["end_date"] for q in doc["mcqs"] if q["user_id"] == user)
        got, want = load_context(bench, user), load_context(mixed_bench, user)
        n = want.index(last) + 1
        assert str(got.dates[0]) == str(want.dates[0])
        assert got.n_days == n
        for metric in ("resting_hr", "steps", "sleep_minutes"):
            assert got.metrics[metric] == pytest.approx(want.metrics[metric][:n], abs=1e-4, nan_ok=True)


def test_jsonl_takes_histories_from_the_raw_file_next_to_it(raw: Path, mixed_bench: Path) -> None:
    doc = json.loads(raw.read_text(encoding="utf-8"))
    file = _jsonl(doc["mcqs"], raw.with_name("WearableQA.jsonl"))
    converted = jsonl_document(file)
    assert converted["user_histories"] == doc["user_histories"]
    assert converted["cohort_reference"] == doc["cohort_reference"]
    assert converted["mcqs"] == doc["mcqs"]
    _assert_same_items(load_official(file, raw.parent / "cache"), mixed_bench)


def test_jsonl_without_any_history_names_the_line_and_user(raw: Path, tmp_path: Path) -> None:
    doc = json.loads(raw.read_text(encoding="utf-8"))
    file = _jsonl(doc["mcqs"], tmp_path / "WearableQA.jsonl")
    user = doc["mcqs"][0]["user_id"]
    with pytest.raises(WearbenchError, match=rf"WearableQA\.jsonl:1: user {user} has no user_history"):
        load_official(file, tmp_path / "cache")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda q: "{not json", r"WearableQA\.jsonl:3: not JSON"),
        (
            lambda q: json.dumps({k: v for k, v in q.items() if k != "gt_letter"}),
            r":3: missing key\(s\) gt_letter",
        ),
        (
            lambda q: json.dumps({**q, "options": list(q["options"].values())[:9]}),
            r":3 \(.+\): options must be 10 texts",
        ),
        (lambda q: json.dumps({**q, "gt_letter": "K"}), r":3 \(.+\): gt_letter must be one of A-J"),
        (lambda q: json.dumps([q]), r":3: expected a JSON object, got list"),
        (lambda q: json.dumps({**q, "user_history": [{"rhr": 60}]}), r":3 \(.+\): user_history must be"),
    ],
)
def test_malformed_line_is_named(
    raw: Path, tmp_path: Path, mutate: Callable[[dict], str], message: str
) -> None:
    doc = json.loads(raw.read_text(encoding="utf-8"))
    lines = [json.dumps(q) for q in _inline(doc)[:4]]
    lines[2] = mutate(_inline(doc)[2])
    file = tmp_path / "WearableQA.jsonl"
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(WearbenchError, match=message):
        load_official(file, tmp_path / "cache")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_conflicting_inline_histories_are_an_error(raw: Path, tmp_path: Path) -> None:
    doc = json.loads(raw.read_text(encoding="utf-8"))
    mcqs = _inline(doc)
    user = mcqs[0]["user_id"]
    n, q = next((n, q) for n, q in enumerate(mcqs) if n > 0 and q["user_id"] == user)
    first_day = mcqs[0]["user_history"][0]
    q["user_history"][0] = {**first_day, "rhr": -1}
    file = _jsonl(mcqs, tmp_path / "WearableQA.jsonl")
    with pytest.raises(
        WearbenchError, match=rf":{n + 1} \(.+\): user_history for {first_day['date']} differs"
    ):
        load_official(file, tmp_path / "cache")


def test_unknown_suffix_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(WearbenchError, match=r"expected WearableQA_raw\.json"):
        load_official(tmp_path / "WearableQA.csv", tmp_path / "cache")
    with pytest.raises(WearbenchError, match="no such file"):
        load_official(tmp_path / "WearableQA_raw.json", tmp_path / "cache")


def test_official_withholding_flags_shape_the_exported_data(raw: Path, tmp_path: Path) -> None:
    doc = json.loads(raw.read_text(encoding="utf-8"))
    mcqs = _inline(doc)
    mcqs[0] = {
        **mcqs[0],
        "full_dropped_metrics": ["steps", "sleep_duration", "resting_hr"],
        "no_cohort": True,
    }
    shutil.copy(raw, tmp_path / RAW_NAME)  # supplies the cohort reference
    bench = load_official(_jsonl(mcqs, tmp_path / "WearableQA.jsonl"), tmp_path / "cache")
    items = {i.id: i for i in read_items(bench)}
    flagged = items[mcqs[0]["id"]]
    plain = items[next(q["id"] for q in mcqs[1:] if not q["no_cohort"])]
    shown = item_data(flagged, load_context(bench, flagged.user_id))
    assert "steps" not in shown.series
    assert "sleep_minutes" not in shown.series
    assert "resting_hr" not in shown.series  # canonical names are accepted too
    assert "hrv" in shown.series
    assert shown.reference == {}
    other = item_data(plain, load_context(bench, plain.user_id))
    assert "steps" in other.series
    assert other.reference != {}
