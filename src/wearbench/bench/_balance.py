"""Answer-prior balancing: no answer class, and no option wording, may give the answer away.

Two seeded, generation-order-independent filters run per question type before letters are
assigned:

1. **Class cap** — no correct claim (e.g. "no clear trend") may be the answer of more than
   ``max_share`` of a type's items (:func:`class_cap`).
2. **Wording balance** — an option's *wording* (its text with numbers blanked) must not be the
   correct option significantly more often than chance among the items that show it. A
   wording that is one of an item's ten options is correct there by chance with p = 0.1
   (m/10 when m options share it); while some wording's correct count has a one-sided
   binomial p-value under ``alpha`` (:func:`wording_pvalue`), an item where the most
   significantly over-answered wording is correct is dropped. A text-only model that learns
   "this phrasing is usually right" then has nothing to learn beyond sampling noise. An exact
   test (rather than a fixed rate or a normal z) keeps rare wordings, whose rates are mostly
   noise, from draining a type.
3. **Knowledge-prior balance** — the knowledge prior (:mod:`wearbench.bench._prior`), which
   answers from textbook physiology with no data, must not beat chance: while its accuracy on
   a type's items is above ``chance`` (0.10), an item it answers right is dropped (the last in
   the seeded order; :func:`prior_excess`). The point estimate, not a significance bound, is
   the target: types balanced only to "not significantly above chance" each sit at the edge
   (0.12-0.13 on the default build), and pooled over 16 types the prior then beat chance
   (0.115 [0.106-0.124]). The type's generator should already show plausible and implausible
   options as often as they are correct; this step is the backstop.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np

from wearbench.bench._generate import Pending
from wearbench.bench._prior import prior_hit

#: Largest share of a type's items that may have the same correct claim.
MAX_ANSWER_SHARE = 0.20
#: Smallest one-sided p-value an option wording's correct count may have (chance: 1 in 10).
WORDING_ALPHA = 0.025
#: Chance accuracy (one in ten) the knowledge prior's accuracy on a type may not exceed.
PRIOR_CHANCE = 0.10
_NUMBER_RUN = re.compile(r"\d+(?:[.,]\d+)*")


def option_template(text: str) -> str:
    """An option's wording: lower-cased, each run of digits (with separators) replaced by ``#``."""
    return _NUMBER_RUN.sub("#", text.lower())


def order_key(seed: int, p: Pending) -> str:
    """A seeded pseudo-random order of items, independent of generation order."""
    return hashlib.sha256(f"{seed}|{p.id}".encode()).hexdigest()


def class_cap(counts: Sequence[int], max_share: float) -> int:
    """Largest per-class cap ``c`` with ``c <= max_share * sum(min(n, c))`` over the classes.

    Capping every class at ``c`` then leaves no class above ``max_share`` of what remains.
    With fewer than ``1 / max_share`` classes no cap satisfies that, and the classes are made
    equal (cap = the smallest class).
    """
    for c in range(max(counts, default=0), 0, -1):
        if c <= max_share * sum(min(n, c) for n in counts):
            return c
    return min(counts, default=0)


def _cap_classes(members: list[Pending], seed: int, max_share: float) -> tuple[list[Pending], int]:
    classes: dict[str, list[Pending]] = defaultdict(list)
    for p in members:
        classes[json.dumps(p.correct[1], sort_keys=True)].append(p)
    cap = class_cap([len(m) for m in classes.values()], max_share)
    kept = [p for _, m in sorted(classes.items()) for p in sorted(m, key=lambda p: order_key(seed, p))[:cap]]
    return kept, len(members) - len(kept)


def wording_pvalue(
    right: np.ndarray, n_shown: np.ndarray, expected: np.ndarray, scale: int = 1
) -> np.ndarray:
    """One-sided binomial p-value of each wording being correct this often by chance.

    Args:
        right: Items in which the wording is the correct option.
        n_shown: Items that show the wording.
        expected: ``scale`` × the sum, over those items, of p = (its copies among the options) /
            (options): the chance expectation of ``right``.
        scale: The common denominator that makes ``expected`` an exact integer.

    Returns:
        P(X ≥ right) for X ~ Binomial(n_shown, expected / n_shown); 1 where never shown. The
        exact law is Poisson-binomial (p differs between items only when copies differ); the
        binomial at the mean p has the larger variance, so the test is conservative.
    """
    from scipy import stats  # slow to import (over 1 s here); only the build's balance audit needs it

    shown = np.maximum(n_shown, 1)
    mean_p = np.clip(expected / (scale * shown), 0.0, 1.0)
    pvalue: np.ndarray = np.where(n_shown > 0, stats.binom.sf(right - 1, shown, mean_p), 1.0)
    return pvalue


_Shown = list[tuple[np.ndarray, np.ndarray]]


