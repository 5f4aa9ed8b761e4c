"""Health readings against planted truth: regenerate the table of docs/health-readings.md.

Builds (or loads) the default synthetic cohort, runs :func:`wearbench.audit.readings_table`
(PPV of every reading and cause option against ``ground_truth.json``; rate on a
cross-user-permuted copy) and rewrites the generated table between the markers of
``docs/health-readings.md``.

Run: ``python benchmarks/readings_ppv.py [--cohort DIR]`` (default: ``wearbench.synth()``,
200 users x 500 days, seed 0; about 2-3 minutes on 2 cores).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import wearbench
from wearbench.audit import readings_table
from wearbench.cohort import load_cohort

DOC = Path(__file__).resolve().parent.parent / "docs" / "health-readings.md"
BEGIN, END = "<!-- readings-table:begin -->", "<!-- readings-table:end -->"


def main() -> None:
    """Regenerate the table and write it into the doc."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cohort", type=Path, help="cohort folder (default: synthesise the default)")
    args = parser.parse_args()
    cohort = load_cohort(args.cohort) if args.cohort else wearbench.synth()
    table = readings_table(cohort)
    text = DOC.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(f"{head}{BEGIN}\n{table.to_markdown()}{END}{tail}", encoding="utf-8")
    print(table.to_markdown())


if __name__ == "__main__":
    main()
