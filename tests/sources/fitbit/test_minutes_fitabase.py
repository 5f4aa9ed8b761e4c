"""Fitabase minute files → the seed's 19 minute channels (hand-built folder, real export)."""

from pathlib import Path

import numpy as np
import pytest

from wearbench.minutes import CHANNEL_NAMES, HR, N_CHANNELS, load_minute_cohort
from wearbench.sources.fitbit import fitabase_minutes
from wearbench.tracks import hourly, retained_days, zero_to_nan


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "dailyActivity_merged.csv").write_text("Id,ActivityDate,TotalSteps\n")
    (tmp_path / "minuteStepsNarrow_merged.csv").write_text(
        "Id,ActivityMinute,Steps\n1,4/12/2016 12:00:00 AM,0\n1,4/12/2016 12:01:00 AM,12\n"
        "1,4/12/2016 1:05:00 PM,30\n"
    )
    (tmp_path / "minuteCaloriesNarrow_merged.csv").write_text(
        "Id,ActivityMinute,Calories\n1,4/12/2016 12:00:00 AM,1.0\n1,4/12/2016 12:01:00 AM,4.0\n"
    )
    (tmp_path / "minuteMETsNarrow_merged.csv").write_text(
        "Id,ActivityMinute,METs\n1,4/12/2016 12:00:00 AM,10\n1,4/12/2016 12:01:00 AM,40\n"
    )
    (tmp_path / "heartrate_seconds_merged.csv").write_text(
        "Id,Time,Value\n1,4/12/2016 12:01:05 AM,80\n1,4/12/2016 12:01:35 AM,90\n1,4/12/2016 12:03:00 AM,70\n"
    )
    (tmp_path / "minuteSleep_merged.csv").write_text(
        "Id,date,value,logId\n1,4/12/2016 2:00:30 AM,1,9\n1,4/12/2016 2:01:30 AM,2,9\n"
    )
    return tmp_path


def test_hand_built_minutes(folder: Path) -> None:
    cohort = fitabase_minutes(folder)
    user = cohort.user("1")
    assert user.values.shape == (1, N_CHANNELS, 1440)
    d = user.values[0]
    assert d[3, :2].tolist() == [0.0, 12.0]
    assert d[3, 13 * 60 + 5] == 30.0
    assert d[3].sum() == 42.0  # minutes without a row are 0
    assert d[HR, 1] == 85.0  # mean of the minute's seconds
    assert d[HR, 3] == 70.0
    assert int(np.isfinite(d[HR]).sum()) == 2
    assert d[6, :2].tolist() == [0.0, 3.0]  # kcal x (1 - 1/MET): 1 MET -> 0, 4 kcal at 4 MET -> 3
    assert np.flatnonzero(d[7]).tolist() == [120]  # value 1 = asleep
    assert np.flatnonzero(d[8]).tolist() == [120, 121]  # any sleep row = in bed
    for ch in (0, 1, 2, 4, *range(9, 19)):
        assert np.isnan(d[ch]).all()
    assert cohort.source["missing_channels"]["1"] == [CHANNEL_NAMES[c] for c in (0, 1, 2, 4, *range(9, 19))]
    # worn = an HR sample or steps: minutes 1 (steps + HR), 3 (HR), 13:05 (steps)
    assert np.flatnonzero(~user.non_wear[0]).tolist() == [1, 3, 785]


def test_real_export_reports_missing_channels(shared_data: Path, tmp_path: Path) -> None:
    root = shared_data / "fitbit_fitabase"
    cohort = fitabase_minutes(root, tmp_path / "m", users=["2022484408", "1503960366"])
    back = load_minute_cohort(tmp_path / "m")
    assert back.user_ids == ["2022484408", "1503960366"]
    with_hr, without = cohort.users
    assert with_hr.values.shape == (31, N_CHANNELS, 1440)
    assert CHANNEL_NAMES[HR] not in cohort.source["missing_channels"]["2022484408"]
    assert CHANNEL_NAMES[HR] in cohort.source["missing_channels"]["1503960366"]
    assert np.isnan(without.values[:, HR]).all()
    # first heart-rate row: 4/12/2016 7:21:00 AM, 97 (then 102 at :05, …)
    assert 90 < with_hr.values[0, HR, 7 * 60 + 21] < 110
    assert with_hr.values[0, 3, 0] == 0.0
    for user in cohort.users:
        keep = retained_days(user.values, user.non_wear)
        seg = hourly(zero_to_nan(user.values[keep]))
        assert seg.shape == (int(keep.sum()), 24, 38)
        assert keep.any()
