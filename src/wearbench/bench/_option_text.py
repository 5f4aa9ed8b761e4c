"""Text features of an item's options, for the shortcut audit: per item and in batches.

:func:`option_features` is the plain per-item definition (one item's options, small numpy
arrays); :func:`feature_rows` computes the same matrix for many items at once, grouping items
with the same number of options into ``(items, options)`` arrays, and is tested against it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wearbench.questions import Item

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
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_WORD = re.compile(r"[a-z]+")
_DIGIT = re.compile(r"\d")
_NEGATION = {"no", "not", "none", "neither", "nor", "without", "never"}
_HEDGE = {"clear", "unclear", "clearly", "likely", "unlikely", "may", "might", "possibly"}
_OPEN = re.compile(r"\b(more than|less than|at least|at most|above|below|over \d|under \d)")


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


@dataclass(frozen=True)
class FeatureRows:
    """The options of many items as rows of one feature matrix.

    Attributes:
        x: ``(rows, len(FEATURES))``; item ``j``'s options are rows ``start[j]:start[j + 1]``,
            in the item's option order.
        item: ``(rows,)`` the item index of each row.
        start: ``(items + 1,)`` row offsets.
    """

    x: np.ndarray
    item: np.ndarray
    start: np.ndarray


def _z_rows(x: np.ndarray) -> np.ndarray:
    sd = x.std(axis=1, keepdims=True)
    out: np.ndarray = np.where(sd > 0, (x - x.mean(axis=1, keepdims=True)) / np.where(sd > 0, sd, 1.0), 0.0)
    return out


def _rank_rows(values: np.ndarray) -> np.ndarray:
    """:func:`_rank` of every row (comparisons with NaN are false, so missing values drop out)."""
    ok = np.isfinite(values)
    present = ok.sum(axis=1, keepdims=True)
    below = (values[:, :, None] > values[:, None, :]).sum(axis=2)
    ties = (values[:, :, None] == values[:, None, :]).sum(axis=2) - 1
    out: np.ndarray = np.where(ok & (present >= 2), (below + ties / 2) / np.maximum(present - 1, 1), 0.5)
    return out


def _extreme_rows(values: np.ndarray) -> np.ndarray:
    """:func:`_extreme` of every row."""
    ok = np.isfinite(values)
    low = np.where(ok, values, np.inf).min(axis=1, keepdims=True)
    high = np.where(ok, values, -np.inf).max(axis=1, keepdims=True)
    spread = (ok.sum(axis=1, keepdims=True) >= 2) & (low != high)
    out: np.ndarray = (ok & spread & ((values == low) | (values == high))).astype(float)
    return out


@dataclass(frozen=True)
class _Texts:
    """Per distinct (lower-cased) option text: the features that depend on the text alone."""

    length: np.ndarray
    digits: np.ndarray
    n_numbers: np.ndarray
    first: np.ndarray
    last: np.ndarray
    negation: np.ndarray
    hedge: np.ndarray
    open_range: np.ndarray
    words: list[set[str]]
    lead: list[str]

    @classmethod
    def of(cls, texts: Sequence[str]) -> _Texts:
        nums = [_numbers(t) for t in texts]
        found = [_WORD.findall(t) for t in texts]
        words = [set(w) for w in found]
        return cls(
            np.array([len(t) for t in texts], dtype=float),
            np.array([len(_DIGIT.findall(t)) for t in texts], dtype=float),
            np.array([len(v) for v in nums], dtype=float),
            np.array([v[0] if v else np.nan for v in nums], dtype=float),
            np.array([v[-1] if v else np.nan for v in nums], dtype=float),
            np.array([bool(_NEGATION & w) for w in words], dtype=float),
            np.array([bool(_HEDGE & w) for w in words], dtype=float),
            np.array([bool(_OPEN.search(t)) for t in texts], dtype=float),
            words,
            [w[0] if w else "" for w in found],
        )


def _group(questions: Sequence[str], options: Sequence[Sequence[str]]) -> np.ndarray:
    """:func:`option_features` of items with the same number of options, ``(items, options, F)``.

    Generated options repeat their wording across items, so each distinct text is read once.
    """
    n, k = len(options), len(options[0])
    seen: dict[str, int] = {}
    ids = np.array([[seen.setdefault(o.lower(), len(seen)) for o in row] for row in options], dtype=int)
    t = _Texts.of(list(seen))
    length, first = t.length[ids], t.first[ids]
    leads = [[t.lead[u] for u in row] for row in ids.tolist()]
    stems = [set(_WORD.findall(q.lower())) for q in questions]
    num_rank = _rank_rows(first)
    cols = [
        _z_rows(length),
        _rank_rows(length),
        (length == length.max(axis=1, keepdims=True)).astype(float),
        (length == length.min(axis=1, keepdims=True)).astype(float),
        _z_rows(t.digits[ids]),
        t.n_numbers[ids],
        num_rank,
        _extreme_rows(first),
        np.abs(num_rank - 0.5) * 2,
        _rank_rows(t.last[ids]),
        t.negation[ids],
        t.hedge[ids],
        t.open_range[ids],
        np.array([[row.count(f) / k for f in row] for row in leads]).reshape(n, k),
        np.array(
            [
                [len(s & t.words[u]) / max(len(t.words[u]), 1) for u in row]
                for s, row in zip(stems, ids.tolist(), strict=True)
            ]
        ).reshape(n, k),
        np.broadcast_to(np.arange(k, dtype=float) / max(k - 1, 1), (n, k)),
    ]
    return np.stack(cols, axis=2)


def feature_rows(items: Sequence[Item]) -> FeatureRows:
    """:func:`option_features` of every item, as one matrix (items grouped by option count)."""
    sizes = np.array([len(i.options) for i in items], dtype=int)
    start = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    x = np.zeros((int(start[-1]), len(FEATURES)))
    for k in sorted(set(sizes.tolist()) - {0}):
        idx = np.flatnonzero(sizes == k)
        group = _group([items[j].question for j in idx], [list(items[j].options.values()) for j in idx])
        x[(start[idx][:, None] + np.arange(k)).ravel()] = group.reshape(-1, len(FEATURES))
    return FeatureRows(x, np.repeat(np.arange(len(items)), sizes), start)
