import pytest

from wearbench.bench._build import class_cap


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
