"""Fabricated evaluation runs over a real benchmark, for the report tests and the docs screenshot."""

import hashlib
from collections.abc import Sequence
from pathlib import Path

from wearbench.questions import LETTERS, Item
from wearbench.runner import ResultRow, RunInfo, Setting

HOSTILE = "Thinking…\n<script>alert(1)</script></pre><b>bold?</b> & so on.\nAnswer: "


def _u(*parts: object) -> float:
    """Deterministic uniform in [0, 1) from the parts."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _letter(*parts: object) -> str:
    return LETTERS[int(_u(*parts) * len(LETTERS))]


def _row(info: RunInfo, item: Item, response: str, letter: str | None, **kw: object) -> ResultRow:
    return ResultRow(
        run_id=info.run_id,
        item_id=item.id,
        user_id=item.user_id,
        model=info.model,
        setting=info.setting.key(),
        prompt_hash=hashlib.sha256(f"{info.run_id}|{item.id}".encode()).hexdigest(),
        response=response,
        letter=letter,
        correct=letter == item.answer,
        parse_failed=letter is None and "error" not in kw,
        **kw,  # type: ignore[arg-type]
    )


def _info(model: str, setting: Setting, bench: Path, n_items: int, limit: int | None = None) -> RunInfo:
    params = {"max_tokens": 256, "temperature": 0.0, "seed": 0, "limit": limit}
    digest = hashlib.sha256((bench / "items.jsonl").read_bytes()).hexdigest()
    run_id = RunInfo.make_id(model, setting, params, digest, n_items)
    return RunInfo(run_id, model, setting, params, str(bench), digest, n_items)


def data_expert(items: Sequence[Item], bench: Path) -> tuple[RunInfo, list[ResultRow]]:
    """Right on data items, a random letter on health items; known tokens and cost."""
    info = _info("fake:data-expert", Setting("csv", "direct"), bench, len(items))
    rows = []
    for it in items:
        x = it.answer if it.reasoning == "data" else _letter("expert", it.id)
        rows.append(_row(info, it, f"Answer: {x}", x, prompt_tokens=900 + len(it.question),
                         completion_tokens=3, cost_usd=0.0005, latency_s=0.5))  # fmt: skip
    return info, rows


def letter_a_fan(items: Sequence[Item], bench: Path) -> tuple[RunInfo, list[ResultRow]]:
    """Mostly picks A, sometimes unparsable, one error, hostile text in every rationale; no cost."""
    info = _info("fake:letter-a", Setting("markdown", "cot"), bench, len(items))
    rows = []
    for n, it in enumerate(items):
        u = _u("fan", it.id)
        if n == 3:
            rows.append(_row(info, it, "", None, error="HTTP 500 after 5 retries", latency_s=9.0))
        elif u < 0.08:
            rows.append(_row(info, it, HOSTILE + "maybe C, maybe D", None, prompt_tokens=1200, latency_s=2.0))
        else:
            x = "A" if u < 0.6 else it.answer if u < 0.8 else _letter("fan2", it.id)
            rows.append(
                _row(info, it, HOSTILE + x, x, prompt_tokens=1200, completion_tokens=180, latency_s=2.0)
            )
    return info, rows


def oracle_subset(items: Sequence[Item], bench: Path, keep: int) -> tuple[RunInfo, list[ResultRow]]:
    """Right on every item of the first ``keep`` items (by id), with the blood panel ablated."""
    chosen = sorted(items, key=lambda i: i.id)[:keep]
    info = _info("baseline:oracle", Setting("csv", "direct", ("no_blood",)), bench, len(items))
    return info, [_row(info, it, f"Answer: {it.answer}", it.answer, cost_usd=0.0) for it in chosen]


def fake_runs(items: Sequence[Item], bench: Path) -> list[tuple[RunInfo, list[ResultRow]]]:
    """Three runs: a data expert, a letter-A fan and a partial oracle."""
    return [
        data_expert(items, bench),
        letter_a_fan(items, bench),
        oracle_subset(items, bench, len(items) // 2),
    ]
