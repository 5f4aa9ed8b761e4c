import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from wearbench.scoring import compare_runs, mcnemar_exact

mcnemar_ref = pytest.importorskip("statsmodels.stats.contingency_tables").mcnemar


def test_mcnemar_hand_computed():
    # 1 vs 7 discordant: 2 * (C(8,0) + C(8,1)) / 2^8 = 18 / 256
    assert mcnemar_exact(1, 7) == 18 / 256
    assert mcnemar_exact(7, 1) == 18 / 256
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == 1.0
    with pytest.raises(ValueError, match=">= 0"):
        mcnemar_exact(-1, 2)


@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 30), st.integers(0, 30))
def test_mcnemar_matches_statsmodels(a_only, b_only, both, neither):
    table = np.array([[both, a_only], [b_only, neither]])
    assert mcnemar_exact(a_only, b_only) == pytest.approx(mcnemar_ref(table, exact=True).pvalue, rel=1e-9)


def _runs(make_item, make_row, right_a, right_b, n=12):
    items = [make_item(f"i{j:02d}", f"u{j % 3}", "A") for j in range(n)]
    rows_a = [make_row(it, "A" if j in right_a else "B", run_id="a") for j, it in enumerate(items)]
    rows_b = [make_row(it, "A" if j in right_b else "C", run_id="b") for j, it in enumerate(items)]
    return items, rows_a, rows_b


def test_compare_hand_computed(make_item, make_row):
    items, rows_a, rows_b = _runs(
        make_item, make_row, right_a={0, 1, 2, 3}, right_b={0, 1, 2, 3, 4, 5, 6, 7, 8}
    )
    rows_b = rows_b[:10]  # b did not answer i10, i11: only 10 items pair up
    c = compare_runs(rows_a, rows_b, items, seed=2, n_boot=400)
    assert (c.n, c.n_users, c.a_only, c.b_only) == (10, 3, 0, 5)
    assert (c.acc_a, c.acc_b) == (0.4, 0.9)
    assert c.diff == pytest.approx(0.5)
    assert c.mcnemar_p == 2 / 32
    assert 0 < c.ci_low <= 0.5 <= c.ci_high <= 1
    assert c == compare_runs(rows_a[::-1], rows_b, items, seed=2, n_boot=400)


def test_identical_runs_have_zero_difference(make_item, make_row):
    items, rows_a, _ = _runs(make_item, make_row, right_a={1, 4, 5}, right_b=set())
    c = compare_runs(rows_a, rows_a, items)
    assert (c.diff, c.ci_low, c.ci_high, c.mcnemar_p) == (0.0, 0.0, 0.0, 1.0)


def test_no_shared_items(make_item, make_row):
    items, rows_a, rows_b = _runs(make_item, make_row, right_a={1}, right_b={2})
    c = compare_runs(rows_a[:5], rows_b[5:], items)
    assert c.n == 0
    assert math.isnan(c.diff)
    assert c.to_dict()["diff"] is None
