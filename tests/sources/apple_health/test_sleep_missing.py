"""Efficiency and stage shares are missing (and counted) when the export cannot support them."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import wearbench
from wearbench import WearbenchError
from wearbench.sources import import_source
from wearbench.sources.apple_health import write_export
from wearbench.sources.apple_health._sleep import CORE_ONLY, NO_IN_BED, NO_STAGES

from ._xml import PHONE, export, sleep

Z = " +0000"


def _rows(tmp_path: Path, body: str) -> tuple[pd.DataFrame, dict[str, int], dict[str, list[str]]]:
    cohort, report = import_source("apple-health", export(tmp_path, body))
    return cohort.daily.set_index("date"), dict(report.repairs), dict(report.examples)


def test_asleep_only_nights_have_no_efficiency_and_no_stages(tmp_path: Path) -> None:
    body = (
        # night 1 (wake 03-02): two legacy Asleep segments, 180 + 240 min, nothing else
        sleep("2024-03-01 23:00:00" + Z, "2024-03-02 02:00:00" + Z, "Asleep", PHONE)
        + sleep("2024-03-02 02:30:00" + Z, "2024-03-02 06:30:00" + Z, "Asleep", PHONE)
        # night 2 (wake 03-03): one Asleep segment, 480 min
        + sleep("2024-03-02 22:00:00" + Z, "2024-03-03 06:00:00" + Z, "Asleep", PHONE)
        # night 3 (wake 03-04): Asleep 240 + Awake 30 + Asleep 210 → in bed 480, efficiency 93.75 %
        + sleep("2024-03-03 23:00:00" + Z, "2024-03-04 03:00:00" + Z, "Asleep", PHONE)
        + sleep("2024-03-04 03:00:00" + Z, "2024-03-04 03:30:00" + Z, "Awake", PHONE)
        + sleep("2024-03-04 03:30:00" + Z, "2024-03-04 07:00:00" + Z, "Asleep", PHONE)
    )
    d, repairs, examples = _rows(tmp_path, body)
    assert d.loc["2024-03-02", "sleep_minutes"] == 420
    assert d.loc["2024-03-03", "sleep_minutes"] == 480
    assert d.loc["2024-03-04", "sleep_minutes"] == 450
    assert math.isnan(d.loc["2024-03-02", "sleep_efficiency"])
    assert math.isnan(d.loc["2024-03-03", "sleep_efficiency"])
    assert d.loc["2024-03-04", "sleep_efficiency"] == pytest.approx(100 * 450 / 480)
    for day in ("2024-03-02", "2024-03-03", "2024-03-04"):
        assert math.isnan(d.loc[day, "deep_sleep_pct"])
        assert math.isnan(d.loc[day, "rem_sleep_pct"])
    assert repairs[NO_IN_BED] == 2
    assert repairs[NO_STAGES] == 3
    assert CORE_ONLY not in repairs
    assert examples[NO_IN_BED][0].startswith("ann.xml line 5, user ann, 2024-03-01")  # first segment


def test_core_only_night_has_no_stage_shares(tmp_path: Path) -> None:
    body = (
        # night 1 (wake 03-02): InBed 480, Core 420 + Awake 15 → efficiency 87.5 %, no deep/REM
        sleep("2024-03-01 23:00:00" + Z, "2024-03-02 07:00:00" + Z, "InBed", PHONE)
        + sleep("2024-03-01 23:30:00" + Z, "2024-03-02 06:30:00" + Z, "AsleepCore")
        + sleep("2024-03-02 06:30:00" + Z, "2024-03-02 06:45:00" + Z, "Awake")
        # night 2 (wake 03-03): Core 300 + Deep 100, no REM → REM is a measured 0 %
        + sleep("2024-03-02 23:00:00" + Z, "2024-03-03 04:00:00" + Z, "AsleepCore")
        + sleep("2024-03-03 04:00:00" + Z, "2024-03-03 05:40:00" + Z, "AsleepDeep")
        + sleep("2024-03-03 05:40:00" + Z, "2024-03-03 06:00:00" + Z, "Awake")
    )
    d, repairs, _ = _rows(tmp_path, body)
    one, two = d.loc["2024-03-02"], d.loc["2024-03-03"]
    assert one["sleep_minutes"] == 420
    assert one["sleep_efficiency"] == pytest.approx(87.5)
    assert math.isnan(one["deep_sleep_pct"])
    assert math.isnan(one["rem_sleep_pct"])
    assert two["sleep_minutes"] == 400
    assert two["sleep_efficiency"] == pytest.approx(100 * 400 / 420)
    assert two["deep_sleep_pct"] == pytest.approx(25.0)
    assert two["rem_sleep_pct"] == 0.0
    assert repairs[CORE_ONLY] == 1
    assert NO_IN_BED not in repairs
    assert NO_STAGES not in repairs


def test_staged_night_keeps_efficiency_and_stages_and_counts_nothing(tmp_path: Path) -> None:
    stages = [
        ("2024-03-01 23:00:00", "2024-03-01 23:20:00", "Awake"),  # 20
        ("2024-03-01 23:20:00", "2024-03-02 01:20:00", "AsleepCore"),  # 120
        ("2024-03-02 01:20:00", "2024-03-02 02:20:00", "AsleepDeep"),  # 60
        ("2024-03-02 02:20:00", "2024-03-02 03:20:00", "AsleepREM"),  # 60
        ("2024-03-02 03:20:00", "2024-03-02 06:20:00", "AsleepCore"),  # 180
    ]
    body = sleep("2024-03-01 23:00:00" + Z, "2024-03-02 07:00:00" + Z, "InBed", PHONE)
    body += "".join(sleep(s + Z, e + Z, st) for s, e, st in stages)
    d, repairs, _ = _rows(tmp_path, body)
    row = d.loc["2024-03-02"]
    assert row["sleep_minutes"] == 420
    assert row["sleep_efficiency"] == pytest.approx(87.5)
    assert row["deep_sleep_pct"] == pytest.approx(100 * 60 / 420)
    assert row["rem_sleep_pct"] == pytest.approx(100 * 60 / 420)
    assert not {NO_IN_BED, NO_STAGES, CORE_ONLY} & set(repairs)


@pytest.mark.parametrize("style", ["asleep", "core", "stages"])
def test_generated_exports_by_sleep_layout(style: str, tmp_path: Path) -> None:
    cohort = wearbench.synth(n_users=1, n_days=20, seed=3, reference_users=0)
    path = write_export(cohort, "u0001", tmp_path / "export.xml", seed=2, samples_per_day=24, sleep=style)
    loaded, report = import_source("apple-health", path)
    want = cohort.daily.set_index("date")
    got = loaded.daily.set_index("date").reindex(want.index)
    nights = int(want["sleep_minutes"].notna().sum())
    assert nights >= 15
    np.testing.assert_allclose(got["sleep_minutes"], want["sleep_minutes"], atol=0.05)
    if style == "asleep":
        assert got["sleep_efficiency"].isna().all()
        assert report.repairs[NO_IN_BED] == nights
    else:
        np.testing.assert_allclose(got["sleep_efficiency"], want["sleep_efficiency"], atol=0.01)
        assert NO_IN_BED not in report.repairs
    if style == "stages":
        np.testing.assert_allclose(got["deep_sleep_pct"], want["deep_sleep_pct"], atol=0.01)
        assert not {NO_STAGES, CORE_ONLY} & set(report.repairs)
    else:
        assert got[["deep_sleep_pct", "rem_sleep_pct"]].isna().all().all()
        kind = NO_STAGES if style == "asleep" else CORE_ONLY
        assert report.repairs[kind] == nights


def test_unknown_sleep_layout_is_refused(tmp_path: Path) -> None:
    cohort = wearbench.synth(n_users=1, n_days=2, seed=3, reference_users=0)
    with pytest.raises(WearbenchError, match="sleep style 'naps'"):
        write_export(cohort, "u0001", tmp_path / "export.xml", seed=2, sleep="naps")
