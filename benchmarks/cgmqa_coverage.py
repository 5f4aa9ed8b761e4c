"""How many patients of a CGM folder have an answer for each registered CGM template.

    python benchmarks/cgmqa_coverage.py FOLDER [FOLDER ...] [--family pm]

Prints, per folder, the patients with an answer (a draw that is not None) per template, the
templates answered for every patient, and the read + draw time.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from wearbench.cgmqa import read_records, templates


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folders", nargs="+")
    parser.add_argument("--family", default="pm")
    args = parser.parse_args()
    for folder in args.folders:
        t0 = time.perf_counter()
        records = read_records(folder)
        found = {}
        for t in templates(args.family):
            found[t.id] = sum(t.draw(r, np.random.default_rng(0)) is not None for r in records)
        seconds = time.perf_counter() - t0
        n = len(records)
        full = [k for k, v in found.items() if v == n]
        partial = {k: v for k, v in found.items() if v < n}
        print(f"{folder}: {n} patients, {len(found)} templates, {seconds:.1f} s")
        print(f"  answered for every patient: {len(full)}")
        print(f"  answered for fewer: {partial}")


if __name__ == "__main__":
    main()
