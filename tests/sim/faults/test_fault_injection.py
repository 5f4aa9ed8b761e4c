"""Fault injection inside the closed loop: labels, intervals and per-type signal effects."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("simglucose")

from wearbench.sim import BasalBolusController, ControllerAction, simulate, write_simulation
from wearbench.sim.faults import FaultEvent, FaultPlan, fault_names, random_faults
from wearbench.sim.patient._params import FloatArray

PATIENTS = ["adult#001", "adolescent#001", "child#001"]
LABELS = {
    "missing_signal", "positive_spike", "negative_spike", "repeated_reading", "negative_bias",
    "positive_bias", "min_reading", "max_reading", "repeated_episode", "zero_reading", "false_meal",
    "false_bolus", "positive_basal", "negative_basal", "max_basal", "min_basal", "unknown_stop",
    "unknown_under",
}  # fmt: skip
NO_MEALS = np.zeros((1, 2 * 1440))
NO_MEALS[0, [420, 720, 1080, 1440 + 420, 1440 + 720]] = 50.0  # meals away from the fault intervals


@pytest.fixture(scope="module")
def random_run() -> tuple[FaultPlan, pd.DataFrame]:
    plan = random_faults(None, 3, 3 * 1440, np.random.default_rng(7))
    return plan, simulate(PATIENTS, 3, seed=0, faults=plan)


def one(
    label: str, start: int = 900, duration: int = 120, intensity: float = 0.5, **kw: object
) -> pd.DataFrame:
    plan = FaultPlan((FaultEvent(0, start, duration, label, intensity),))
    return simulate(["adult#001"], 2, meals=NO_MEALS, seed=3, faults=plan, **kw)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def clean() -> pd.DataFrame:
    return simulate(["adult#001"], 2, meals=NO_MEALS, seed=3, faults=FaultPlan())


def samples(df: pd.DataFrame, start: int = 900, duration: int = 120) -> pd.DataFrame:
    m = df["minute"]
    return df[(m >= start) & (m < start + duration) & (m % 3 == 0)]


def test_all_labels_registered() -> None:
    assert set(fault_names()) == LABELS


def test_empty_plan_matches_fault_free_run(clean: pd.DataFrame) -> None:
    base = simulate(["adult#001"], 2, meals=NO_MEALS, seed=3)
    for column in base.columns:
        assert base[column].equals(clean[column]), column
    assert (clean["label"] == "").all()
    assert np.array_equal(clean["cgm"], clean["cgm_clean"])


def test_random_run_labels_cover_intervals(
    random_run: tuple[FaultPlan, pd.DataFrame], tmp_path: Path
) -> None:
    plan, df = random_run
    assert {e.label for e in plan.events} == LABELS
    for p in range(3):
        mine = sorted((e for e in plan.events if e.patient == p), key=lambda e: e.start)
        assert all(a.end <= b.start for a, b in itertools.pairwise(mine))
    assert all(0.5 <= e.intensity <= 1.0 for e in plan.events)
    write_simulation(df, tmp_path, sample_time=3, params={}, faults=plan)
    labels = pd.read_parquet(tmp_path / "labels.parquet")
    minute = (labels["time"] - pd.Timestamp("2024-01-01")) // pd.Timedelta(minutes=1)
    expected = pd.Series("", index=labels.index, dtype=object)
    for e in plan.events:
        hit = (labels["subject_id"] == PATIENTS[e.patient]) & (minute >= e.start) & (minute < e.end)
        assert hit.sum() == len(range(-(-e.start // 3) * 3, e.end, 3))
        expected[hit] = e.label
    assert (labels["label"] == expected).all()
    intervals = pd.read_parquet(tmp_path / "faults.parquet")
    assert len(intervals) == len(plan.events)
    assert set(intervals.columns) == {"subject_id", "start", "end", "label", "intensity", "description"}
    assert ((intervals["end"] - intervals["start"]) >= pd.Timedelta(minutes=30)).all()
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert {"labels.parquet", "faults.parquet"} <= set(manifest["files"])
    readings = pd.read_parquet(tmp_path / "readings.parquet")
    assert readings["glucose"].isna().any()  # missing_signal


def test_repeated_reading_repeats_exactly() -> None:
    s = samples(one("repeated_reading"))
    assert (s["cgm"] == s["cgm"].iloc[0]).all()
    assert s["cgm_clean"].nunique() > 1


class Spy(BasalBolusController):
    """Basal-bolus, remembering the glucose it was given each minute."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[float] = []

    def policy(self, cgm: FloatArray, carbs: FloatArray, minute: int) -> ControllerAction:
        self.seen.append(float(cgm[0]))
        return super().policy(cgm, carbs, minute)


