"""Apple Health exports → the seed's 19 minute channels (hand-built, real fixtures, generated)."""

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import wearbench
from wearbench.minutes import CHANNEL_NAMES, HR, N_CHANNELS, load_minute_cohort
from wearbench.sources.apple_health import apple_health_minute_user, apple_health_minutes, write_export
from wearbench.tracks import hourly, retained_days, zero_to_nan

from ._xml import OTHER, PHONE, WATCH, export, rec, sleep

Z = " +0100"


def _t(hm: str) -> str:
    return f"2024-01-01 {hm}:00{Z}"


@pytest.fixture
def hand(tmp_path: Path) -> Path:
    body = (
        rec("StepCount", _t("10:00"), _t("10:10"), "100")  # Watch: 10 / min over 10:00–10:09
        + rec("StepCount", _t("10:00"), _t("10:05"), "30", PHONE)  # iPhone: 6 / min, kept apart
        + rec("StepCount", _t("10:00"), _t("10:05"), "99", OTHER)  # third-party steps: dropped
        + rec("DistanceWalkingRunning", _t("10:00"), _t("10:02"), "0.2", unit="km")
        + rec("FlightsClimbed", _t("10:20"), _t("10:20"), "2", PHONE)
        + rec("HeartRate", "2024-01-01 10:03:10" + Z, "2024-01-01 10:03:10" + Z, "90", unit="count/min")
        + rec("HeartRate", "2024-01-01 10:03:40" + Z, "2024-01-01 10:03:40" + Z, "100", unit="count/min")
        + rec("HeartRate", _t("10:30"), _t("10:30"), "120", PHONE, unit="count/min")  # iPhone HR: dropped
        + rec("ActiveEnergyBurned", "2024-01-01 10:00:30" + Z, "2024-01-01 10:01:30" + Z, "2", unit="kcal")
        + sleep("2024-01-01 00:10:00" + Z, "2024-01-01 00:20:00" + Z, "InBed", PHONE)
        + sleep("2024-01-01 00:12:30" + Z, "2024-01-01 00:15:00" + Z, "AsleepCore")
        + f' <Workout workoutActivityType="HKWorkoutActivityTypeSwimming" {WATCH}'
        ' startDate="2024-01-01 11:00:30 +0100" endDate="2024-01-01 11:02:00 +0100"/>\n'
        + f' <Workout workoutActivityType="HKWorkoutActivityTypeMixedMetabolicCardioTraining" {WATCH}'
        ' startDate="2024-01-01 12:00:00 +0100" endDate="2024-01-01 12:01:00 +0100"/>\n'
    )
    return export(tmp_path, body)


def test_hand_built_export_lands_in_the_right_minutes(hand: Path) -> None:
    user, report = apple_health_minute_user(hand)
    assert user.values.shape == (1, N_CHANNELS, 1440)
    assert user.values.dtype == np.float32
    assert str(user.dates[0]) == "2024-01-01"  # local wall clock
    d = user.values[0]
    m = 600  # 10:00
    assert d[3, m : m + 11].tolist() == [10.0] * 10 + [0.0]  # Watch StepCount
    assert d[0, m : m + 6].tolist() == [6.0] * 5 + [0.0]  # iPhone StepCount, not de-duplicated
    assert d[4, m : m + 3].tolist() == [100.0, 100.0, 0.0]  # metres per minute
    assert d[1].sum() == 0.0  # no iPhone distance
    assert d[2, 620] == 2.0
    assert d[2].sum() == 2.0
    assert d[HR, 603] == 95.0  # mean of the minute's samples
    assert np.isnan(d[HR, 630])  # the iPhone's heart rate is dropped
    assert int(np.isfinite(d[HR]).sum()) == 1
    assert d[6, m : m + 3].tolist() == [1.0, 1.0, 0.0]  # kcal/min, spread at a uniform rate
    assert np.flatnonzero(d[7]).tolist() == [12, 13, 14]  # asleep 00:12:30–00:15:00
    assert np.flatnonzero(d[8]).tolist() == list(range(10, 20))  # in bed
    other, mixed = CHANNEL_NAMES.index("Other"), CHANNEL_NAMES.index("MixedMetabolicCardioTraining")
    assert np.flatnonzero(d[other]).tolist() == [660, 661]  # Swimming → Other
    assert np.flatnonzero(d[mixed]).tolist() == [720]
    binary = d[7:]
    assert set(np.unique(binary).tolist()) <= {0.0, 1.0}
    assert report["counts"]["dropped: steps from other sources"] == 1
    assert report["counts"]["dropped: HeartRate from iPhone sources"] == 1
    assert report["counts"]["workouts: Swimming → Other"] == 1
    # non-wear: no Watch sample (steps 10:00–10:09, distance, HR 10:03, energy 10:00–10:01)
    worn = np.flatnonzero(~user.non_wear[0]).tolist()
    assert worn == list(range(600, 610))
    assert report["non_wear_minutes"] == 1430


