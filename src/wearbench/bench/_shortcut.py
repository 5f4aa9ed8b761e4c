"""Shortcut audit: can a text-only model, seeing question and options but no data, beat chance?

Per question type, a binary logistic regression (L2-regularised, fitted by Newton steps in
numpy) scores every option from features of its text alone — plus a *text prior*, the
smoothed rate at which the option's wording (numbers blanked) was correct in the training
folds, which catches answer-class priors even when all options share one form — length and its rank within the
item, digits, where the option's numbers fall when the item's options are sorted by number
(extreme or middle), hedging and negation words, open-ended ranges ("more than"), how many
options share its first word, word overlap with the stem, and its letter position. The item's
prediction is its best-scoring option. Accuracy is cross-validated with folds by user (seeded),
so no user is in both training and test data. A benchmark without shortcuts keeps this near
the 10% chance level.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from wearbench._stats import Accuracy, accuracy
from wearbench.bench._balance import option_template
from wearbench.bench._generate import stable_rng
from wearbench.questions import LETTERS, Item

FEATURES: tuple[str, ...] = (
    "length_z",
    "length_rank",
    "is_longest",
    "is_shortest",
    "digits_z",
    "n_numbers",
    "number_rank",
    "number_extreme",
    "number_from_middle",
    "last_number_rank",
    "negation",
    "hedge_clear",
    "open_range",
    "first_word_share",
    "stem_overlap",
    "position",
)
#: Features of the fitted model: the text features plus the learnt text prior.
AUDIT_FEATURES: tuple[str, ...] = (*FEATURES, "text_prior")
_PRIOR_RATE = 0.1  # chance: one option in ten is correct
_PRIOR_WEIGHT = 10.0  # pseudo-count pulling rare templates to chance
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_WORD = re.compile(r"[a-z]+")
_DIGIT = re.compile(r"\d")
_NEGATION = {"no", "not", "none", "neither", "nor", "without", "never"}
_HEDGE = {"clear", "unclear", "clearly", "likely", "unlikely", "may", "might", "possibly"}
_OPEN = re.compile(r"\b(more than|less than|at least|at most|above|below|over \d|under \d)")


@dataclass(frozen=True)
class ShortcutAudit:
    """Cross-validated accuracy of the text-only baseline.

    Attributes:
        overall: Accuracy over all audited items.
        by_type: Accuracy per question type (``n == 0``: too few users to audit the type).
        folds: Most folds used (by user); 0 when no type could be audited.
        weights: Per type, its three largest mean fitted weights (standardised features).
    """

    overall: Accuracy
    by_type: Mapping[str, Accuracy]
    folds: int
    weights: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {
            "overall": self.overall.to_dict(),
            "by_type": {t: a.to_dict() for t, a in self.by_type.items()},
            "folds": self.folds,
            "weights": {t: dict(w) for t, w in self.weights.items()},
        }


def _rank(values: np.ndarray) -> np.ndarray:
    """Average rank scaled to [0, 1] (0.5 for missing values or fewer than two present)."""
    out = np.full(values.shape, 0.5)
    ok = np.isfinite(values)
    if ok.sum() < 2:
        return out
    v = values[ok]
    ranks = (v[:, None] > v[None, :]).sum(axis=1) + ((v[:, None] == v[None, :]).sum(axis=1) - 1) / 2
    out[ok] = ranks / (v.size - 1)
    return out


def _numbers(text: str) -> list[float]:
    found = (m.replace(",", "") for m in _NUMBER.findall(text))
    return [float(m) for m in found if m.strip("-")]


def _extreme(values: np.ndarray) -> np.ndarray:
    """1 where a value is the item's smallest or largest (0 when missing or all equal)."""
    ok = np.isfinite(values)
    if ok.sum() < 2 or np.nanmin(values) == np.nanmax(values):
        return np.zeros(values.shape)
    out: np.ndarray = (ok & ((values == np.nanmin(values)) | (values == np.nanmax(values)))).astype(float)
    return out


