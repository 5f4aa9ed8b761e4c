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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from wearbench._stats import Accuracy, accuracy
from wearbench.bench._balance import option_template
from wearbench.bench._generate import stable_rng
from wearbench.bench._option_text import FEATURES, feature_rows
from wearbench.questions import LETTERS, Item

#: Features of the fitted model: the text features plus the learnt text prior.
AUDIT_FEATURES: tuple[str, ...] = (*FEATURES, "text_prior")
_PRIOR_RATE = 0.1  # chance: one option in ten is correct
_PRIOR_WEIGHT = 10.0  # pseudo-count pulling rare templates to chance


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


def _text_prior(templates: np.ndarray, truth: np.ndarray, train: np.ndarray) -> np.ndarray:
    """Per row, the smoothed log-odds that its option template is correct, learnt on ``train`` rows.

    Training rows see leave-one-out counts (their own label removed), held-out rows the full
    training counts, so the prior never sees the label it predicts. A type whose answers pile
    onto a few recognisable option wordings (a class prior) is caught by this feature even when
    every option has the same form.

    Args:
        templates: ``(rows,)`` integer id of each option's wording (numbers blanked).
        truth: ``(rows,)`` 1.0 where the option is the item's answer.
        train: ``(rows,)`` boolean, the rows the counts are learnt from.
    """
    size = int(templates.max()) + 1 if templates.size else 0
    shown = np.bincount(templates[train], minlength=size).astype(float)
    right = np.bincount(templates[train], weights=truth[train], minlength=size)
    own = train.astype(float)
    rate = (right[templates] - truth * own + _PRIOR_RATE * _PRIOR_WEIGHT) / (
        shown[templates] - own + _PRIOR_WEIGHT
    )
    out: np.ndarray = np.log(rate / (1 - rate))
    return out


def _cross_validate(
    items: Sequence[Item], k: int, seed: int, l2: float, steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """Held-out chosen option index per item and the mean fitted weights over the ``k`` user folds."""
    rows = feature_rows(items)
    texts = [o for i in items for o in i.options.values()]
    ids: dict[str, int] = {}
    wording = {o: ids.setdefault(option_template(o), len(ids)) for o in dict.fromkeys(texts)}
    templates = np.array([wording[o] for o in texts], dtype=int)
    truth = np.array([letter == i.answer for i in items for letter in i.options], dtype=float)
    fold = _folds(items, k, seed)
    picks = np.zeros(len(items), dtype=int)
    weights = []
    for f in range(k):
        train = fold[rows.item] != f
        feats = np.column_stack([rows.x, _text_prior(templates, truth, train)])
        x = feats[train]
        mean, sd = x.mean(axis=0), x.std(axis=0)
        sd[sd == 0] = 1.0
        w = _fit((x - mean) / sd, truth[train], l2, steps)[:-1]
        weights.append(w)
        scores = ((feats - mean) / sd) @ w
        for j in np.flatnonzero(fold == f):
            picks[j] = int(np.argmax(scores[rows.start[j] : rows.start[j + 1]]))
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
