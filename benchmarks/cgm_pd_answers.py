"""Answer shares of the counterfactual PD templates over every candidate of a simulated folder.

For each template of ``--templates`` (default pd_3, pd_9, pd_15) and each patient of ``FOLDER``,
every candidate params (every "now" the sampler offers) is answered after one
``prefetch_counterfactuals``. Printed per template: answered / candidates, the count of each
answer, and the score of the no-data prior (always the most common answer), in %. A template
whose prior scores near 100 asks a question whose answer the model can guess without the data.

Run: ``python benchmarks/cgm_pd_answers.py FOLDER`` (FOLDER from ``wearbench cgm simulate
--profile healthloopqa``; about 1 min for 20 patients x 30 days on 2 cores).
"""

from __future__ import annotations

import argparse
import collections
import time

from wearbench.cgmqa import get_template, read_records
from wearbench.cgmqa.pd import prefetch_counterfactuals


def main() -> None:
    """Parse the arguments and print one line per template."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", help="a simulated folder (re-simulated for the counterfactuals)")
    ap.add_argument("--templates", default="pd_3,pd_9,pd_15", help="comma-separated PD template ids")
    args = ap.parse_args()
    ids = args.templates.split(",")
    t0 = time.perf_counter()
    records = read_records(args.folder, rerun=True)
    prefetch_counterfactuals(records, ids)
    print(f"{len(records)} patients, re-simulated and prefetched in {time.perf_counter() - t0:.1f} s")
    for tid in ids:
        t = get_template(tid)
        counts: collections.Counter[str] = collections.Counter()
        candidates = 0
        for r in records:
            for params in t.candidates(r):
                candidates += 1
                answer = t.answer(r, params)
                if answer is not None:
                    counts[str(answer)] += 1
        answered = sum(counts.values())
        prior = 100.0 * max(counts.values()) / answered if answered else float("nan")
        shares = ", ".join(f"{k} {v}" for k, v in counts.most_common())
        print(f"{tid}: {answered}/{candidates} answered ({shares}); majority prior {prior:.1f} %")


if __name__ == "__main__":
    main()