def test_non_wear_rule_is_pluggable(hand: Path) -> None:
    def hr_only(values: np.ndarray, present: np.ndarray) -> np.ndarray:
        return np.asarray(~present[:, HR, :])

    user, report = apple_health_minute_user(hand, non_wear=hr_only)
    assert np.flatnonzero(~user.non_wear[0]).tolist() == [603]
    assert report["non_wear_rule"] == "hr_only"


def test_real_fixtures_go_through_preprocessing(shared_data: Path, tmp_path: Path) -> None:
    root = shared_data / "apple_health"
    paths = [
        root / "alxdrcirilo_apple-health-parser/export.zip",
        root / "paulstaab_health-data-parser/export.xml",
        root / "simonw_healthkit-to-sqlite/export.xml",
    ]
    cohort = apple_health_minutes(paths, tmp_path / "m")
    back = load_minute_cohort(tmp_path / "m", verify=True)
    assert back.user_ids == cohort.user_ids
    days = {u.user_id: u.values.shape[0] for u in cohort.users}
    assert days == {
        "alxdrcirilo_apple-health-parser": 2,
        "paulstaab_health-data-parser": 8,
        "simonw_healthkit-to-sqlite": 2,
    }
    alx = cohort.users[0]
    # two Watch HR samples in 01:01 (74, 75), Watch energy 0.12 kcal in 01:02, asleep 03:27:53–03:40:23
    assert alx.values[0, HR, 61] == 74.5
    assert np.isclose(alx.values[0, 6, 62], 0.12)
    assert np.flatnonzero(alx.values[0, 7]).tolist() == list(range(207, 221))
    assert int((~alx.non_wear).sum()) == 3
    paul = cohort.users[1]  # seven Running workouts (minutes touched)
    running = CHANNEL_NAMES.index("Running")
    assert int(paul.values[:, running].sum()) == 55 + 118 + 240 + 13 + 25 + 30 + 30  # 511
    for user in cohort.users:
        assert set(np.unique(user.values[:, 7:]).tolist()) <= {0.0, 1.0}
        keep = retained_days(user.values, user.non_wear)
        assert keep.shape == (user.values.shape[0],)
        seg = hourly(zero_to_nan(user.values[keep]))
        assert seg.shape == (int(keep.sum()), 24, 38)


def test_generated_export_goes_through(tmp_path: Path) -> None:
    cohort = wearbench.synth(n_users=2, n_days=7, seed=3, reference_users=0)
    path = write_export(cohort, cohort.user_ids[0], tmp_path / "export.xml", seed=1, samples_per_day=300)
    user, report = apple_health_minute_user(path)
    assert user.values.shape[1:] == (N_CHANNELS, 1440)
    assert 7 <= user.values.shape[0] <= 9
    d = user.values
    assert np.nansum(d[:, 3]) > 0
    assert np.nansum(d[:, 0]) >= 0
    assert np.isfinite(d[:, HR]).any()
    assert np.isnan(d[:, HR]).any()
    assert d[:, 7].sum() > 0
    assert d[:, 8].sum() >= d[:, 7].sum()
    assert set(np.unique(d[:, 7:]).tolist()) <= {0.0, 1.0}
    keep = retained_days(d, user.non_wear)
    seg = hourly(zero_to_nan(d[keep]))
    assert seg.shape == (int(keep.sum()), 24, 38)
    assert report["days"] == d.shape[0]


def test_generated_workouts_are_the_seeds_ten_types(tmp_path: Path) -> None:
    # 60 days of seed 3: 25 workouts, drawn from the seed's ten types (channels 9-18)
    cohort = wearbench.synth(n_users=1, n_days=60, seed=3, reference_users=0)
    path = write_export(cohort, cohort.user_ids[0], tmp_path / "export.xml", seed=1, samples_per_day=100)
    kinds = Counter(re.findall(r'workoutActivityType="HKWorkoutActivityType(\w+)"', path.read_text()))
    assert set(kinds) <= set(CHANNEL_NAMES[9:19])
    assert "Swimming" not in kinds
    assert kinds["MixedMetabolicCardioTraining"] == 5
    assert sum(kinds.values()) == 25
    user, report = apple_health_minute_user(path)
    workouts = {k: v for k, v in report["counts"].items() if k.startswith("workouts")}
    assert workouts == {f"workouts: {k}": n for k, n in kinds.items()}  # none remapped to Other
    mixed = CHANNEL_NAMES.index("MixedMetabolicCardioTraining")
    assert mixed == 13
    assert (user.values[:, mixed] == 1).sum() > 0
