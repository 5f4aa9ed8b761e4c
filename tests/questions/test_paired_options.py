"""paired_options: which options have an adjacent neighbour carries no answer information."""

import numpy as np

from wearbench.questions._helpers import paired_options


def _has_neighbour(picks: list[int]) -> list[bool]:
    present = set(picks)
    return [i - 1 in present or i + 1 in present for i in picks]


def test_every_option_has_a_neighbour_on_a_full_ranking() -> None:
    ranked = [5, 0, 11, 3, 1, 2, 4, 6, 7, 8, 9, 10]
    picks = paired_options(ranked, np.random.default_rng(0))
    assert picks[0] == 5
    assert len(set(picks)) == 10
    assert all(_has_neighbour(picks))


def test_fill_comes_in_adjacent_pairs() -> None:
    # anchors 20, 0, 10, 30 with neighbours; the two fill slots must be one adjacent pair
    ranked = [20, 0, 10, 30, *range(40, 44)]
    ranked += [r for r in (19, 21, 1, 9, 11, 29, 31) if r not in ranked]
    picks = paired_options(ranked, np.random.default_rng(3))
    fill = picks[8:]
    assert len(fill) == 2
    assert abs(fill[0] - fill[1]) == 1
    assert set(fill) <= set(range(40, 44))


def test_odd_last_slot_touches_a_chosen_option() -> None:
    # anchors 0 → 1, 1 (taken, no free neighbour), 10 → 11: four options, one odd slot left; of
    # the free candidates only 2 touches a chosen option (20, 21 would form a lone pair)
    ranked = [0, 1, 10, 11, 2, 20, 21]
    picks = paired_options(ranked, np.random.default_rng(0), anchors=3, n=5)
    assert sorted(picks) == [0, 1, 2, 10, 11]
    assert all(_has_neighbour(picks))


def test_answer_has_a_neighbour_as_often_as_distractors() -> None:
    """Over random gappy 28-day rankings the shares match (before the fix: answer 1.0, fillers ~0.4)."""
    rng = np.random.default_rng(7)
    answer, others = [], []
    for _ in range(400):
        days = [d for d in range(28) if rng.random() > 0.15]
        ranked = [int(d) for d in rng.permutation(days)]
        picks = paired_options(ranked, rng)
        flags = _has_neighbour(picks)
        answer.append(flags[0])
        others += flags[1:]
    assert abs(np.mean(answer) - np.mean(others)) < 0.03
    assert np.mean(others) > 0.95
