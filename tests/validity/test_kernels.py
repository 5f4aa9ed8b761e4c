"""Hand-computed cases for the solver's own kernels and the prompt parser."""

import math

import numpy as np
import pytest
from tests.validity.prompt import parse_prompt
from tests.validity.solvers import concordance, trend
from tests.validity.solvers._common import Unsolvable, at_least, lag_r, runs, trailing

SPAN = (
    "3 days from 2024-01-01 to 2024-01-03, oldest first; the question window is the last 2 days "
    "(from 2024-01-02). Missing values: empty cell."
)
PROMPT = f"""## User profile
Age 41 years, sex F, BMI 22.5 kg/m2, ethnicity white.

## Blood panel
Latest blood draw on or before 2024-01-03: drawn 2023-12-01.
- hdl: 58 mg/dL

## Cohort reference
Cohort reference percentiles of per-user medians, age band 40-49, sex F:
- steps (steps): P5=2000, P25=5,500, P50=7000

## Daily records
{SPAN}
```csv
date,resting_hr [bpm],steps [steps]
2024-01-01,60,1000
2024-01-02,,2500
2024-01-03,62.5,
```

## Question
Which?

Options:
A. one
B. two"""


def test_parse_prompt_reads_every_section() -> None:
    p = parse_prompt(PROMPT)
    assert p.profile == {"age": "41", "sex": "F", "bmi": "22.5"}
    assert p.blood_date == "2023-12-01"
    assert p.blood == {"hdl": 58.0}
    assert p.reference_group == ("40-49", "F")
    assert p.reference == {"steps": {5: 2000.0, 25: 5500.0, 50: 7000.0}}
    assert p.window_days == 2
    assert [str(d) for d in p.dates] == ["2024-01-01", "2024-01-02", "2024-01-03"]
    np.testing.assert_array_equal(p.values("resting_hr"), [60.0, np.nan, 62.5])
    np.testing.assert_array_equal(p.span("steps", 4), [np.nan, 1000.0, 2500.0, np.nan])
    assert p.question == "Which?"
    assert p.options == {"A": "one", "B": "two"}


def test_lag_r_shifts_the_second_signal() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    y = np.array([9.0, 1.0, 2.0, 3.0, 5.0])  # y[t+1] = x[t] except the last pair
    assert lag_r(x, y, 1) == pytest.approx(np.corrcoef([1, 2, 3, 4], [1, 2, 3, 5])[0, 1])
    assert lag_r(x, y, 0) == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert math.isnan(lag_r(x, np.full(5, 2.0), 0))


def test_trailing_uses_only_earlier_days() -> None:
    x = np.array([1.0, 3.0, np.nan, 5.0, 100.0])
    mean, sd = trailing(x, 3, "mean_sd")
    assert math.isnan(mean[1])  # one earlier value
    assert mean[2] == 2.0
    assert sd[2] == pytest.approx(math.sqrt(2.0))
    assert mean[4] == 4.0  # 3, NaN, 5
    med, spread = trailing(x, 4, "median_mad")
    assert med[4] == 3.0
    assert spread[4] == pytest.approx(1.4826 * 2.0)


def test_trailing_min_count_leaves_thin_baselines_undefined() -> None:
    x = np.array([1.0, 3.0, np.nan, 5.0, 100.0])
    mean, _ = trailing(x, 4, "mean_sd", min_count=3)
    assert math.isnan(mean[3])  # 1, 3, NaN: two values
    assert mean[4] == 3.0  # 1, 3, NaN, 5: three values


def test_lag_r_min_overlap_needs_enough_pairs() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    y = np.array([2.0, 1.0, 4.0, 3.0, np.nan])
    assert lag_r(x, y, 0, min_overlap=4) == pytest.approx(0.6)  # r of 1..4 with 2,1,4,3
    assert math.isnan(lag_r(x, y, 0, min_overlap=5))
    assert math.isnan(lag_r(x, y, 1, min_overlap=4))  # lag 1 leaves 3 pairs


def test_at_least_reads_the_stated_minimum() -> None:
    stem = "mean of the previous 28 days (missing days skipped; defined only when at least 14 of them)"
    assert at_least(stem, "missing days skipped") == 14
    with pytest.raises(Unsolvable):
        at_least("no minimum here", "missing days skipped")


def test_runs_are_inclusive() -> None:
    assert runs(np.array([True, True, False, True])) == [(0, 1), (3, 3)]
    assert runs(np.array([False, False])) == []


def test_trend_option_text() -> None:
    assert trend.holds("Increasing, by 7.9 to 9.5 over the window", 0.1, 0.6, 9.0)
    assert not trend.holds("Increasing, by 7.9 to 9.5 over the window", 0.1, 0.6, 9.5)
    assert trend.holds("Decreasing, by at least 1,200 over the window", -3.0, -1.0, 1200.0)
    assert trend.holds("No clear trend (the confidence interval of the slope includes zero)", -0.1, 0.2, 5.0)


def test_concordance_reading_signs_by_polarity() -> None:
    bins = concordance.grades("Grade of |r|: A 0.5–0.6, B 0.6–0.7, C 0.7–0.8, D 0.8–0.9, E 0.9–1.0")
    # stress up with HRV down: raw r < 0, polarity (-1)(+1) makes the signed r > 0 (concordant)
    assert concordance.holds("Grade C, concordant: as stress increased, HRV fell", -0.75, bins)
    assert not concordance.holds("Grade C, discordant: as stress increased, HRV fell", -0.75, bins)
    assert concordance.holds("Grade E, concordant: as sleep increased, HRV rose", 1.0, bins)
