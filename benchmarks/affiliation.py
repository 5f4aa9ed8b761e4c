"""Accuracy and speed of wearbench's affiliation metric against tsadmetrics (the authors' method).

For ``--n`` random interval sets (1-6 intervals a side over 30 days of minutes, ends on whole
minutes or a 1/64-minute grid, seeded) both implementations get the same cleaned events and time
range; the script prints the largest difference between them and of each from exact rational
arithmetic (our kernel run on ``fractions.Fraction``), then the same against exact values for
sub-microsecond intervals (ends 1e-9 minutes apart), and the time per call of each.

Run: ``python benchmarks/affiliation.py`` (about 1 s; needs the dev extra for tsadmetrics).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from fractions import Fraction

from tsadmetrics.utils.functions_affiliation import pr_from_events

from wearbench.scoring import Interval, affiliation_from_events, clean_intervals

MINUTES = 30 * 1440


def _events(rng: random.Random, tiny: bool) -> list[Interval]:
    def end() -> float:
        if tiny and rng.random() < 0.5:
            return 1000 + rng.uniform(0, 1e-9)
        x = rng.uniform(0, MINUTES)
        return float(round(x)) if rng.random() < 0.5 else round(x * 64) / 64

    while True:
        got = clean_intervals([(end(), end()) for _ in range(rng.randint(1, 6))])
        if got:
            return got


def _exact(p: list[Interval], t: list[Interval], span: Interval) -> tuple[Fraction, Fraction]:
    fr = [[(Fraction(a), Fraction(b)) for a, b in side] for side in (p, t)]
    got = affiliation_from_events(fr[0], fr[1], (Fraction(span[0]), Fraction(span[1])))
    return Fraction(got.precision), Fraction(got.recall)


def _gap(a: list[tuple[float, float]], b: Sequence[tuple[Fraction | float, Fraction | float]]) -> float:
    """Largest difference in precision or recall between two lists of (P, R)."""
    return max(float(max(abs(x[0] - y[0]), abs(x[1] - y[1]))) for x, y in zip(a, b, strict=True))


def _run(n: int, seed: int, tiny: bool) -> None:
    rng = random.Random(seed)
    cases = [(_events(rng, tiny), _events(rng, tiny)) for _ in range(n)]
    spans = [(min(p[0][0], t[0][0]), max(p[-1][1], t[-1][1])) for p, t in cases]
    start = time.process_time()
    ours = [affiliation_from_events(p, t, s) for (p, t), s in zip(cases, spans, strict=True)]
    t_ours = time.process_time() - start
    start = time.process_time()
    ref = [pr_from_events(p, t, s) for (p, t), s in zip(cases, spans, strict=True)]
    t_ref = time.process_time() - start
    exact = [_exact(p, t, s) for (p, t), s in zip(cases, spans, strict=True)]
    ours_pr = [(o.precision, o.recall) for o in ours]
    ref_pr = [(r["precision"], r["recall"]) for r in ref]
    d_ref, d_ours, d_refx = _gap(ours_pr, ref_pr), _gap(ours_pr, exact), _gap(ref_pr, exact)
    label = "sub-microsecond intervals" if tiny else "minute / 1/64-minute ends"
    print(f"{label}, {n} sets (seed {seed}):")
    print(f"  max |ours - tsadmetrics| over P and R: {d_ref:.3g}")
    print(f"  max |ours - exact|: {d_ours:.3g}; max |tsadmetrics - exact|: {d_refx:.3g}")
    print(f"  time per call: ours {1e6 * t_ours / n:.0f} us, tsadmetrics {1e6 * t_ref / n:.0f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    _run(args.n, args.seed, tiny=False)
    _run(args.n, args.seed, tiny=True)


if __name__ == "__main__":
    main()