def test_positive_bias_raises_what_controller_sees() -> None:
    spy = Spy()
    df = one("positive_bias", controller=spy)
    s = samples(df)
    assert np.allclose(s["cgm"] - s["cgm_clean"], 32.0)
    assert (s["cgm"] - s["true_bg"]).mean() > 20.0  # the sensor lies, the truth does not
    seen = np.asarray(spy.seen)[s["minute"].to_numpy()]
    assert np.array_equal(seen, s["cgm"].to_numpy())


def test_negative_bias_and_spikes() -> None:
    s = samples(one("negative_bias", intensity=1.0))
    assert np.allclose(s["cgm"], np.maximum(s["cgm_clean"] - 64.0, 0.0))
    up = samples(one("positive_spike", intensity=0.5))
    assert (up["cgm"] >= up["cgm_clean"]).all()
    assert (up["cgm"] - up["cgm_clean"]).max() > 90.0
    down = samples(one("negative_spike", intensity=0.5))
    assert (down["cgm"] <= down["cgm_clean"]).all()
    assert (down["cgm_clean"] - down["cgm"]).max() > 50.0


def test_missing_signal_is_nan_and_controller_holds() -> None:
    df = one("missing_signal")
    s = samples(df)
    assert s["cgm"].isna().all()
    assert np.isfinite(df["insulin"]).all()
    assert df.loc[df["minute"] < 900, "cgm"].notna().all()


@pytest.mark.parametrize(
    ("label", "value"), [("zero_reading", 0.0), ("min_reading", 39.0), ("max_reading", 600.0)]
)
def test_stuck_readings(label: str, value: float) -> None:
    assert (samples(one(label))["cgm"] == value).all()


def test_repeated_episode_replays_yesterday() -> None:
    df = one("repeated_episode", start=1440 + 900)
    s = samples(df, start=1440 + 900)
    yesterday = df.set_index("minute")["cgm_clean"]
    assert np.array_equal(s["cgm"].to_numpy(), yesterday.loc[s["minute"] - 1440].to_numpy())


@pytest.mark.parametrize(
    "label",
    [
        "positive_basal",
        "negative_basal",
        "max_basal",
        "min_basal",
        "false_bolus",
        "unknown_stop",
        "unknown_under",
    ],
)
def test_delivery_faults_change_physiology(label: str, clean: pd.DataFrame) -> None:
    df = one(label, intensity=1.0)
    before, after = df["minute"] < 900, df["minute"] >= 960
    assert np.array_equal(df.loc[before, "true_bg"], clean.loc[before, "true_bg"])
    assert not np.allclose(df.loc[after, "true_bg"], clean.loc[after, "true_bg"])
    window = df[(df["minute"] >= 900) & (df["minute"] < 1020)]
    assert not np.allclose(window["insulin_delivered"], window["insulin_requested"])
    if label.startswith("unknown_"):  # the pump shows the normal dose
        assert np.array_equal(window["insulin"], window["insulin_requested"])
        assert (window["insulin_delivered"] < window["insulin"]).all()
    else:
        assert np.array_equal(df["insulin"], df["insulin_delivered"])
    assert (df["cgm_clean"] == df["cgm"]).all()  # sensor is fine


def test_false_meal_boluses_without_carbs(clean: pd.DataFrame) -> None:
    df = one("false_meal", intensity=0.5)
    at = df[df["minute"] == 900].iloc[0]
    assert at["carbs"] == 30.0
    assert at["carbs_eaten"] == 0.0
    assert at["insulin_requested"] > clean[clean["minute"] == 900].iloc[0]["insulin_requested"] + 1.0
    later = (df["minute"] > 900) & (df["minute"] < 1200)
    assert (df.loc[later, "true_bg"].to_numpy() < clean.loc[later, "true_bg"].to_numpy()).all()
