"""The seed's 7-day windows on hand-built calendars: gaps kept, tail left-padded, offsets back."""

from __future__ import annotations

import numpy as np

from wearbench.tracks._windows7 import day_windows, user_windows, windows_to_days


def _days(n: int) -> np.ndarray:
    """``n`` days whose every value is the day index (day k is all k)."""
    return np.broadcast_to(np.arange(n, dtype=np.float32)[:, None, None], (n, 19, 1440)).copy()


def _dates(*iso: str) -> np.ndarray:
    return np.array(iso, dtype="datetime64[D]")


def test_gap_day_stays_as_nan_day_and_tail_of_three_is_left_padded() -> None:
    # 9 retained days over 10 calendar days (Jan 3 missing): one full window + a 3-day tail
    dates = _dates("2024-01-01", "2024-01-02", *[f"2024-01-{d:02d}" for d in range(4, 11)])
    w, off, pad, gap = user_windows(_days(9), dates)
    assert w.shape == (2, 7, 19, 1440)
    assert off.tolist() == [[0, 1, -1, 2, 3, 4, 5], [-1, -1, -1, -1, 6, 7, 8]]
    assert gap.tolist() == [[False, False, True, False, False, False, False], [False] * 7]
    assert pad.tolist() == [[False] * 7, [True, True, True, True, False, False, False]]
    assert np.isnan(w[0, 2]).all()
    assert np.isnan(w[1, :4]).all()
    assert w[1, 6, 5, 100] == 8.0
    assert w[0, 3, 0, 0] == 2.0


def test_one_day_is_one_window_with_six_pad_days() -> None:
    w, off, pad, gap = user_windows(_days(1), _dates("2024-03-05"))
    assert off.tolist() == [[-1, -1, -1, -1, -1, -1, 0]]
    assert pad.tolist() == [[True] * 6 + [False]]
    assert not gap.any()
    assert w[0, 6, 0, 0] == 0.0


def test_exact_week_has_no_padding_and_none_dates_mean_consecutive() -> None:
    _w, off, pad, gap = user_windows(_days(14), None)
    assert off.tolist() == [list(range(7)), list(range(7, 14))]
    assert not pad.any()
    assert not gap.any()


def test_several_users_map_back_to_their_input_days() -> None:
    x = _days(5)
    users = np.array(["b", "a", "b", "a", "a"])
    dates = _dates("2024-01-02", "2024-01-01", "2024-01-01", "2024-01-03", "2024-01-09")
    dw = day_windows(x, users, dates)
    # user a: Jan 1, 3, 9 -> 9 calendar days: a full window (1..7) + a 2-day tail (8, 9)
    # user b: Jan 1, 2 -> one window, 5 pad days then the two days
    assert dw.users.tolist() == ["a", "a", "b"]
    assert dw.day_offsets.tolist() == [
        [1, -1, 3, -1, -1, -1, -1],
        [-1, -1, -1, -1, -1, -1, 4],
        [-1, -1, -1, -1, -1, 2, 0],
    ]
    assert dw.gap[1].tolist() == [False] * 5 + [True, False]  # Jan 8 is a gap inside a's range
    back = windows_to_days(dw.windows, dw.day_offsets, 5)
    np.testing.assert_array_equal(back, x)
