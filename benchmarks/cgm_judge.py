"""The LLM judge on the local model: ``wearbench cgm judge`` over a naive-mean run (``docs/cgm-judge.md``).

Runs ``baseline:naive-mean`` on BENCH into ``--out``, starts llama.cpp's OpenAI-compatible server
on the bundled Gemma 3 270M, and judges ``--limit`` answers of the run through the command line
(text, then JSON), timing each call. A second call shows the resume (0 judged). Gemma 3 270M is
far too small to judge: this measures the plumbing (prompt size, parse failures, time per
judgement), not judging quality.

Run: ``python benchmarks/cgm_judge.py BENCH --out RUNDIR [--limit 10] [--max-tokens 64]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from wearbench.models import gemma_model_path, llama_server
from wearbench.runner import RunStore, evaluate


def _judge(out: Path, url: str, limit: int, max_tokens: int, fmt: str) -> tuple[str, float]:
    command = [sys.executable, "-m", "wearbench", "cgm", "judge", str(out), "--model", f"openai:gemma@{url}",
               "--limit", str(limit), "--concurrency", "1", "--max-tokens", str(max_tokens),
               "--format", fmt, "-q"]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(done.stderr)
    return done.stdout, time.perf_counter() - started


def main() -> None:
    """Evaluate naive-mean, judge ``--limit`` of its answers twice; print outputs and timings."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bench", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--max-tokens", type=int, default=64)
    args = parser.parse_args()
    run = evaluate(args.bench, "baseline:naive-mean", args.out)
    with llama_server(gemma_model_path()) as url:
        text, first_s = _judge(args.out, url, args.limit, args.max_tokens, "text")
        data, again_s = _judge(args.out, url, args.limit, args.max_tokens, "json")
    print(f"$ wearbench cgm judge RUNDIR --model openai:gemma@URL --limit {args.limit} "
          f"--concurrency 1 --max-tokens {args.max_tokens}   # {first_s:.1f} s")  # fmt: skip
    print(text)
    print(f"second call (--format json): judged {json.loads(data)['judged']} in {again_s:.1f} s")
    with RunStore(args.out) as store:
        rows = store.judgements(run.info.run_id)
    tokens = [r.prompt_tokens for r in rows if r.prompt_tokens is not None]
    print(f"prompt tokens per judgement: {min(tokens)}-{max(tokens)}; "
          f"latency per judgement: {sum(r.latency_s for r in rows) / len(rows):.1f} s (mean)")  # fmt: skip
    for reason in sorted({r.parse_error for r in rows if r.parse_error}):
        print(f"parse failure: {reason} ({sum(r.parse_error == reason for r in rows)})")
    print("first reply:", json.dumps(rows[0].response[:300]))


if __name__ == "__main__":
    main()
