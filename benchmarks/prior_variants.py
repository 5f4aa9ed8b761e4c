"""Alternative knowledge priors for the data-reasoning types: each must stay at chance per type.

The build's backstop (:mod:`wearbench.bench._balance`) removes only items the main knowledge
prior (:mod:`wearbench.bench._prior`) answers right; a prior that makes a *different* textbook
guess (a short-sleep night raises resting HR by 0.3–0.6 SD rather than 0.6–0.9; the usual
coupling sign one day earlier) is not seen by it. Each variant here scores options from the
stem and the option claims only (never the evidence or the answer), picks the best (ties by a
seeded hash of item id and option text, as the main prior) and is reported per type with its
Wilson 95% CI. A type passes when every variant's CI includes 0.10 or lies below it.

Run: ``python benchmarks/prior_variants.py BENCH_DIR [--types a,b]``.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wearbench.bench import read_items
from wearbench.bench._prior import USUAL_COUPLING, USUAL_RESPONSE, prior_scores
from wearbench.questions import Item
from wearbench.scoring import wilson_interval

__all__ = ["VARIANTS", "variant_hits"]

Spec = tuple[str, Mapping[str, Any]]
Variant = Callable[[str, Sequence[Spec]], np.ndarray]
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_CHANCE = 0.10


def _each(score: Callable[[str, Mapping[str, Any]], float]) -> Variant:
    """A variant scoring every option on its own (text, claim)."""

    def run(question: str, options: Sequence[Spec]) -> np.ndarray:
        return np.array([score(t, c) for t, c in options], dtype=float)

    return run


def _main(type_name: str) -> Variant:
    return lambda q, opts: prior_scores(type_name, q, opts)


def _usual_effect(bin_: int) -> Variant:
    """The family's usual direction at one size class."""

    def score(text: str, c: Mapping[str, Any]) -> float:
        usual = USUAL_RESPONSE.get(str(c.get("family")))
        return float(c.get("direction") == usual) * 2 + float(c.get("bin") == bin_)

    return _each(score)


def _usual_coupling(offset: int, same_sign: bool = True) -> Variant:
    """The pair's usual sign (or its opposite) at the usual lag plus ``offset`` (driver first)."""

    def score(text: str, c: Mapping[str, Any]) -> float:
        usual = USUAL_COUPLING.get(str(c.get("pair")))
        if usual is None:
            return 0.0
        lag, sign = usual
        forward = str(c["pair"]).split("->")[0] == c["first"]
        want = (lag + offset) if forward else -(lag + offset)
        sign_ok = (c["sign"] == sign) == same_sign
        return 2.0 * sign_ok + float(int(c["lag"]) == want)

    return _each(score)


def _excursions(factor: float, exceed_days: bool = False) -> Variant:
    """Expected runs (or exceedance days) beyond k for independent normal days, times ``factor``."""

    def run(question: str, options: Sequence[Spec]) -> np.ndarray:
        k = re.search(r"z [≥≤] [+−-]?(\d+(?:\.\d+)?)", question)
        span = re.search(r"\((\d+) days\)", question)
        if k is None or span is None:
            return np.zeros(len(options))
        p = 0.5 * math.erfc(float(k.group(1)) / math.sqrt(2))
        expected = factor * int(span.group(1)) * p * (1.0 if exceed_days else 1 - p)
        return np.array([-abs(float(c["lo"]) - expected) for _, c in options])

    return run


def _neighbours(question: str, options: Sequence[Spec]) -> np.ndarray:
    """Options with an adjacent day or month among the options (a layout shortcut)."""
    keys = []
    for _, c in options:
        if "date" in c:
            keys.append(int(np.datetime64(str(c["date"])).astype("int64")))
        elif "period" in c:
            y, m = str(c["period"]).split("-")
            keys.append(int(y) * 12 + int(m))
        else:
            return np.zeros(len(options))
    present = set(keys)
    return np.array([float(k - 1 in present or k + 1 in present) for k in keys])


def _weekday(days: tuple[str, ...]) -> Variant:
    return _each(lambda text, c: float(text.split()[0] in days))


def _date_rank(which: str) -> Variant:
    """Earliest, latest or middle date among date options."""

    def run(question: str, options: Sequence[Spec]) -> np.ndarray:
        keys = np.array([np.datetime64(str(c["date"])).astype("int64") for _, c in options], dtype=float)
        if which == "earliest":
            return -keys
        if which == "latest":
            return keys
        return -np.abs(keys - np.median(keys))

    return run


