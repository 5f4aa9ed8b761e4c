"""Hugging Face export: Parquet values against the benchmark, deterministic bytes, dataset card."""

import json
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from wearbench.bench import load_context, read_items, read_manifest
from wearbench.interop import HF_COLUMNS, HF_PARQUET, export_hf
from wearbench.questions import LETTERS


@pytest.fixture(scope="module")
def exported(mixed_bench: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_hf(mixed_bench, tmp_path_factory.mktemp("hf") / "out")


@pytest.fixture(scope="module")
def rows(exported: Path) -> list[dict]:
    return pq.read_table(exported / HF_PARQUET).to_pylist()


def _close(a: float | None, b: float) -> bool:
    return (a is None and math.isnan(b)) or (a is not None and abs(a - b) <= 1e-6 * max(1.0, abs(b)))


def test_schema_and_row_order(exported: Path, mixed_bench: Path, rows: list[dict]) -> None:
    schema = pq.read_schema(exported / HF_PARQUET)
    assert schema.names == [name for name, _ in HF_COLUMNS]
    assert schema.field("options").type == pa.list_(pa.string())
    assert schema.field("answer_index").type == pa.int64()
    assert schema.metadata is None or b"pandas" not in schema.metadata  # no pandas index
    items = read_items(mixed_bench)
    assert [r["id"] for r in rows] == sorted(i.id for i in items)
    assert len(rows) == len(items) > 20


def test_rows_match_items(mixed_bench: Path, rows: list[dict]) -> None:
    items = {i.id: i for i in read_items(mixed_bench)}
    for row in rows:
        item = items[row["id"]]
        assert row["options"] == [item.options[k] for k in LETTERS]
        assert row["answer"] == item.answer == LETTERS[row["answer_index"]]
        assert row["options"][row["answer_index"]] == item.options[item.answer]
        assert row["question"] == item.question
        assert row["metrics"] == list(item.metrics)
        assert (row["type"], row["reasoning"], row["signals"], row["grounding"], row["dependency"]) == (
            item.type,
            item.reasoning,
            item.signals,
            item.grounding,
            item.dependency,
        )
        assert (row["end_date"], row["window_days"], row["history_days"]) == (
            item.end_date,
            item.window_days,
            item.history_days,
        )
        assert (row["pair_kind"], row["grounding_ref"]) == (item.pair_kind, item.grounding_ref)


def test_series_blood_and_demographics_match_the_context(mixed_bench: Path, rows: list[dict]) -> None:
    for row in rows[::5]:
        ctx = load_context(mixed_bench, row["user_id"])
        end = ctx.index(row["end_date"])
        series = json.loads(row["series"])
        assert next(iter(series)) == "dates"
        assert series["dates"][-1] == row["end_date"]
        assert len(series["dates"]) == row["history_days"]
        start = end - row["history_days"] + 1
        assert series["dates"][0] == str(ctx.dates[start])
        for metric, values in series.items():
            if metric == "dates":
                continue
            truth = ctx.metrics[metric][start : end + 1]
            assert all(_close(v, t) for v, t in zip(values, truth.tolist(), strict=True)), metric
        empty = [m for m, v in ctx.metrics.items() if not np.isfinite(v[start : end + 1]).any()]
        assert not set(empty) & set(series)
        draw = ctx.blood_at(end)
        panel = json.loads(row["blood_panel"]) if row["blood_panel"] is not None else None
        assert (panel is None) == (draw is None)
        if panel is not None and draw is not None:
            assert panel["draw_date"] == draw["draw_date"] <= row["end_date"]
            assert _close(panel["hba1c"], float(draw["hba1c"]))
        demo = json.loads(row["demographics"])
        assert demo["sex"] == ctx.demographics["sex"]
        assert _close(demo["age"], float(ctx.demographics["age"]))
        ref = json.loads(row["reference"])
        assert set(ref) == set(ctx.reference)
        for metric, cell in ref.items():
            assert _close(cell["p50"], ctx.reference[metric][50])


def test_bytes_are_deterministic(exported: Path, mixed_bench: Path, tmp_path: Path) -> None:
    again = export_hf(mixed_bench, tmp_path / "again")
    assert (again / HF_PARQUET).read_bytes() == (exported / HF_PARQUET).read_bytes()
    assert (again / "README.md").read_bytes() == (exported / "README.md").read_bytes()


def test_dataset_card(exported: Path, mixed_bench: Path) -> None:
    yaml = pytest.importorskip("yaml")
    text = (exported / "README.md").read_text(encoding="utf-8")
    _, header, body = text.split("---\n", 2)
    card = yaml.safe_load(header)
    assert card["configs"] == [
        {"config_name": "default", "data_files": [{"split": "test", "path": "data/*.parquet"}]}
    ]
    features = card["dataset_info"]["features"]
    assert [f["name"] for f in features] == [name for name, _ in HF_COLUMNS]
    assert {"name": "options", "list": "string"} in features
    assert {"name": "answer_index", "dtype": "int64"} in features
    assert card["license"] == "apache-2.0"  # synthetic cohort
    manifest = read_manifest(mixed_bench)
    assert manifest["cohort_hash"] in body
    assert f"build seed: `{manifest['seed']}`" in body
    assert f"wearbench version: `{manifest['wearbench_version']}`" in body


def test_datasets_loads_it(exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf_home"))
    datasets = pytest.importorskip("datasets")
    ds = datasets.load_dataset(str(exported), cache_dir=str(tmp_path / "cache"))
    table = pq.read_table(exported / HF_PARQUET)
    assert list(ds) == ["test"]
    assert ds["test"].num_rows == table.num_rows
    assert ds["test"][0]["id"] == table.column("id")[0].as_py()
    assert ds["test"][0]["options"] == table.column("options")[0].as_py()
