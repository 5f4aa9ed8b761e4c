"""Time per item of HealthLoopQA's agent baseline, sandbox start included (``docs/cgm-eval.md``, "Agent").

A scripted FAKE chat model (no model time: this measures the harness) answers ``--items`` items
of BENCH (the run's seeded subset, ``--limit`` semantics) one at a time through the agent
solver: per item the per-question CSV files are cut, a bubblewrap sandbox is started and loads
them, the fake's one ``python`` call (the mean glucose) runs in it, the final-answer step is
asked and the sandbox is closed. Printed: the wall time per item (mean, median, max), the time
to start a sandbox and load the files alone, the files' sizes, and the size of the first user
message of the first ``pm_0`` item beside its structured prompt's.

Run: ``python benchmarks/cgm_agent.py BENCH [--items 20] [--context-days 30|7|1]`` (about 1–2 s per item).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

from wearbench.models import GenerateConfig, Message, ModelOutput, ToolCall, ToolSpec
from wearbench.prompts import cgm_messages
from wearbench.runner import open_cgm_bench
from wearbench.runner._cgm_agent import CGMAgentSolver, agent_files, cgm_agent_messages, open_sandbox
from wearbench.runner._cgm_run import select_cgm_items

CODE = "print(round(float(readings['glucose_mgdl'].mean()), 1))"


class ScriptedFakeModel:
    """A FAKE chat model: one ``python`` call (``CODE``), then the printed value as the answer."""

    name = "fake:scripted"
    vision = False
    tools = True

    async def generate(
        self, messages: Sequence[Message], config: GenerateConfig, tools: Sequence[ToolSpec] = ()
    ) -> ModelOutput:
        outputs = [m.text for m in messages if m.role == "tool"]
        if not tools:
            return ModelOutput(text=json.dumps({"answer": float(outputs[-1])}))
        if outputs:
            return ModelOutput(text=f"The mean glucose is {outputs[-1].strip()} mg/dL.")
        return ModelOutput(text="", tool_calls=(ToolCall("c1", "python", json.dumps({"code": CODE})),))

    async def aclose(self) -> None:
        return None


def main() -> None:
    """Answer the items one by one and print the timings."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bench", type=Path)
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--context-days", type=int, default=None, choices=(30, 7, 1))
    args = parser.parse_args()
    every = open_cgm_bench(args.bench)[0]
    items = select_cgm_items(every, args.items, seed=0)
    solver = CGMAgentSolver(ScriptedFakeModel(), None, GenerateConfig(), args.context_days)
    times, steps = [], []
    for item in items:
        started = time.perf_counter()
        answer = asyncio.run(solver.solve(item))
        times.append(time.perf_counter() - started)
        steps.append(answer.extra["agent_steps"])
        if answer.error or not answer.response.startswith('{"answer": '):
            raise SystemExit(f"{item.id}: unexpected answer {answer.response!r} ({answer.error})")
    starts, sizes = [], []
    for item in items[:5]:
        files = agent_files(item.data, item.bench, args.context_days)
        started = time.perf_counter()
        open_sandbox(files).close()
        starts.append(time.perf_counter() - started)
        sizes.append(len(files.readings) + len(files.events))
    print(f"{len(items)} items of {args.bench}, context days {args.context_days or 'all'}, one at a time")
    print(
        "per item (files, sandbox start, 1 tool call, final answer, close): "
        f"mean {statistics.mean(times):.2f} s, median {statistics.median(times):.2f} s, "
        f"max {max(times):.2f} s; total {sum(times):.1f} s; "
        f"agent steps {sorted(set(steps))}"
    )
    print(
        f"sandbox start + loading the files, then close (5 items): mean {statistics.mean(starts):.2f} s; "
        f"CSV files {min(sizes):,}-{max(sizes):,} characters"
    )
    pm0 = next(i for i in every if i.template == "pm_0")
    user = cgm_agent_messages(pm0.data, agent_files(pm0.data, pm0.bench, args.context_days))[1]
    prompt = cgm_messages(pm0.data, pm0.bench, args.context_days)[1]
    print(
        f"first user message of {pm0.id}: {len(user.text):,} characters "
        f"(the structured prompt's: {len(prompt.text):,})"
    )


if __name__ == "__main__":
    main()
