"""Evaluation throughput against a real local model, and prompt size per representation.

1. Items per second through the whole harness (prompt → HTTP → llama.cpp's OpenAI-compatible
   server on the bundled Gemma 3 270M → parse → SQLite) at concurrency 1, 2 and 4, beside a
   plain sequential loop that sends the same prompts with the ``openai`` client directly (the
   reference a hand-written script would be). Each concurrency level uses a fresh run folder,
   so no answer comes from the response cache. Items show the 28-day window as CSV (the full
   history does not fit the model's context).
2. Prompt tokens per item for every representation (real Gemma 3 tokenizer when installed),
   full 500-day history, with the CSV / row-wise ratio beside the official release's file sizes
   (WearableQA CSV ≈ 132 MB vs row-wise ≈ 306 MB: 0.43).

Run: ``python benchmarks/eval.py`` (needs the ``[local]`` extra).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

N_ITEMS = 8
CONCURRENCY = (1, 2, 4)
OFFICIAL_CSV_MB, OFFICIAL_ROW_MB = 132.0, 306.0
TEXT_REPRS = ("row", "column", "csv", "markdown", "csv+stats", "markdown+stats")
IMAGE_REPRS = ("plot", "plot-grouped")


def _bench(root: Path, n_users: int, n_days: int) -> Path:
    import wearbench
    from wearbench.bench import build_benchmark

    wearbench.synth(n_users, n_days, seed=0, reference_users=500, out=root / "cohort")
    build_benchmark(root / "cohort", root / "bench", seed=0)
    return root / "bench"


def _reference_loop(bench: Path, url: str) -> float:
    """Seconds for a plain sequential loop: same prompts, the openai client, no store, no parsing."""
    from openai import OpenAI

    from wearbench.bench import load_context, read_items
    from wearbench.prompts import build_messages
    from wearbench.runner import Setting, select_items

    setting = Setting("csv", "direct", ("no_history",))
    items = select_items(read_items(bench), N_ITEMS)
    prompts = [build_messages(i, load_context(bench, i.user_id), setting, vision=False) for i in items]
    client = OpenAI(base_url=url, api_key="sk-no-key-required")
    start = time.perf_counter()
    for messages in prompts:
        client.chat.completions.create(
            model="gemma", messages=[{"role": m.role, "content": m.text} for m in messages],  # type: ignore[misc]
            max_tokens=8, temperature=0.0, seed=0,
        )  # fmt: skip
    return time.perf_counter() - start


def throughput(bench: Path) -> None:
    from wearbench.models import GenerateConfig, gemma_model_path, llama_server
    from wearbench.runner import Setting, evaluate

    config = GenerateConfig(max_tokens=8, timeout_s=600)
    setting = Setting("csv", "direct", ("no_history",))
    with llama_server(gemma_model_path(), n_ctx=4096) as url, tempfile.TemporaryDirectory() as tmp:
        reference = _reference_loop(bench, url)
        print(f"reference sequential loop (openai client): {N_ITEMS / reference:6.3f} items/s")
        for k in CONCURRENCY:
            start = time.perf_counter()
            evaluate(bench, f"openai:gemma@{url}", Path(tmp) / f"c{k}", setting=setting, limit=N_ITEMS,
                     concurrency=k, config=config)  # fmt: skip
            seconds = time.perf_counter() - start
            print(
                f"wearbench eval, concurrency {k}: {N_ITEMS / seconds:6.3f} items/s "
                f"({N_ITEMS} items in {seconds:5.1f} s; ratio to reference {reference / seconds:4.2f})"
            )


def prompt_sizes(bench: Path) -> None:
    from wearbench.bench import load_context, read_items
    from wearbench.prompts import build_messages, prompt_tokens
    from wearbench.runner import Setting, select_items

    items = [i for i in read_items(bench) if i.history_days >= 400]
    items = select_items(items, 12)
    contexts = {i.user_id: load_context(bench, i.user_id) for i in items}
    sizes: dict[str, float] = {}
    counter = ""
    for name in (*TEXT_REPRS, *IMAGE_REPRS):
        counts = []
        for item in items:
            messages = build_messages(item, contexts[item.user_id], Setting(name), vision=True)
            count = prompt_tokens(messages)
            counts.append(count.n)
            counter = count.counter
        sizes[name] = statistics.mean(counts)
        print(f"prompt tokens per item, {name:<15} {sizes[name]:>9,.0f}")
    hist = statistics.mean(i.history_days for i in items)
    print(f"({len(items)} items, mean history {hist:.0f} days; tokenizer: {counter}; images 258 tokens each)")
    print(
        f"CSV / row-wise size: {sizes['csv'] / sizes['row']:.2f} here vs "
        f"{OFFICIAL_CSV_MB / OFFICIAL_ROW_MB:.2f} in the official release "
        f"({OFFICIAL_CSV_MB:g} / {OFFICIAL_ROW_MB:g} MB)"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        bench = _bench(Path(tmp), 20, 500)
        prompt_sizes(bench)
        throughput(bench)


if __name__ == "__main__":
    main()
