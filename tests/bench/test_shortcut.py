"""Shortcut audit: a planted text shortcut is found, random items stay near chance."""

import numpy as np

from wearbench.bench._option_text import FEATURES, option_features, varying_features
from wearbench.bench._shortcut import AUDIT_FEATURES, shortcut_audit
from wearbench.questions import LETTERS, Item

WORDS = ("steady", "rising", "falling", "variable", "flat", "higher", "lower", "mixed", "brief", "long")


def make_item(n: int, texts: list[str], answer: int, type_name: str = "planted") -> Item:
    return Item(
        id=f"t-{type_name}-{n:05d}",
        type=type_name,
        type_version=1,
        reasoning="data",
        signals="single",
        grounding="literature",
        dependency="window",
        user_id=f"u{n % 40:03d}",
        end_date="2024-03-01",
        window_days=28,
        history_days=60,
        metrics=("steps",),
        question=f"Question {n}: what best describes the record?",
        options=dict(zip(LETTERS, texts, strict=True)),
        claims={k: {} for k in LETTERS},
        answer=LETTERS[answer],
        graph={},
        evidence={},
        grounding_ref=None,
        pair_kind=None,
        gates=None,
    )


def random_texts(rng: np.random.Generator) -> list[str]:
    words = rng.permutation(WORDS)
    return [f"{w} by {int(rng.integers(1, 500))} units" for w in words]


def planted_items(n: int, seed: int) -> list[Item]:
    """The correct option is always the longest (padded with extra words)."""
    rng = np.random.default_rng(seed)
    items = []
    for i in range(n):
        texts = random_texts(rng)
        answer = int(rng.integers(10))
        texts[answer] += " over the whole of the window"
        items.append(make_item(i, texts, answer))
    return items


def random_items(n: int, seed: int, type_name: str = "random") -> list[Item]:
    rng = np.random.default_rng(seed)
    return [make_item(i, random_texts(rng), int(rng.integers(10)), type_name) for i in range(n)]


def test_planted_longest_option_is_detected() -> None:
    audit = shortcut_audit(planted_items(400, seed=1), seed=0)
    assert audit.folds == 5
    assert audit.overall.value > 0.9
    assert audit.overall.lo > 0.5


def test_random_items_stay_near_chance() -> None:
    audit = shortcut_audit(random_items(1000, seed=2), seed=0)
    assert audit.overall.n == 1000
    assert audit.overall.lo < 0.10 < audit.overall.hi or abs(audit.overall.value - 0.10) < 0.03


def test_per_type_models_and_mixture() -> None:
    items = planted_items(300, seed=3) + random_items(300, seed=4)
    audit = shortcut_audit(items, seed=1)
    assert set(audit.by_type) == {"planted", "random"}
    assert audit.by_type["planted"].value > 0.9
    assert audit.by_type["random"].value < 0.2
    assert audit.overall.n == 600
    assert set(audit.weights["planted"]) <= set(AUDIT_FEATURES)


def test_deterministic_and_too_few_users() -> None:
    items = random_items(200, seed=5)
    assert shortcut_audit(items, seed=3).to_dict() == shortcut_audit(items, seed=3).to_dict()
    one_user = [make_item(0, random_texts(np.random.default_rng(0)), 3)]
    audit = shortcut_audit(one_user)
    assert audit.folds == 0
    assert audit.overall.n == 0


def test_option_features_by_hand() -> None:
    texts = ["no change", "up by 5 units", "up by 10 units", "up by more than 20 units"] + [
        f"x{i}" for i in range(6)
    ]
    f = option_features("Did steps change?", texts)
    col = {name: f[:, i] for i, name in enumerate(FEATURES)}
    assert f.shape == (10, len(FEATURES))
    assert col["is_longest"].tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    assert col["negation"][0] == 1
    assert col["negation"][1:].sum() == 0
    assert col["open_range"].tolist()[3] == 1
    assert col["position"][0] == 0
    assert col["position"][9] == 1
    # numbers 5, 10, 20 and x0..x5 -> 0..5: the largest first number is option 4 (20)
    assert col["number_extreme"][3] == 1


def test_answer_class_prior_is_detected_even_with_identical_forms() -> None:
    # Twelve readings of one form (same length, no digits); ten are shown per item. "reading a"
    # is the answer 40% of the time, the rest uniformly: only the text prior can see that.
    readings = [f"reading {c}" for c in "abcdefghijkl"]
    rng = np.random.default_rng(7)
    items = []
    for i in range(500):
        shown = list(rng.permutation(readings)[:10])
        correct = "reading a" if rng.random() < 0.4 and "reading a" in shown else str(rng.choice(shown))
        items.append(make_item(i, shown, shown.index(correct), "prior"))
    audit = shortcut_audit(items, seed=0)
    assert audit.by_type["prior"].value > 0.25
    assert next(iter(audit.weights["prior"])) == "text_prior"


def test_varying_features_names_what_differs() -> None:
    same_form = [f"reading {c}" for c in "abcdefghij"]
    assert varying_features("Which reading?", same_form) == []
    one_longer = [*same_form[:9], "reading j, which is much longer"]
    assert {"length_z", "length_rank", "is_longest"} <= set(varying_features("Which reading?", one_longer))
    with_digit = [*same_form[:9], "reading 9"]
    assert "digits_z" in varying_features("Which reading?", with_digit)
