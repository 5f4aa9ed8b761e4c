import math
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from wearbench.bench._balance import WORDING_ALPHA, balance, class_cap, option_template, wording_pvalue
from wearbench.bench._generate import Pending


@pytest.mark.parametrize(
    ("counts", "share", "cap"),
    [
        # 10 classes of 10: no class is above 20%, nothing is capped.
        ([10] * 10, 0.2, 10),
        # one class of 100 among eight of 10: cap c must satisfy c <= 0.2 * (c + 80) → c <= 20.
        ([100, *[10] * 8], 0.2, 20),
        # three classes can never be under 20% each: they are equalised at the smallest.
        ([50, 30, 5], 0.2, 5),
        ([], 0.2, 0),
    ],
)
def test_class_cap_hand_computed(counts: list[int], share: float, cap: int) -> None:
    assert class_cap(counts, share) == cap


def test_after_capping_no_class_exceeds_the_share() -> None:
    counts = [300, 120, 40, 40, 30, 30, 20, 20, 10, 5]
    c = class_cap(counts, 0.2)
    kept = [min(n, c) for n in counts]
    assert max(kept) <= 0.2 * sum(kept)
    assert class_cap(counts, 0.2) + 1 > 0.2 * sum(min(n, c + 1) for n in counts)  # c is the largest


def test_option_template_blanks_number_runs() -> None:
    assert option_template("About 1,234.5 Steps (2 days)") == "about # steps (# days)"


def test_wording_pvalue_hand_computed() -> None:
    # correct 1 of 1 at p = 0.1: P = 0.1; 2 of 2: P = 0.01; shown 100 times, correct 16:
    # scipy-free reference 1 - sum_{k<16} C(100, k) .1^k .9^(100-k); a wording that is every
    # option of its items (p = 1) is correct every time by chance: P = 1; never shown: P = 1.
    tail = 1 - sum(math.comb(100, k) * 0.1**k * 0.9 ** (100 - k) for k in range(16))
    p = wording_pvalue(
        np.array([1, 2, 16, 5, 0]), np.array([1, 2, 100, 5, 0]), np.array([1, 2, 100, 50, 0]), scale=10
    )
    assert p.tolist() == pytest.approx([0.1, 0.01, tail, 1.0, 1.0])


def _pending(i: int, correct: str, others: list[str], claim: str) -> Pending:
    return Pending(
        id=f"q{i:04d}",
        type="t",
        type_version=1,
        labels={"reasoning": "data", "signals": "single", "grounding": "population", "dependency": "window"},
        user_id=f"u{i % 7}",
        end_date="2025-01-01",
        history_days=0,
        window_days=28,
        metrics=("steps",),
        question="q?",
        correct=(correct, {"c": claim}),
        distractors=tuple((o, {"c": o}) for o in others),
        graph={},
        evidence={},
        grounding_ref=None,
        pair_kind=None,
        gates=None,
    )


def _class_items(n: int, favoured_share: float) -> list[Pending]:
    """``n`` items over the same ten class wordings; the first wins ``favoured_share`` of them."""
    words = [f"class {c}" for c in "abcdefghij"]
    out = []
    for i in range(n):
        win = 0 if i < favoured_share * n else 1 + i % 9
        out.append(_pending(i, words[win], [w for w in words if w != words[win]], words[win]))
    return out


def test_a_favoured_wording_is_drained_until_chance_explains_it() -> None:
    items = _class_items(400, 0.18)  # class a answers 72 of 400 where 40 are expected
    drops: Counter[str] = Counter()
    kept = balance(items, seed=0, drops=drops, max_share=1.0)
    wins = Counter(p.correct[0] for p in kept)
    n = len(kept)
    # the favoured class ends just inside the bound, and one more of its items would break it
    assert stats.binom.sf(wins["class a"] - 1, n, 0.1) >= WORDING_ALPHA
    assert stats.binom.sf(wins["class a"], n + 1, 0.1) < WORDING_ALPHA
    assert drops == Counter({"t: option wording answered too often (balancing)": 400 - n})
    assert all(p.correct[0] == "class a" for p in items if p not in kept)


def test_rare_wordings_survive_on_a_small_type() -> None:
    words = [f"w{k}" for k in range(30)]
    items = [_pending(i, words[i], words[i + 1 : i + 10], words[i]) for i in range(15)]
    assert len(balance(items, seed=0, drops=Counter())) == 15  # each correct once, P >= 0.1


def test_balanced_items_and_shared_numeric_wordings_are_untouched() -> None:
    drops: Counter[str] = Counter()
    even = _class_items(400, 0.1)
    assert len(balance(even, seed=0, drops=drops, max_share=1.0)) == 400  # every class wins 40 of 400
    numeric = [_pending(i, f"{i} steps", [f"{i + k} steps" for k in range(1, 10)], str(i)) for i in range(50)]
    assert len(balance(numeric, seed=0, drops=drops)) == 50
    assert not drops


def test_which_items_are_kept_depends_on_the_seed_only() -> None:
    items = _class_items(300, 0.25)
    a = balance(items, seed=3, drops=Counter(), max_share=1.0)
    b = balance(list(reversed(items)), seed=3, drops=Counter(), max_share=1.0)
    c = balance(items, seed=4, drops=Counter(), max_share=1.0)
    assert [p.id for p in a] == [p.id for p in b]
    assert {p.id for p in a} != {p.id for p in c}
