import numpy as np

import wearbench
from wearbench.grounding import EMPIRICAL_PAIRS, coupling_null, window_stacks
from wearbench.questions import contexts_from_cohort


def test_window_stacks_and_null_are_deterministic() -> None:
    contexts = list(contexts_from_cohort(wearbench.synth(6, 90, seed=3, reference_users=50)).values())
    stacks = window_stacks(contexts, "hrv", 28, step=28, min_end=28, max_windows=18)
    assert len(stacks) == 6
    assert all(s.shape == (3, 28) for s in stacks)
    np.testing.assert_array_equal(stacks[0][0], contexts[0].span("hrv", 89, 28))
    a = coupling_null(
        contexts, EMPIRICAL_PAIRS[:3], "coupling", np.random.default_rng(1), window_days=28, lag_margin=True
    )
    b = coupling_null(
        contexts, EMPIRICAL_PAIRS[:3], "coupling", np.random.default_rng(1), window_days=28, lag_margin=True
    )
    assert a == b
    assert set(a) == {f"coupling:{p.name}" for p in EMPIRICAL_PAIRS[:3]}
    assert all(0 <= v["null"] <= 1 and 0 <= v["observed"] <= 1 for v in a.values())


def test_null_needs_two_users() -> None:
    contexts = list(contexts_from_cohort(wearbench.synth(1, 60, seed=3, reference_users=50)).values())
    assert (
        coupling_null(
            contexts,
            EMPIRICAL_PAIRS[:1],
            "coupling",
            np.random.default_rng(0),
            window_days=28,
            lag_margin=True,
        )
        == {}
    )
