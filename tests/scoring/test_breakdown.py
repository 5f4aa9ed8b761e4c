import json
import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from wearbench._errors import WearbenchError
from wearbench.questions import LETTERS
from wearbench.scoring import LABEL_FAMILIES, accuracy, check_score_json, score_run

# id, user, answer, reasoning, signals, grounding, dependency, type, pair_kind
SPEC = [
    ("i00", "u1", "A", "data", "single", "literature", "window", "trend", None),
    ("i01", "u1", "B", "data", "single", "literature", "window", "trend", None),
    ("i02", "u1", "C", "health", "cross", "population", "history", "anomaly", "empirical"),
    ("i03", "u2", "D", "health", "cross", "literature", "window", "anomaly", "definitional"),
    ("i04", "u2", "A", "data", "cross", "literature", "window", "trend", None),
    ("i05", "u2", "B", "health", "single", "population", "window", "anomaly", "empirical"),
    ("i06", "u3", "C", "health", "single", "literature", "history", "trend", "definitional"),
    ("i07", "u3", "D", "data", "single", "literature", "window", "trend", None),
    ("i08", "u3", "E", "health", "cross", "literature", "window", "anomaly", "empirical"),
    ("i09", "u3", "F", "data", "single", "literature", "window", "trend", None),
    ("i10", "u3", "G", "data", "single", "literature", "window", "trend", None),  # no row: missing
]


@pytest.fixture
def case(make_item, make_row):
    keys = ("reasoning", "signals", "grounding", "dependency", "type", "pair_kind")
    items = [make_item(s[0], s[1], s[2], **dict(zip(keys, s[3:], strict=True))) for s in SPEC]
    letters = ["A", "B", "C", "D", "A", "A", "C", "D"]  # i05 wrong (A for B)
    rows = [
        make_row(it, x, prompt_tokens=100, completion_tokens=10, cost_usd=0.01, latency_s=1.0)
        for it, x in zip(items, letters, strict=False)
    ]
    rows.append(
        make_row(items[8], None, response="maybe C or D", parse_failed=True, prompt_tokens=100, latency_s=1.0)
    )
    rows.append(make_row(items[9], None, error="timeout after 3 retries", latency_s=3.0))
    return items, rows[::-1]  # order of rows must not matter


def _kn(acc):
    return acc.k, acc.n


def test_hand_computed_breakdown(case):
    items, rows = case
    s = score_run(rows, items, seed=1, n_boot=500)
    assert s.overall == accuracy(7, 10)
    assert s.n_items == 11
    assert s.missing == ("i10",)
    assert (s.parse_failures, s.parse_failure_rate, s.errors) == (1, 0.1, 1)
    got = {f: {lab: _kn(a) for lab, a in d.items()} for f, d in s.by_label.items()}
    assert got == {
        "reasoning": {"data": (4, 5), "health": (3, 5)},
        "signals": {"single": (4, 6), "cross": (3, 4)},
        "grounding": {"literature": (6, 8), "population": (1, 2)},
        "dependency": {"window": (5, 8), "history": (2, 2)},
        "type": {"trend": (5, 6), "anomaly": (2, 4)},
        "pair_kind": {"empirical": (1, 3), "definitional": (2, 2)},
    }
    assert s.by_label["reasoning"]["health"] == accuracy(3, 5)
    assert s.n_users == 3
    # users: u1 3/3, u2 2/3, u3 2/4 -> pooled resamples stay within [0.5, 1] and hold 0.7
    assert 0.5 <= s.boot_lo <= 0.7 <= s.boot_hi <= 1.0


def test_position_bias_and_costs(case):
    items, rows = case
    s = score_run(rows, items)
    pos = s.position
    chosen = dict.fromkeys(LETTERS, 0) | {"A": 3, "B": 1, "C": 2, "D": 2}
    assert dict(pos.chosen) == chosen
    assert dict(pos.gold) == dict.fromkeys(LETTERS, 0) | {"A": 2, "B": 2, "C": 2, "D": 2}
    assert (pos.top_letter, pos.top_share) == ("A", 3 / 8)
    # statistic by hand: (2.2² + 0.2² + 2·1.2² + 6·0.8²) / 0.8 = 14.5 on 9 df
    assert pos.chi2_p == pytest.approx(stats.chi2.sf(14.5, 9), rel=1e-12)
    assert pos.chi2_p == pytest.approx(stats.chisquare([chosen[x] for x in LETTERS]).pvalue, rel=1e-12)
    assert (s.prompt_tokens, s.prompt_tokens_mean) == (900, 100.0)
    assert (s.completion_tokens, s.completion_tokens_mean) == (80, 10.0)
    assert s.cost_usd is None  # i08 and i09 have no known price
    assert s.mean_latency_s == pytest.approx(1.2)
    known = [r for r in rows if r.cost_usd is not None]
    assert score_run(known, items).cost_usd == pytest.approx(0.08)


