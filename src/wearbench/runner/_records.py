"""What one evaluation run is (model × setting on a benchmark) and what it stores per item."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from wearbench.prompts import Setting


@dataclass(frozen=True)
class RunInfo:
    """One run: a model under one setting on one benchmark.

    Attributes:
        run_id: Deterministic id of (model, setting, params, benchmark hash): re-running the same
            command resumes the same run.
        model: Model spec (``openai:…``, ``baseline:random`` …).
        setting: The setting.
        params: Generation parameters that change answers (max_tokens, temperature, seed …).
        bench: Benchmark folder as given.
        bench_hash: sha256 of the benchmark's ``items.jsonl``.
        n_items: Items the run covers (after ``--limit``).
    """

    run_id: str
    model: str
    setting: Setting
    params: Mapping[str, Any]
    bench: str
    bench_hash: str
    n_items: int

    @staticmethod
    def make_id(
        model: str, setting: Setting, params: Mapping[str, Any], bench_hash: str, n_items: int
    ) -> str:
        """The deterministic run id."""
        blob = json.dumps([model, setting.key(), dict(params), bench_hash, n_items], sort_keys=True)
        return "run-" + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class ResultRow:
    """One item answered by one model under one setting (one row of the run store).

    Attributes:
        run_id: Run.
        item_id: Item.
        user_id: The item's user (for per-user bootstrap).
        model: Model spec.
        setting: :meth:`Setting.key`.
        prompt_hash: sha256 of (model, prompt messages, params).
        response: Final response text ("" if none).
        letter: Parsed option letter, or None when unparseable/empty/errored.
        correct: Whether ``letter`` is the item's answer (None or wrong letter: False).
        parse_failed: A response came back but no single letter could be parsed from it.
        prompt_tokens: Prompt tokens (provider-reported, summed over turns), else our count.
        completion_tokens: Completion tokens (provider-reported, summed), if known.
        cost_usd: Cost, if the price is known.
        latency_s: Wall time for the item, seconds.
        retries: Transient failures retried.
        error: Why no answer came back (model error after retries, sandbox failure), if so.
        transcript: JSON list of the messages exchanged (agent and multiview turns included).
        cached: The response came from the response cache.
    """

    run_id: str
    item_id: str
    user_id: str
    model: str
    setting: str
    prompt_hash: str
    response: str
    letter: str | None
    correct: bool
    parse_failed: bool
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    latency_s: float = 0.0
    retries: int = 0
    error: str | None = None
    transcript: str = "[]"
    cached: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        out = asdict(self)
        out["extra"] = dict(self.extra)
        return out


@dataclass(frozen=True)
class Judgement:
    """One answer of a HealthLoopQA run graded by an LLM judge (one row of ``judgements``).

    The key is (``run_id``, ``item_id``, ``judge``, ``prompt_version``): a second judge, or a
    new judge prompt, grades the same answer again beside the first.

    Attributes:
        run_id: The judged run.
        item_id: The judged item.
        user_id: The item's patient (for a patient-clustered bootstrap).
        judge: Canonical spec of the judge model.
        prompt_version: Version of the judge prompt (``runner.JUDGE_PROMPT_VERSION``).
        instruction_following: 1-5, or None when the reply was not a valid judgement.
        reasoning_quality: 1-5, or None.
        format_compliance: 1-5, or None.
        failure_types: The failure types the judge named (empty: none).
        rationale: The judge's one-line reason ("" if it gave none).
        parse_failed: A reply came back but it is not a valid judgement (scores stay None).
        parse_error: Why the reply is not a valid judgement, if so.
        response: The judge's raw reply ("" on a model error).
        error: Why no reply came back (model error after retries), if so; retried on the next call.
        prompt_hash: sha256 of (judge, messages, params): the response-cache key.
        prompt_tokens: Prompt tokens, as reported by the provider.
        completion_tokens: Completion tokens, as reported.
        cost_usd: Cost, if the price is known.
        latency_s: Wall time of the call, seconds.
        cached: The reply came from the response cache.
    """

    run_id: str
    item_id: str
    user_id: str
    judge: str
    prompt_version: str
    instruction_following: int | None
    reasoning_quality: int | None
    format_compliance: int | None
    failure_types: tuple[str, ...]
    rationale: str
    parse_failed: bool
    parse_error: str | None
    response: str
    error: str | None = None
    prompt_hash: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    latency_s: float = 0.0
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        out = asdict(self)
        out["failure_types"] = list(self.failure_types)
        return out