def _z(x: np.ndarray) -> np.ndarray:
    sd = float(x.std())
    return (x - x.mean()) / sd if sd > 0 else np.zeros_like(x)


def option_features(question: str, options: Sequence[str]) -> np.ndarray:
    """Feature matrix ``(n_options, len(FEATURES))`` from the texts of one item."""
    texts = [o.lower() for o in options]
    length = np.array([len(t) for t in texts], dtype=float)
    digits = np.array([len(_DIGIT.findall(t)) for t in texts], dtype=float)
    nums = [_numbers(t) for t in texts]
    first = np.array([n[0] if n else np.nan for n in nums])
    last = np.array([n[-1] if n else np.nan for n in nums])
    words = [_WORD.findall(t) for t in texts]
    stem = set(_WORD.findall(question.lower()))
    first_words = [w[0] if w else "" for w in words]
    num_rank = _rank(first)
    cols = [
        _z(length),
        _rank(length),
        (length == length.max()).astype(float),
        (length == length.min()).astype(float),
        _z(digits),
        np.array([len(n) for n in nums], dtype=float),
        num_rank,
        _extreme(first),
        np.abs(num_rank - 0.5) * 2,
        _rank(last),
        np.array([bool(_NEGATION & set(w)) for w in words], dtype=float),
        np.array([bool(_HEDGE & set(w)) for w in words], dtype=float),
        np.array([bool(_OPEN.search(t)) for t in texts], dtype=float),
        np.array([first_words.count(f) / len(texts) for f in first_words]),
        np.array([len(stem & set(w)) / max(len(set(w)), 1) for w in words]),
        np.arange(len(texts), dtype=float) / max(len(texts) - 1, 1),
    ]
    return np.column_stack(cols)


def varying_features(question: str, options: Sequence[str]) -> list[str]:
    """Text features (other than letter position) that differ between an item's options.

    A question type whose options share one form returns ``[]`` here: the audit's form
    features then carry no information about which option is correct.
    """
    x = option_features(question, options)
    return [f for j, f in enumerate(FEATURES) if f != "position" and np.ptp(x[:, j]) > 0]


def _fit(x: np.ndarray, y: np.ndarray, l2: float, steps: int) -> np.ndarray:
    """Weights (intercept last) of an L2-regularised logistic regression by Newton steps."""
    xb = np.column_stack([x, np.ones(len(x))])
    w = np.zeros(xb.shape[1])
    penalty = np.full(xb.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -30, 30)))
        grad = xb.T @ (p - y) + penalty * w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.max(np.abs(step))) < 1e-8:
            break
    return w


def _folds(items: Sequence[Item], k: int, seed: int) -> np.ndarray:
    users = sorted({i.user_id for i in items})
    order = stable_rng(seed, "shortcut-folds").permutation(len(users))
    fold_of = {users[int(j)]: n % k for n, j in enumerate(order)}
    return np.array([fold_of[i.user_id] for i in items])


def _with_prior(
    feats: list[np.ndarray], templates: list[list[str]], truth: list[np.ndarray], train: np.ndarray
) -> list[np.ndarray]:
    """Append the smoothed log-odds that an option template is correct, learnt on ``train``.

    Training items see leave-one-out counts (their own label removed), held-out items the full
    training counts, so the prior never sees the label it predicts. A type whose answers pile
    onto a few recognisable option wordings (a class prior) is caught by this feature even when
    every option has the same form.
    """
    shown: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for j in train:
        shown.update(templates[j])
        right.update(t for t, y in zip(templates[j], truth[j], strict=True) if y)
    in_train = set(train.tolist())
    out = []
    for j, (f, temps) in enumerate(zip(feats, templates, strict=True)):
        own = truth[j] if j in in_train else np.zeros(len(temps))
        c = np.array([right[t] for t in temps], dtype=float) - own
        n = np.array([shown[t] for t in temps], dtype=float) - (1.0 if j in in_train else 0.0)
        rate = (c + _PRIOR_RATE * _PRIOR_WEIGHT) / (n + _PRIOR_WEIGHT)
        out.append(np.column_stack([f, np.log(rate / (1 - rate))]))
    return out


