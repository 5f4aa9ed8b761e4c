"""Reference scores of the HealthLoopQA baselines on a built benchmark (``docs/cgm-eval.md``).

Runs ``baseline:oracle`` and every ``naive-*`` baseline on BENCH into ``--out`` (one run store)
and prints, per baseline, the 0–100 item score with its patient-clustered 95% interval, n, parse
failures and the score per family (Markdown), then with ``--templates`` the score of each naive
baseline per template it covers, and the size of the structured and the timelined prompt of the
first ``pm_0`` item in its 30-, 7- and 1-day variants: characters and Gemma 3 tokens (the
system and user messages' text, without the chat template's role markers; ``approx`` where the
tokenizer is not installed). ``--example`` also prints an excerpt of the 1-day timelined prompt
of the first ``pd_1`` item (the example in ``docs/cgm-eval.md``).

Run: ``python benchmarks/cgm_eval.py BENCH --out RUNDIR [--templates] [--example]`` (a few seconds).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from wearbench.cgmqa import read_cgm_items
from wearbench.prompts import CGM_PROMPTS, cgm_prompt, prompt_tokens
from wearbench.runner import evaluate
from wearbench.scoring import score_runs

BASELINES = ("oracle", "naive-last", "naive-mean", "naive-majority", "naive-empty", "naive-allday")


def _f(x: float | None) -> str:
    return "–" if x is None else f"{x:.1f}"


def main() -> None:
    """Evaluate and score every baseline; print the tables."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("bench", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--templates", action="store_true", help="Also print the per-template scores.")
    parser.add_argument("--example", action="store_true", help="Also print a timelined prompt excerpt.")
    args = parser.parse_args()
    results = {}
    for name in BASELINES:
        summary = evaluate(args.bench, f"baseline:{name}", args.out)
        (score,) = score_runs(args.out, summary.info.run_id)
        results[name] = score.to_dict()
    print("| baseline | covers (n) | score [95% CI] | parse failures | PM | AD | PD |")
    print("|---|---|---|---|---|---|---|")
    for name, r in results.items():
        fam = [_f(r["by_family"].get(f, {}).get("score")) for f in ("pm", "ad", "pd")]
        print(
            f"| {name} | {r['n']} | {_f(r['score'])} [{_f(r['ci_low'])}, {_f(r['ci_high'])}] | "
            f"{r['parse_failures']} | " + " | ".join(fam) + " |"
        )
    if args.templates:
        print("\n| template | metric | " + " | ".join(BASELINES[1:]) + " |")
        print("|---|---|" + "---|" * (len(BASELINES) - 1))
        metrics = results["oracle"]["template_metrics"]
        for tid in results["oracle"]["by_template"]:
            cells = [_f(results[b]["by_template"].get(tid, {}).get("score")) for b in BASELINES[1:]]
            print(f"| {tid} | {metrics[tid]['metric']} | " + " | ".join(cells) + " |")

    item = next(i for i in read_cgm_items(args.bench) if i["template"] == "pm_0")
    print(f"\nprompt sizes of {item['id']}:\n\n| prompt | days | characters | Gemma 3 tokens |")
    print("|---|---|---|---|")
    for name in CGM_PROMPTS:
        for days in (30, 7, 1):
            messages = cgm_prompt(name)(item, args.bench, days)
            tokens = prompt_tokens(messages)
            suffix = "" if tokens.counter == "gemma3" else f" ({tokens.counter})"
            print(f"| {name} | {days} | {len(str(messages[1].content)):,} | {tokens.n:,}{suffix} |")
    if args.example:
        _example(args.bench)


def _example(bench: Path) -> None:
    """The 1-day timelined prompt of the first pd_1 item, cut to its first readings, its first
    meal with a line either side, its last readings and the question (each cut marked)."""
    item = next(i for i in read_cgm_items(bench) if i["template"] == "pd_1")
    lines = str(cgm_prompt("timelined")(item, bench, 1)[1].content).splitlines()
    first = lines.index("## Timeline") + 4  # heading, blank, legend, blank
    end = lines.index("## Question") - 1
    event = next(i for i in range(first, end) if "meal" in lines[i])
    keep = sorted({*range(first, first + 3), *range(event - 1, event + 2), *range(end - 2, end)})
    out, last = lines[:first], first - 1
    for i in keep:
        if i > last + 1:
            out.append(f"[… {i - last - 1} lines …]")
        out.append(lines[i])
        last = i
    print(f"\n1-day timelined prompt of {item['id']} (excerpt):\n")
    print("\n".join([*out, *lines[end:]]))


if __name__ == "__main__":
    main()
