"""Cost of HealthLoopQA prompts on the local model: gemma3-270m on llama.cpp's server (``docs/cgm-eval.md``).

Starts ``wearbench.models.llama_server`` with ``--n-ctx`` (and, with ``--logits-all``, the
server's own default ``--logits_all True`` instead of wearbench's ``False``), sends the prompt of
the first ``pd_1`` item of BENCH (``--prompt``, ``--days``; ``--chars`` cuts the user message to
that many characters) with ``max_tokens`` 4, and prints the server's start time, the prompt's
tokens as the server counts them, the call's wall time and the server's resident memory after it.

Run: ``python benchmarks/llama_server_cost.py BENCH [--n-ctx 4096] [--prompt structured]
[--days 1] [--chars N] [--logits-all]`` (a prompt of 8,000 tokens takes minutes on 2 busy cores).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any
from unittest import mock

from wearbench.cgmqa import read_cgm_items
from wearbench.models import gemma_model_path, llama_server
from wearbench.prompts import cgm_prompt


def _ask(url: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    body = json.dumps({"model": "gemma", "messages": messages, "max_tokens": 4, "temperature": 0}).encode()
    request = urllib.request.Request(
        url + "/chat/completions", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=3600) as response:
        out: dict[str, Any] = json.loads(response.read())
        return out


def _rss_mib(port: str) -> float:
    """Resident memory of the process listening on ``port`` (Linux ``/proc``), MiB."""
    for proc in Path("/proc").iterdir():
        try:
            if f"--port\0{port}\0" in (proc / "cmdline").read_text():
                status = (proc / "status").read_text()
                return int(status.split("VmRSS:")[1].split()[0]) / 1024
        except (OSError, IndexError):
            continue
    return float("nan")


def main() -> None:
    """Start the server, send one prompt, print the measurements."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bench", type=Path)
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--prompt", choices=("structured", "timelined"), default="structured")
    parser.add_argument("--days", type=int, default=1)
    parser.add_argument("--chars", type=int, default=None, help="Cut the user message to N characters.")
    parser.add_argument("--logits-all", action="store_true", help="The server's default logits_all True.")
    args = parser.parse_args()

    item = next(i for i in read_cgm_items(args.bench) if i["template"] == "pd_1")
    messages = [m.to_dict() for m in cgm_prompt(args.prompt)(item, args.bench, args.days)]
    if args.chars is not None:
        messages[1]["content"] = str(messages[1]["content"])[: args.chars]
    popen = subprocess.Popen

    def server(command: list[str], *a: Any, **k: Any) -> subprocess.Popen[bytes]:
        if args.logits_all:
            command = [
                ("True" if i and command[i - 1] == "--logits_all" else c) for i, c in enumerate(command)
            ]
        return popen(command, *a, **k)

    started = time.perf_counter()
    with (
        mock.patch.object(subprocess, "Popen", server),
        llama_server(gemma_model_path(), n_ctx=args.n_ctx) as url,
    ):
        start_s = time.perf_counter() - started
        t = time.perf_counter()
        out = _ask(url, messages)
        call_s = time.perf_counter() - t
        port = url.split(":")[2].split("/")[0]
        rss = _rss_mib(port)
    print(
        f"n_ctx {args.n_ctx}, logits_all {args.logits_all}, {args.prompt} {args.days} day(s) "
        f"of {item['id']}: "
        f"start {start_s:.1f} s, {out['usage']['prompt_tokens']:,} prompt tokens in {call_s:.1f} s, "
        f"server RSS {rss:,.0f} MiB; load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
