"""Synthetic minutes agree with the daily synthetic cohort of the same users (the documented rules)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from wearbench.cohort import Cohort
from wearbench.minutes import (
    ACTIVE_ENERGY,
    ASLEEP,
    BINARY,
    DEVICE_GROUPS,
    HR,
    INBED,
    WORKOUTS,
    MinuteUser,
)
from wearbench.sources.synthetic import minute_users, synthesize

N_USERS, N_DAYS, SEED = 6, 21, 4


@pytest.fixture(scope="module")
def pair() -> tuple[Cohort, list[MinuteUser]]:
    daily = synthesize(N_USERS, N_DAYS, SEED, reference_users=0)
    return daily, list(minute_users(daily, SEED))


def _daily(daily: Cohort, user: str) -> pd.DataFrame:
    return daily.daily[daily.daily["user_id"] == user].reset_index(drop=True)


def test_shapes_dates_and_kinds(pair: tuple[Cohort, list[MinuteUser]]) -> None:
    daily, users = pair
    assert [u.user_id for u in users] == [f"u000{i}" for i in range(1, N_USERS + 1)]
    for u in users:
        assert u.values.shape == (N_DAYS, 19, 1440)
        assert np.array_equal(u.dates, _daily(daily, u.user_id)["date"].to_numpy().astype("datetime64[D]"))
        assert set(np.unique(u.values[:, list(BINARY)])) <= {0.0, 1.0}
        other = [c for c in range(19) if c != HR]
        assert np.isfinite(u.values[:, other]).all()
        assert (u.values[:, other] >= 0).all()


def test_watch_steps_sum_to_daily_steps_and_phone_sees_a_share(pair: tuple[Cohort, list[MinuteUser]]) -> None:
    daily, users = pair
    for u in users:
        steps = _daily(daily, u.user_id)["steps"].to_numpy()
        worn = np.isfinite(steps)
        assert np.array_equal(u.values[worn, 3].sum(axis=1), steps[worn])  # exact, whole steps
        assert (u.values[~worn, 3] == 0).all()
        on = ~u.non_wear
        assert (u.values[:, 0][on] <= u.values[:, 3][on]).all()  # phone ≤ watch on worn minutes
        assert u.values[:, 0].sum() > 0
        assert np.array_equal(u.values[:, 0], np.round(u.values[:, 0]))


def test_asleep_minutes_equal_daily_sleep_minutes(pair: tuple[Cohort, list[MinuteUser]]) -> None:
    daily, users = pair
    for u in users:
        sleep = _daily(daily, u.user_id)["sleep_minutes"].to_numpy()
        flat = u.values[:, ASLEEP].reshape(-1)
        assert (u.values[:, ASLEEP] <= u.values[:, INBED]).all()
        for d in range(1, N_DAYS):  # night d lies in [18:00 of d-1, 18:00 of d)
            night = flat[(d - 1) * 1440 + 1080 : d * 1440 + 1080].sum()
            assert night == (sleep[d] if np.isfinite(sleep[d]) else 0), (u.user_id, d)


def test_resting_hr_from_sleep_minutes_close_to_daily(pair: tuple[Cohort, list[MinuteUser]]) -> None:
    daily, users = pair
    errors = []
    for u in users:
        rhr = _daily(daily, u.user_id)["resting_hr"].to_numpy()
        flat_hr, flat_sleep = u.values[:, HR].reshape(-1), u.values[:, ASLEEP].reshape(-1)
        for d in range(1, N_DAYS):
            window = slice((d - 1) * 1440 + 1080, d * 1440 + 1080)
            hr = flat_hr[window][(flat_sleep[window] == 1) & np.isfinite(flat_hr[window])]
            if np.isfinite(rhr[d]) and hr.size >= 20:
                errors.append(abs(float(np.median(hr)) - rhr[d]))
    assert len(errors) > 50
    assert max(errors) <= 4.0  # documented tolerance: median asleep HR within 4 bpm
    assert float(np.mean(errors)) <= 1.0


def test_workouts_match_daily_exercise(pair: tuple[Cohort, list[MinuteUser]]) -> None:
    daily, users = pair
    days_with_exercise = 0
    for u in users:
        d_frame = _daily(daily, u.user_id)
        minutes = np.nan_to_num(d_frame["exercise_minutes"].to_numpy())
        count = np.nan_to_num(d_frame["exercise_count"].to_numpy())
        workout = u.values[:, list(WORKOUTS)]
        assert (workout.sum(axis=1) <= 1).all()  # one type at a time
        any_workout = workout.max(axis=1)
        assert np.array_equal(any_workout.sum(axis=1), minutes)
        starts = (np.diff(any_workout, axis=1, prepend=0) == 1).sum(axis=1)
        assert np.array_equal(starts, count)
        assert (u.non_wear[any_workout == 1] == 0).all()
        assert np.isfinite(u.values[:, HR][any_workout == 1]).all()  # HR every workout minute
        days_with_exercise += int((minutes > 0).sum())
    assert days_with_exercise >= 5


def test_active_energy_sums_to_daily(pair: tuple[Cohort, list[MinuteUser]]) -> None:
    daily, users = pair
    for u in users:
        kcal = _daily(daily, u.user_id)["active_kcal"].to_numpy()
        worn = np.isfinite(kcal)
        got = u.values[worn, ACTIVE_ENERGY].astype(np.float64).sum(axis=1)
        np.testing.assert_allclose(got, kcal[worn], rtol=1e-4)


def test_non_wear_has_no_watch_sample_and_whole_unrecorded_days(
    pair: tuple[Cohort, list[MinuteUser]],
) -> None:
    daily, users = pair
    saw_unworn_day = False
    for u in users:
        steps = _daily(daily, u.user_id)["steps"].to_numpy()
        watch = u.values[:, list(DEVICE_GROUPS["watch"])]
        off = u.non_wear
        assert np.isnan(watch[:, HR - 3][off]).all()
        for c in (0, 1, 3):
            assert (watch[:, c][off] == 0).all()
        unworn = ~np.isfinite(steps)
        assert off[unworn].all()
        saw_unworn_day |= bool(unworn.any())
        assert (off[~unworn].sum(axis=1) >= 30).all()  # the daily charging block
    assert saw_unworn_day
