"""Steps 1–4 in day chunks (``hourly_user``, ``user_day_counts``) equal the whole-user steps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wearbench.minutes import MinuteUser, write_minute_cohort
from wearbench.tracks import (
    hourly,
    hourly_user,
    prepare_user,
    preprocess_cohort,
    retained_days,
    user_day_counts,
    zero_to_nan,
)


def _user(n_days: int) -> MinuteUser:
    """Days with varied steps and HR; some flat (low variance), some with long non-wear."""
    rng = np.random.default_rng(3)
    x = np.zeros((n_days, 19, 1440), dtype=np.float32)
    x[:, [0, 1, 3, 4, 6]] = rng.integers(0, 30, (n_days, 5, 1440))
    x[:, 5] = rng.integers(50, 120, (n_days, 1440))
    x[:, 7, :300] = 1.0
    x[::5, 3] = 7.0  # flat watch steps: variance 0 -> dropped by the low-variance filter
    x[::4, 0] = 0.0  # phone at home: all zero -> kept, then NaN by zero-to-NaN
    x[:, 5, ::50] = 0.0  # stray HR zeros -> NaN
    nonwear = np.zeros((n_days, 1440), dtype=bool)
    nonwear[::3, :800] = True  # 800 > 720 -> dropped by the wear filter
    dates = np.datetime64("2024-03-01") + np.arange(n_days)
    return MinuteUser("u1", dates, x, nonwear)


@pytest.mark.parametrize("chunk_days", [7, 32, 100])
def test_hourly_user_equals_whole_user_steps(tmp_path: Path, chunk_days: int) -> None:
    user = _user(45)
    write_minute_cohort([user], tmp_path / "m")
    got = hourly_user(tmp_path / "m", "u1", chunk_days=chunk_days)
    want_retained = retained_days(user.values, user.non_wear)
    np.testing.assert_array_equal(got.retained, want_retained)
    np.testing.assert_array_equal(got.dates, user.dates)
    want = hourly(zero_to_nan(user.values[want_retained]))
    assert got.segments.dtype == np.float32
    assert got.segments.tobytes() == want.tobytes()
    # 45 days: 15 fail the wear filter (days 0, 3, …, 42); of the 30 worn, the flat days 5, 10,
    # 20, 25, 35, 40 fail the low-variance filter (0, 15, 30 are already gone): 24 retained
    assert (got.counts.n_days, got.counts.wear_dropped) == (45, 15)
    assert (got.counts.variance_dropped, got.counts.retained) == (6, 24)
    assert got.counts == prepare_user(user).counts == user_day_counts(tmp_path / "m", "u1")
    assert preprocess_cohort(tmp_path / "m") == [got.counts]
