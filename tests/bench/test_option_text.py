"""Batched option-text features equal the per-item definition; the vectorised text prior equals counting."""

from collections import Counter
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.bench.test_shortcut import make_item

from wearbench.bench._option_text import FEATURES, feature_rows, option_features
from wearbench.bench._shortcut import _PRIOR_RATE, _PRIOR_WEIGHT, _text_prior
from wearbench.questions import LETTERS, Item

PIECES = (
    *("no", "not", "clear", "likely", "more than", "at least", "steps", "by", "units", "Rising"),
    *("-3", "1,200", "4.5", "7", ""),
)


def item_with(n: int, question: str, texts: list[str]) -> Item:
    base = make_item(n, [f"t{i}" for i in range(10)], 0)
    letters = LETTERS[: len(texts)]
    return replace(
        base,
        question=question,
        options=dict(zip(letters, texts, strict=True)),
        claims={k: {} for k in letters},
        answer=letters[0],
    )


texts_st = st.lists(st.sampled_from(PIECES), max_size=4).map(" ".join)
items_st = st.lists(
    st.tuples(texts_st, st.lists(texts_st, min_size=1, max_size=10)), min_size=1, max_size=12
).map(lambda rows: [item_with(n, q, ts) for n, (q, ts) in enumerate(rows)])


@settings(max_examples=150, deadline=None)
@given(items_st)
def test_feature_rows_equal_option_features(items: list[Item]) -> None:
    rows = feature_rows(items)
    want = np.vstack([option_features(i.question, list(i.options.values())) for i in items])
    assert rows.x.shape == want.shape == (sum(len(i.options) for i in items), len(FEATURES))
    np.testing.assert_allclose(rows.x, want, rtol=1e-12, atol=1e-12)
    assert rows.start.tolist() == np.cumsum([0] + [len(i.options) for i in items]).tolist()
    assert rows.item.tolist() == [j for j, i in enumerate(items) for _ in i.options]


def test_feature_rows_by_hand() -> None:
    one = item_with(0, "Q?", ["up by 5"])
    same = item_with(1, "Q?", ["abc", "abc", "abc"])
    x = feature_rows([one, same]).x
    col = {name: x[:, i] for i, name in enumerate(FEATURES)}
    # one option: ranks are 0.5, z-scores 0, position 0; it is both longest and shortest
    assert col["length_rank"].tolist() == [0.5, 0.5, 0.5, 0.5]
    assert col["length_z"].tolist() == [0, 0, 0, 0]
    assert col["position"].tolist() == [0, 0, 0.5, 1]
    assert col["is_longest"].tolist() == [1, 1, 1, 1]
    assert col["number_rank"].tolist() == [0.5, 0.5, 0.5, 0.5]  # no numbers in the second item
    assert col["n_numbers"].tolist() == [1, 0, 0, 0]
    assert col["first_word_share"].tolist() == [1, 1, 1, 1]


def reference_prior(templates: list[list[str]], truth: list[list[int]], train: set[int]) -> list[float]:
    """The text prior by counting, item by item (leave-one-out for training items)."""
    shown: Counter[str] = Counter()
    right: Counter[str] = Counter()
    for j in train:
        shown.update(templates[j])
        right.update(t for t, y in zip(templates[j], truth[j], strict=True) if y)
    out = []
    for j, (temps, ys) in enumerate(zip(templates, truth, strict=True)):
        for t, y in zip(temps, ys, strict=True):
            c = right[t] - (y if j in train else 0)
            n = shown[t] - (1 if j in train else 0)
            rate = (c + _PRIOR_RATE * _PRIOR_WEIGHT) / (n + _PRIOR_WEIGHT)
            out.append(float(np.log(rate / (1 - rate))))
    return out


def test_text_prior_equals_counting() -> None:
    rng = np.random.default_rng(5)
    templates = [[f"w{int(v)}" for v in rng.integers(0, 6, size=int(rng.integers(1, 8)))] for _ in range(40)]
    truth = [[int(v == 0) for v in range(len(t))] for t in templates]
    train = {j for j in range(40) if j % 3}
    ids = {t: n for n, t in enumerate(sorted({t for ts in templates for t in ts}))}
    flat = np.array([ids[t] for ts in templates for t in ts])
    item = np.repeat(np.arange(40), [len(t) for t in templates])
    labels = np.array([y for ys in truth for y in ys], dtype=float)
    got = _text_prior(flat, labels, np.isin(item, list(train)))
    np.testing.assert_allclose(got, reference_prior(templates, truth, train), rtol=1e-12)
    # a wording never seen in training sits at chance: log(0.1 / 0.9)
    unseen = _text_prior(np.array([0, 1]), np.array([1.0, 0.0]), np.array([True, False]))[1]
    assert unseen == pytest.approx(np.log(1 / 9), rel=1e-12)