def _month(months: tuple[int, ...]) -> Variant:
    return _each(lambda text, c: float(int(str(c["period"]).split("-")[1]) in months))


def _concordance(direction: str, bin_: int) -> Variant:
    return _each(lambda text, c: 2.0 * (c.get("direction") == direction) + float(c.get("bin") == bin_))


def _pair_with(metric: str) -> Variant:
    return _each(lambda text, c: float(metric in str(c.get("pair", "")).split("->")))


def _trend_none(question: str, options: Sequence[Spec]) -> np.ndarray:
    return np.array([float(c.get("direction") == "none") for _, c in options])


#: Type → (variant name → scorer). ``main`` is the build's own prior.
VARIANTS: Mapping[str, Mapping[str, Variant]] = {
    "conditional_effect": {
        "main": _main("conditional_effect"),
        "usual dir 0.3-0.6 SD": _usual_effect(0),
        "usual dir 0.6-0.9 SD": _usual_effect(1),
        "usual dir 0.9-1.3 SD": _usual_effect(2),
    },
    "coupling_lag": {
        "main": _main("coupling_lag"),
        "usual sign, usual lag": _usual_coupling(0),
        "usual sign, one day earlier": _usual_coupling(-1),
        "usual sign, one day later": _usual_coupling(1),
        "opposite sign, usual lag": _usual_coupling(0, same_sign=False),
    },
    "excursion_count": {
        "main": _main("excursion_count"),
        "runs x0.7 (autocorrelated)": _excursions(0.7),
        "runs x0.5": _excursions(0.5),
        "exceedance days": _excursions(1.0, exceed_days=True),
    },
    "anomaly": {
        "main": _main("anomaly"),
        "has a neighbour": _neighbours,
        "weekend": _weekday(("Saturday", "Sunday")),
        "Monday": _weekday(("Monday",)),
        "latest day": _date_rank("latest"),
    },
    "period_comparison": {
        "main": _main("period_comparison"),
        "has a neighbour": _neighbours,
        "December/January": _month((12, 1)),
        "July/August": _month((7, 8)),
    },
    "recovery_time": {
        "main": _main("recovery_time"),
        "earliest": _date_rank("earliest"),
        "latest": _date_rank("latest"),
        "middle": _date_rank("middle"),
    },
    "trend": {"main": _main("trend"), "no clear trend": _trend_none},
    "strongest_pair": {
        "main": _main("strongest_pair"),
        "with stress": _pair_with("stress"),
        "with hrv": _pair_with("hrv"),
    },
    "concordance": {
        "main": _main("concordance"),
        "concordant B": _concordance("concordant", 1),
        "concordant C": _concordance("concordant", 2),
    },
}


def _pick(item: Item, variant: Variant, seed: int = 0) -> str:
    letters = list(item.options)
    specs = [(item.options[k], item.claims[k]) for k in letters]
    scores = variant(item.question, specs)
    if not np.isfinite(scores).any():
        scores = np.zeros(len(specs))
    best = np.flatnonzero(scores >= np.max(scores) - 1e-9)

    def tie(j: int) -> str:
        return hashlib.sha256(f"prior|{seed}|{item.id}|{specs[j][0]}".encode()).hexdigest()

    return letters[min((int(j) for j in best), key=tie)]


def variant_hits(items: Sequence[Item], type_name: str) -> dict[str, tuple[int, int]]:
    """(right, n) of every variant of ``type_name`` over that type's items."""
    members = [i for i in items if i.type == type_name]
    return {
        name: (sum(_pick(i, v) == i.answer for i in members), len(members))
        for name, v in VARIANTS.get(type_name, {}).items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench", type=Path)
    parser.add_argument("--types", default="", help="comma-separated types (default: all with variants)")
    args = parser.parse_args()
    items = read_items(args.bench)
    wanted = [t for t in args.types.split(",") if t] or list(VARIANTS)
    failed = 0
    for qtype in wanted:
        for name, (k, n) in variant_hits(items, qtype).items():
            if n == 0:
                continue
            lo, hi = wilson_interval(k, n)
            flag = "" if lo <= _CHANCE else "  ABOVE CHANCE"
            failed += bool(flag)
            print(f"{qtype:20} {name:30} {k:4d}/{n:<4d} {k / n:6.1%} [{lo:5.1%}–{hi:5.1%}]{flag}")
    print(f"\n{failed} variant(s) above chance")


if __name__ == "__main__":
    main()