def test_to_dict_is_strict_json_with_cli_keys(case):
    items, rows = case
    d = json.loads(json.dumps(score_run(rows, items).to_dict(), allow_nan=False))
    assert {"accuracy", "ci_low", "ci_high", "n", "parse_failures", "by_label"} <= set(d)
    assert (d["accuracy"], d["n"], d["parse_failures"], d["missing"]) == (0.7, 10, 1, 1)
    assert (d["kind"], d["score"], d["ci_method"]) == ("wearableqa", 70.0, "wilson")
    assert (d["ci_low"], d["ci_high"]) == (100 * accuracy(7, 10).lo, 100 * accuracy(7, 10).hi)
    assert d["by_label"]["pair_kind"]["empirical"]["k"] == 1
    check_score_json(d)
    # trend: i00 i01 i04 i06 i07 right, i09 errored; anomaly: i02 i03 right, i05 wrong, i08 unparsed
    by_type = d["breakdowns"]["by_type"]
    assert (by_type["trend"]["score"], by_type["trend"]["n"], by_type["trend"]["parse_failures"]) == (
        100 * 5 / 6,
        6,
        0,
    )
    assert (by_type["anomaly"]["score"], by_type["anomaly"]["n"], by_type["anomaly"]["parse_failures"]) == (
        50.0,
        4,
        1,
    )
    assert by_type["anomaly"]["ci_low"] == 100 * accuracy(2, 4).lo
    empirical = d["breakdowns"]["by_pair_kind"]["empirical"]  # i02 right, i05 wrong, i08 unparsed
    assert (empirical["score"], empirical["n"], empirical["parse_failures"]) == (100 / 3, 3, 1)
    assert sorted(d["breakdowns"]) == sorted(f"by_{f}" for f in LABEL_FAMILIES)


def test_no_rows_scores_nothing(case):
    items, _ = case
    s = score_run([], items)
    assert (s.overall.n, len(s.missing), s.position.top_letter, s.position.chi2_p) == (0, 11, None, None)
    assert math.isnan(s.boot_lo)
    d = json.loads(json.dumps(s.to_dict(), allow_nan=False))
    assert d["accuracy"] is None
    assert (d["score"], d["ci_low"], d["ci_high"]) == (None, None, None)
    assert d["bootstrap"]["ci_low"] is None
    check_score_json(d)


def test_unknown_or_duplicate_rows_are_rejected(case, make_item, make_row):
    items, rows = case
    with pytest.raises(WearbenchError, match="not in the benchmark"):
        score_run([*rows, make_row(make_item("zz", "u9", "A"), "A")], items)
    with pytest.raises(WearbenchError, match="two rows"):
        score_run([*rows, rows[0]], items)


def test_correctness_comes_from_the_letter(make_item, make_row):
    item = make_item("x", "u", "C")
    row = make_row(item, "B")
    stale = type(row)(**{**row.__dict__, "correct": True})  # a row claiming it is right
    assert score_run([stale], [item]).overall.k == 0


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["u1", "u2", "u3"]),
            st.sampled_from(LETTERS),
            st.sampled_from([*LETTERS, None]),
            st.sampled_from(["data", "health"]),
            st.sampled_from([None, "definitional", "empirical"]),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_breakdowns_partition_the_scored_items(spec):
    from tests.scoring.conftest import _item, _row

    items = [_item(f"i{n}", u, gold, reasoning=r, pair_kind=pk) for n, (u, gold, _, r, pk) in enumerate(spec)]
    rows = [_row(it, pick) for it, (_, _, pick, _, _) in zip(items, spec, strict=True) if pick != "J"]
    s = score_run(rows, items, n_boot=50)
    assert s.overall.n == len(rows)
    assert s.overall.n + len(s.missing) == len(items)
    for family in ("reasoning", "signals", "grounding", "dependency", "type"):
        accs = s.by_label[family].values()
        assert (sum(a.k for a in accs), sum(a.n for a in accs)) == (s.overall.k, s.overall.n)
    paired = [it.id for it in items if it.pair_kind is not None and it.id not in s.missing]
    assert sum(a.n for a in s.by_label["pair_kind"].values()) == len(paired)
    assert sum(s.position.chosen.values()) == sum(r.letter is not None for r in rows)
    assert sum(s.position.gold.values()) == sum(s.position.chosen.values())
    if s.n_users == 1:  # one user: nothing to resample, the interval is the point
        assert s.boot_lo == s.boot_hi == s.overall.value
    elif s.n_users > 1:
        assert s.boot_lo <= s.boot_hi


def test_covered_items_follow_the_runner_selection(case):
    from wearbench.runner import RunInfo, Setting, select_items
    from wearbench.scoring import covered_items

    items, _ = case
    info = RunInfo("run-x", "m", Setting(), {"limit": 4, "seed": 7}, "b", "h", 4)
    assert covered_items(info, items) == select_items(items, 4, seed=7)
    assert len(covered_items(info, items)) == 4
    assert covered_items(replace(info, params={"limit": None}, n_items=11), items) == items
    assert covered_items(replace(info, n_items=5), items) == items  # inconsistent: fall back to all