def _wording_table(members: Sequence[Pending]) -> tuple[_Shown, list[int], int, int]:
    """Index the option wordings of ``members``.

    Returns:
        Per item its wording ids and their chance weights (copies × scale / options); per item
        the correct wording's id; the vocabulary size; the scale (lcm of the option counts).
    """
    texts = [[p.correct[0], *(d[0] for d in p.distractors)] for p in members]
    vocab = sorted({option_template(t) for ts in texts for t in ts})
    index = {t: j for j, t in enumerate(vocab)}
    scale = math.lcm(*(len(ts) for ts in texts)) if texts else 1
    shown = []
    for ts in texts:
        copies = Counter(index[option_template(t)] for t in ts)
        ids = np.array(sorted(copies), dtype=np.int64)
        shown.append((ids, np.array([copies[j] * scale // len(ts) for j in ids], dtype=np.int64)))
    return shown, [index[option_template(ts[0])] for ts in texts], len(vocab), scale


def _balance_wording(members: list[Pending], seed: int, alpha: float) -> tuple[list[Pending], int]:
    members = sorted(members, key=lambda p: order_key(seed, p))
    shown, correct, size, scale = _wording_table(members)
    right, n_shown, expected = (np.zeros(size, dtype=np.int64) for _ in range(3))
    by_correct: dict[int, list[int]] = defaultdict(list)
    for j, ((ids, w), c) in enumerate(zip(shown, correct, strict=True)):
        expected[ids] += w
        n_shown[ids] += 1
        right[c] += 1
        by_correct[c].append(j)
    alive = np.ones(len(members), dtype=bool)
    while size:
        pvalue = wording_pvalue(right, n_shown, expected, scale)
        worst = int(np.argmin(pvalue))
        if pvalue[worst] >= alpha:
            break
        j = by_correct[worst].pop()  # the last in the seeded order
        alive[j] = False
        ids, w = shown[j]
        expected[ids] -= w
        n_shown[ids] -= 1
        right[worst] -= 1
    return [p for p, a in zip(members, alive, strict=True) if a], int((~alive).sum())


def prior_excess(hits: int, n: int, chance: float = PRIOR_CHANCE) -> int:
    """Fewest correctly answered items to drop so that the accuracy is ``<= chance``.

    Dropping ``d`` right answers leaves ``(hits - d) / (n - d)``; the result is the smallest
    ``d >= 0`` with that at most ``chance``.

    Args:
        hits: Items the prior answers right.
        n: Items.
        chance: Largest allowed accuracy (0 < chance < 1).
    """
    if not 0 <= hits <= n:
        raise ValueError(f"need 0 <= hits <= n, got hits={hits}, n={n}")
    if not 0 < chance < 1:
        raise ValueError(f"need 0 < chance < 1, got {chance}")
    drop = max(0, math.ceil((hits - chance * n) / (1 - chance) - 1e-9))
    return min(drop, hits)


def _balance_prior(members: list[Pending], seed: int, chance: float) -> tuple[list[Pending], int]:
    """Drop items the knowledge prior answers right until its accuracy is not above chance."""
    members = sorted(members, key=lambda p: order_key(seed, p))
    hits = [
        j
        for j, p in enumerate(members)
        if prior_hit(p.id, p.type, p.question, [p.correct, *p.distractors], seed)
    ]
    drop = prior_excess(len(hits), len(members), chance)
    gone = set(hits[len(hits) - drop :]) if drop else set()
    return [p for j, p in enumerate(members) if j not in gone], drop


def balance(
    pending: Sequence[Pending],
    seed: int,
    drops: Counter[str],
    *,
    max_share: float = MAX_ANSWER_SHARE,
    wording_alpha: float = WORDING_ALPHA,
    prior_chance: float = PRIOR_CHANCE,
) -> list[Pending]:
    """Apply the class cap, the wording balance, then the prior balance, per type; count drops.

    Args:
        pending: Items of any types.
        seed: Seed of which items are kept (a pseudo-random order fixed by seed and item id).
        drops: Drop-reason counter, updated in place.
        max_share: Largest share of a type's items one correct claim may have.
        wording_alpha: Smallest one-sided p-value an option wording's correct count may have.
        prior_chance: Largest accuracy the knowledge prior may have on a type.

    Returns:
        The kept items, grouped by type (type names sorted).
    """
    by_type: dict[str, list[Pending]] = defaultdict(list)
    for p in pending:
        by_type[p.type].append(p)
    kept: list[Pending] = []
    for name, members in sorted(by_type.items()):
        capped, n_class = _cap_classes(members, seed, max_share)
        worded, n_wording = _balance_wording(capped, seed, wording_alpha)
        balanced, n_prior = _balance_prior(worded, seed, prior_chance)
        if n_class:
            drops[f"{name}: answer class over-represented (balancing)"] += n_class
        if n_wording:
            drops[f"{name}: option wording answered too often (balancing)"] += n_wording
        if n_prior:
            drops[f"{name}: knowledge prior answers too often (balancing)"] += n_prior
        kept += balanced
    return kept
