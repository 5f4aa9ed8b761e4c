"""Runner end to end over HTTP (the FAKE OpenAI-compatible server): modes, cache, faults."""

import json
from pathlib import Path

from tests.fake_openai import fake_openai_server

from wearbench.bench import read_items
from wearbench.models import GenerateConfig
from wearbench.runner import ResultRow, RunStore, Setting, evaluate

FAST = GenerateConfig(max_tokens=64, max_retries=3, backoff_s=0.0, timeout_s=20)


def _rows(rundir: Path, run_id: str) -> list[ResultRow]:
    with RunStore(rundir) as store:
        return store.rows(run_id)


def test_direct_and_cot_store_parsed_letters_and_token_counts(small_bench: Path, tmp_path: Path) -> None:
    with fake_openai_server() as (url, state):
        for mode in ("direct", "cot"):
            run = evaluate(small_bench, f"openai:fake@{url}", tmp_path, setting=Setting("csv", mode),
                           limit=6, config=FAST)  # fmt: skip
            rows = _rows(tmp_path, run.info.run_id)
            assert len(rows) == 6
            for r in rows:
                assert r.error is None
                assert r.letter == r.response[-1]  # the fake ends with "Answer: X"
                assert r.prompt_tokens is not None
                assert r.prompt_tokens > 100  # provider-reported
                assert r.extra["prompt_tokens_counted"] > 100  # our own count, always stored
                assert r.retries == 0
                assert json.loads(r.transcript)[-1]["role"] == "assistant"
        assert state.requests == 12


def test_agent_mode_runs_model_code_in_the_sandbox(small_bench: Path, tmp_path: Path) -> None:
    with fake_openai_server() as (url, _):
        run = evaluate(small_bench, f"openai:fake@{url}", tmp_path, setting=Setting("csv", "agent"),
                       limit=2, config=FAST)  # fmt: skip
    for r in _rows(tmp_path, run.info.run_id):
        assert r.error is None
        assert r.extra["agent_steps"] == 1
        tool = [m for m in json.loads(r.transcript) if m["role"] == "tool"]
        assert len(tool) == 1
        assert ", 16)" in tool[0]["content"]  # df.shape printed by the sandboxed code: (days, 16 metrics)
        assert r.letter is not None


def test_multiview_uses_the_model_s_choice(small_bench: Path, tmp_path: Path) -> None:
    with fake_openai_server() as (url, state):
        run = evaluate(small_bench, f"openai:fake@{url}", tmp_path, setting=Setting("csv", "multiview"),
                       limit=3, config=FAST)  # fmt: skip
        assert state.requests == 6  # two turns per item
    for r in _rows(tmp_path, run.info.run_id):
        assert r.extra["representation_choice"] == "markdown"
        assert r.extra["choice_fallback"] is False
        assert "| date |" in r.transcript  # the second turn shows the data as a markdown table


def test_identical_calls_come_from_the_response_cache(small_bench: Path, tmp_path: Path) -> None:
    with fake_openai_server() as (url, state):
        evaluate(small_bench, f"openai:fake@{url}", tmp_path, limit=5, config=FAST)
        bigger = evaluate(small_bench, f"openai:fake@{url}", tmp_path, limit=6, config=FAST)
        assert state.requests == 6  # the five shared prompts were not sent again
    rows = _rows(tmp_path, bigger.info.run_id)
    assert sum(r.cached for r in rows) == 5


def test_http_faults_are_retried_or_counted_and_the_run_completes(small_bench: Path, tmp_path: Path) -> None:
    items = sorted(read_items(small_bench), key=lambda i: i.id)
    doomed = items[0]
    # every request first meets a 429, a 500, a garbage 200 and a 503 (spread over the first
    # calls), and one item's requests always fail
    faults = {"": [429, 500, 0, 503]}
    config = GenerateConfig(max_tokens=64, max_retries=5, backoff_s=0.0, timeout_s=20)
    with fake_openai_server(faults=faults, always_fail={doomed.question}) as (url, _):
        run = evaluate(small_bench, f"openai:fake@{url}", tmp_path, limit=len(items), config=config,
                       concurrency=1)  # fmt: skip
        rows = _rows(tmp_path, run.info.run_id)
        assert len(rows) == len(items)
        failed = [r for r in rows if r.error]
        assert [r.item_id for r in failed] == [doomed.id]
        assert "gave up after 5 retries" in (failed[0].error or "")
        assert not failed[0].correct
        assert sum(r.retries for r in rows if not r.error) == 4
        again = evaluate(small_bench, f"openai:fake@{url}", tmp_path, limit=len(items), config=config)
    # only the errored item is asked again; it fails again, so nothing new is answered
    assert (again.retried, again.answered, again.errored) == (1, 0, 1)
