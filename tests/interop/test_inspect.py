"""Inspect export: samples round-trip to the items, prompt content, task file, offline mock eval."""

import importlib.util
import json
import py_compile
from pathlib import Path

import pytest

from wearbench.bench import load_context, read_items
from wearbench.interop import INSPECT_SAMPLES, INSPECT_TASK, export_inspect, item_data
from wearbench.interop._inspect import _fmt
from wearbench.questions import LETTERS


@pytest.fixture(scope="module")
def exported(mixed_bench: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_inspect(mixed_bench, tmp_path_factory.mktemp("inspect") / "out")


@pytest.fixture(scope="module")
def samples(exported: Path) -> list[dict]:
    lines = (exported / INSPECT_SAMPLES).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_samples_round_trip_to_items(mixed_bench: Path, samples: list[dict]) -> None:
    items = {i.id: i for i in read_items(mixed_bench)}
    assert [s["id"] for s in samples] == sorted(items)
    for s in samples:
        item = items[s["id"]]
        assert set(s) == {"id", "input", "choices", "target", "metadata"}
        assert s["choices"] == [item.options[k] for k in LETTERS]
        assert s["target"] == item.answer
        meta = s["metadata"]
        assert (meta["type"], meta["user_id"], meta["end_date"]) == (item.type, item.user_id, item.end_date)
        assert (meta["reasoning"], meta["signals"], meta["grounding"]) == (
            item.reasoning,
            item.signals,
            item.grounding,
        )
        assert s["input"].rstrip().endswith(item.question)
        assert not any(f"\n{letter}) " in s["input"] for letter in LETTERS)  # options come from the solver


def test_prompt_holds_the_items_data(mixed_bench: Path, samples: list[dict]) -> None:
    items = {i.id: i for i in read_items(mixed_bench)}
    for s in samples[::4]:
        item = items[s["id"]]
        data = item_data(item, load_context(mixed_bench, item.user_id))
        text = s["input"]
        header = "date," + ",".join(data.series)
        assert header in text
        rows = text.split(header + "\n", 1)[1].split("\n\n", 1)[0].splitlines()
        assert len(rows) == item.history_days
        last = rows[-1].split(",")
        assert last[0] == item.end_date
        expected = [_fmt(v[-1]) for v in data.series.values()]
        assert last[1:] == expected
        if data.blood_panel is not None:
            assert f"drawn {data.blood_panel['draw_date']}" in text
            assert f"hba1c,{_fmt(data.blood_panel['hba1c'])},%" in text
        else:
            assert "No blood draw" in text
        assert f"sex: {data.demographics['sex']}" in text


@pytest.mark.parametrize(
    ("value", "text"),
    [(None, ""), (3, "3"), (61.0, "61"), (2.5, "2.5"), (0.12345, "0.123"), (-0.0001, "0"), ("F", "F")],
)
def test_cell_format(value: object, text: str) -> None:
    assert _fmt(value) == text


def test_export_is_deterministic(exported: Path, mixed_bench: Path, tmp_path: Path) -> None:
    again = export_inspect(mixed_bench, tmp_path / "again")
    for name in (INSPECT_SAMPLES, INSPECT_TASK):
        assert (again / name).read_bytes() == (exported / name).read_bytes()


def test_task_file_compiles_and_imports_only_inspect(exported: Path, tmp_path: Path) -> None:
    task_file = exported / INSPECT_TASK
    py_compile.compile(str(task_file), cfile=str(tmp_path / "task.pyc"), doraise=True)
    imports = [line for line in task_file.read_text().splitlines() if line.startswith(("import ", "from "))]
    assert all(line.startswith(("from inspect_ai", "from pathlib ")) for line in imports), imports


@pytest.mark.parametrize(("shift", "accuracy"), [(0, 1.0), (1, 0.0)])
def test_mock_model_is_scored_by_letter(
    exported: Path, samples: list[dict], tmp_path: Path, shift: int, accuracy: float
) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    outputs = []
    for s in samples[:3]:
        letter = LETTERS[(LETTERS.index(s["target"]) + shift) % len(LETTERS)]
        out = ModelOutput.from_content("mockllm/model", f"ANSWER: {letter}")
        out.usage = ModelUsage(input_tokens=100, output_tokens=3, total_tokens=103)
        outputs.append(out)
    spec = importlib.util.spec_from_file_location("wearbench_task", exported / INSPECT_TASK)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    logs = inspect_eval(
        module.wearbench(),
        model=get_model("mockllm/model", custom_outputs=outputs),
        limit=3,
        max_samples=1,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert logs[0].status == "success", logs[0].error
    assert logs[0].results is not None
    assert logs[0].results.scores[0].metrics["accuracy"].value == accuracy
    assert [s.id for s in logs[0].samples or []] == [s["id"] for s in samples[:3]]
