"""Independent validity checks of a benchmark folder: prompt-only solver and text-level option checker.

For every item the prompt-only solver (``tests/validity/solvers``) reads only the rendered
prompt (csv representation, direct mode), re-derives the answer with its own numpy/scipy code
and picks the matching option; the text-level option checker (``tests/validity/options.py``)
judges each option's text against the item's evidence numbers and must find exactly the key
true. Printed per type: items, solved share and its Wilson 95% CI, option-check pass share and
its CI, and the types listed as known failures (``tests/validity/expected.py``) with their
reason; ``--misses N`` also prints up to N missed item ids per type with the reason.

Run: ``python benchmarks/validity.py BENCH_DIR [--types a,b] [--misses 5]``.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.validity.expected import DEFECTS, OPTION_CHECKER_FAILURES, SOLVER_FAILURES
from tests.validity.options import CHECKERS, true_options
from tests.validity.score import solve_bench

from wearbench.bench import read_items
from wearbench.scoring import wilson_interval


def _cell(k: int, n: int) -> str:
    if n == 0:
        return "-"
    lo, hi = wilson_interval(k, n)
    return f"{k / n:6.1%} [{lo:5.1%}–{hi:5.1%}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench", type=Path)
    parser.add_argument("--types", default="", help="comma-separated types (default: all)")
    parser.add_argument("--misses", type=int, default=0, help="missed item ids shown per type")
    args = parser.parse_args()
    wanted = [t for t in args.types.split(",") if t] or None
    items = [i for i in read_items(args.bench) if wanted is None or i.type in wanted]
    tally = solve_bench(args.bench, wanted)
    checked: Counter[str] = Counter()
    check_miss: dict[str, list[str]] = {}
    for item in items:
        if item.type in CHECKERS:
            hits = true_options(item)
            if hits == [item.answer]:
                checked[item.type] += 1
            else:
                check_miss.setdefault(item.type, []).append(f"{item.id} true={hits} key={item.answer}")
    print(f"{'type':24} {'n':>5}  {'solver (Wilson 95% CI)':26} {'option check (Wilson 95% CI)':28}")
    for qtype in sorted(tally.total):
        n = tally.total[qtype]
        opt = _cell(checked[qtype], n) if qtype in CHECKERS else "no checker"
        print(f"{qtype:24} {n:5d}  {_cell(tally.right[qtype], n):26} {opt:28}")
        if args.misses:
            for iid, why in tally.wrong[qtype][: args.misses]:
                print(f"    solver miss {iid}: {why}")
            for line in check_miss.get(qtype, [])[: args.misses]:
                print(f"    option miss {line}")
    print("\nknown solver failures (tests/validity/expected.py):")
    for qtype, reason in SOLVER_FAILURES.items():
        print(f"  {qtype}: {reason}")
    print("defects found (rules the stem does not state):")
    for qtype, reason in DEFECTS.items():
        print(f"  {qtype}: {reason}")
    print("known option-checker failures:")
    for qtype, reason in OPTION_CHECKER_FAILURES.items():
        print(f"  {qtype}: {reason}")


if __name__ == "__main__":
    main()
