"""The minute generator's building blocks, on tiny hand-checked cases."""

from __future__ import annotations

import numpy as np

from wearbench.sources.synthetic._minute_day import (
    bouts,
    circadian,
    heart_rate,
    night,
    place_block,
    split_sessions,
    spread_steps,
)


def test_night_has_exactly_the_asleep_minutes() -> None:
    rng = np.random.default_rng(0)
    start, pattern = night(rng, 400, 80.0, -60.0)
    assert start == -60
    assert pattern.size == 500  # 400 / 0.80
    assert int(pattern.sum()) == 400
    assert not pattern[0]  # sleep latency first


def test_night_clips_start_and_length() -> None:
    rng = np.random.default_rng(1)
    start, pattern = night(rng, 900, 50.0, 500.0)
    assert start == 180  # latest start that still ends by 18:00 (1080 - 900)
    assert pattern.size == 900  # in bed clipped to 1080 - 180, all asleep
    assert int(pattern.sum()) == 900
    start, _ = night(rng, 300, 90.0, -200.0, earliest=0)
    assert start == 0
    start, pattern = night(rng, 0, 90.0, 0.0)
    assert (start, pattern.size) == (0, 0)


def test_split_sessions() -> None:
    assert split_sessions(0, 30) == []
    assert split_sessions(1, 45) == [45]
    assert split_sessions(2, 85) == [50, 35]  # 85 / 1.7 = 50
    assert split_sessions(2, 8) == [8]


def test_place_block() -> None:
    rng = np.random.default_rng(0)
    free = np.array([1, 1, 0, 1, 1, 1, 0], dtype=bool)
    assert place_block(rng, free, 3, 0.0, 1.0) == 3  # the only run of three free minutes
    assert place_block(rng, free, 4, 0.0, 1.0) is None
    assert place_block(rng, free, 0, 0.0, 1.0) is None


def test_spread_steps_sums_exactly() -> None:
    rng = np.random.default_rng(0)
    where = np.array([0, 1, 1, 0], dtype=bool)
    out = spread_steps(rng, 101, where, np.array([5.0, 1.0, 1.0, 5.0]))
    assert out.sum() == 101
    assert out[0] == 0
    assert out[3] == 0
    assert spread_steps(rng, 50, np.zeros(4, dtype=bool), np.ones(4)).sum() == 0
    assert spread_steps(rng, 0, where, np.ones(4)).sum() == 0


def test_bouts_stay_in_allowed_minutes() -> None:
    rng = np.random.default_rng(0)
    allowed = np.zeros(100, dtype=bool)
    allowed[20:40] = True
    label = bouts(rng, allowed, np.ones(100), 10, 3.0)
    assert (label[~allowed] == -1).all()
    assert 1 <= (label >= 0).sum() <= 10
    assert (bouts(rng, np.zeros(5, dtype=bool), np.ones(5), 3, 2.0) == -1).all()


def test_heart_rate_step_response() -> None:
    rng = np.random.default_rng(0)
    target = np.r_[np.full(10, 60.0), np.full(30, 150.0)]
    hr = heart_rate(rng, target, 2.0, 0.0)
    assert (hr[:10] == 60).all()
    # after one minute: 60 + (1 - e^-0.5) * 90 = 95.4 -> 95
    assert hr[10] == 95
    assert hr[-1] == 150
    assert heart_rate(rng, np.zeros(0), 2.0, 0.0).size == 0


def test_circadian_peaks_at_the_given_minute() -> None:
    c = circadian(2880, 3.0, 960.0)
    assert c[960] == 3.0
    assert c[960 + 1440] == 3.0
    assert np.isclose(c[240], -3.0)
