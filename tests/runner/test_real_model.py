"""A real model end to end: llama.cpp's OpenAI-compatible server on Gemma 3 270M.

Prompts go over HTTP, answers are parsed, stored, scored and reported. The model is near chance
on these questions (it mostly echoes the prompt): this checks the pipeline, not the model.
"""

from pathlib import Path

from wearbench.bench import read_items
from wearbench.models import GenerateConfig
from wearbench.report import report_runs
from wearbench.runner import RunStore, Setting, evaluate
from wearbench.scoring import score_run


def test_llama_server_eval_end_to_end(small_bench: Path, llama_base_url: str, tmp_path: Path) -> None:
    config = GenerateConfig(max_tokens=8, timeout_s=300, max_retries=1)
    setting = Setting("csv", "direct", ("no_history",))  # the 28-day window fits the 4k context
    run = evaluate(small_bench, f"openai:gemma@{llama_base_url}", tmp_path, setting=setting, limit=3,
                   config=config, concurrency=2)  # fmt: skip
    assert run.answered == 3
    with RunStore(tmp_path) as store:
        rows = store.rows(run.info.run_id)
    assert [r.error for r in rows] == [None, None, None]
    for r in rows:
        assert r.prompt_tokens is not None
        assert r.prompt_tokens > 500  # reported by the server for a 28-day CSV prompt
        assert r.completion_tokens is not None
        assert 0 < r.completion_tokens <= 8
        assert r.cost_usd is None  # a local server has no price
        assert r.parse_failed == (r.letter is None)
    items = {i.id: i for i in read_items(small_bench)}
    score = score_run(rows, {r.item_id: items[r.item_id] for r in rows})
    assert score.overall.n == 3
    assert score.parse_failures == sum(r.parse_failed for r in rows)
    html = report_runs([tmp_path], tmp_path / "report.html").read_text()
    assert "openai:gemma@" in html