def _cross_validate(
    items: Sequence[Item], k: int, seed: int, l2: float, steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """Held-out chosen option index per item and the mean fitted weights over the ``k`` user folds."""
    base = [option_features(i.question, list(i.options.values())) for i in items]
    templates = [[option_template(o) for o in i.options.values()] for i in items]
    truth = [np.array([letter == i.answer for letter in i.options], dtype=float) for i in items]
    fold = _folds(items, k, seed)
    picks = np.zeros(len(items), dtype=int)
    weights = []
    for f in range(k):
        train = np.flatnonzero(fold != f)
        feats = _with_prior(base, templates, truth, train)
        x = np.vstack([feats[j] for j in train])
        mean, sd = x.mean(axis=0), x.std(axis=0)
        sd[sd == 0] = 1.0
        w = _fit((x - mean) / sd, np.concatenate([truth[j] for j in train]), l2, steps)[:-1]
        weights.append(w)
        for j in np.flatnonzero(fold == f):
            picks[j] = int(np.argmax(((feats[j] - mean) / sd) @ w))
    return picks, np.mean(weights, axis=0)


def shortcut_audit(
    items: Sequence[Item], *, seed: int = 0, k: int = 5, l2: float = 1.0, steps: int = 30
) -> ShortcutAudit:
    """Cross-validated accuracy of a text-only logistic regression, fitted per question type.

    Args:
        items: Lettered items (options A–J).
        seed: Seed of the user-to-fold assignment.
        k: Folds (fewer when a type has fewer users; a type with under two users is not audited).
        l2: L2 penalty on the standardised feature weights.
        steps: Most Newton steps per fit.
    """
    by_type: dict[str, Accuracy] = {}
    weights: dict[str, dict[str, float]] = {}
    total_k = total_n = folds = 0
    for name in sorted({i.type for i in items}):
        members = [i for i in items if i.type == name]
        kk = min(k, len({i.user_id for i in members}))
        if kk < 2:
            by_type[name] = accuracy(0, 0)
            continue
        picks, w = _cross_validate(members, kk, seed, l2, steps)
        hits = np.array([LETTERS[p] == i.answer for p, i in zip(picks, members, strict=True)])
        by_type[name] = accuracy(int(hits.sum()), len(members))
        order = np.argsort(-np.abs(w), kind="stable")[:3]
        weights[name] = {AUDIT_FEATURES[int(j)]: round(float(w[j]), 3) for j in order}
        total_k, total_n, folds = total_k + int(hits.sum()), total_n + len(members), max(folds, kk)
    return ShortcutAudit(accuracy(total_k, total_n), by_type, folds, weights)


def text_only_answers(items: Sequence[Item], *, seed: int = 0, k: int = 5) -> dict[str, str]:
    """The text-only baseline's letter per item: held-out predictions of the audit's model.

    Each item is answered by the model fitted (per type) on the other user folds, so no item's
    own label is seen. A type with fewer than two users gets a seeded random letter.
    """
    out: dict[str, str] = {}
    for name in sorted({i.type for i in items}):
        members = [i for i in items if i.type == name]
        kk = min(k, len({i.user_id for i in members}))
        if kk < 2:
            for i in members:
                out[i.id] = LETTERS[int(stable_rng(seed, "text-only", i.id).integers(len(LETTERS)))]
            continue
        picks, _ = _cross_validate(members, kk, seed, 1.0, 30)
        out.update({i.id: LETTERS[int(p)] for i, p in zip(members, picks, strict=True)})
    return out
