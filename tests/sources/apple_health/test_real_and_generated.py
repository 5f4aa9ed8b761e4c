import re
import zipfile
from pathlib import Path
from xml.parsers import expat

import numpy as np
import pandas as pd
import pytest

import wearbench
from wearbench.cohort import Cohort
from wearbench.sources import import_source
from wearbench.sources.apple_health import CHANNELS, minute_channels, write_export
from wearbench.sources.apple_health._dtd import APPLE_DTD

from ._xml import PHONE, WATCH, export, rec

FIXTURES = [
    "alxdrcirilo_apple-health-parser/export.xml",
    "alxdrcirilo_apple-health-parser/export.zip",
    "paulstaab_health-data-parser/export.xml",
    "paulstaab_health-data-parser/export.zip",
    "simonw_healthkit-to-sqlite/export.xml",
    "simonw_healthkit-to-sqlite/zip_contents",
]


@pytest.mark.parametrize("rel", FIXTURES)
def test_real_fixtures_load(shared_data: Path, rel: str, tmp_path: Path) -> None:
    cohort, report = import_source("apple-health", shared_data / "apple_health" / rel, tmp_path / "c")
    assert cohort.n_users == 1
    assert report.days >= 1
    assert (tmp_path / "c" / "import_report.json").is_file()


def test_real_fixture_values(shared_data: Path) -> None:
    root = shared_data / "apple_health"
    alx, _ = import_source("apple-health", root / "alxdrcirilo_apple-health-parser/export.zip")
    assert alx.demographics[["age", "sex"]].iloc[0].tolist() == [
        34.0,
        "M",
    ]  # born 1990-05-20, export 2024-06-01
    paul, _ = import_source("apple-health", root / "paulstaab_health-data-parser/export.xml")
    d = paul.daily.set_index("date")
    assert d.loc["2023-12-28", "exercise_minutes"] == 12.5
    assert d.loc["2023-12-28", "exercise_avg_hr"] == pytest.approx((150 + 152 + 160 + 162 + 170) / 5)
    simon, _ = import_source("apple-health", root / "simonw_healthkit-to-sqlite/export.xml")
    assert simon.daily["exercise_minutes"].iloc[0] == pytest.approx(5.19412346680959)


@pytest.fixture(scope="module")
def cohort() -> Cohort:
    return wearbench.synth(n_users=2, n_days=30, seed=11, reference_users=0)


@pytest.fixture(scope="module", params=[5, 11], ids=["utc+0100", "utc-0500"])
def generated(
    cohort: Cohort, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Path:
    out = tmp_path_factory.mktemp("gen") / "export.xml"
    path = write_export(cohort, "u0002", out, seed=request.param, samples_per_day=120)
    head = path.read_text(encoding="utf-8")[:200_000]
    assert 'startDate="2024-01-01 00:' in head  # the first heart-rate samples, in local time
    assert {5: ' +0100"', 11: ' -0500"'}[request.param] in head
    return path


def test_round_trip_matches_the_intended_daily_values(cohort: Cohort, generated: Path) -> None:
    loaded, report = import_source("apple-health", generated)
    got = loaded.daily.set_index("date")
    want = cohort.daily[cohort.daily["user_id"] == "u0002"].set_index("date")
    tolerance = {
        "steps": 0,
        "resting_hr": 1e-9,
        "sleep_minutes": 0.05,
        "sleep_efficiency": 0.01,
        "deep_sleep_pct": 0.01,
        "rem_sleep_pct": 0.01,
        "active_kcal": 1e-3,
        "bmr_kcal": 1e-3,
        "hrv": 0.01,
        "exercise_count": 0,
        "exercise_minutes": 1e-4,
        "mets": 1e-4,
        "exercise_avg_hr": 1e-9,
    }
    for name, tol in tolerance.items():
        w = want[name].dropna()
        assert len(w) > 0 or name == "exercise_avg_hr"
        np.testing.assert_allclose(got[name].reindex(w.index), w, atol=tol, rtol=0, err_msg=name)
    demo = cohort.demographics.set_index("user_id").loc["u0002"]
    assert loaded.demographics[["age", "sex"]].iloc[0].tolist() == [demo["age"], demo["sex"]]
    # every day's duplicate iPhone bouts were dropped and one half-overlap split
    assert report.repairs["steps: sample overlapped by a better source, value split proportionally"] >= 25


def test_generated_export_is_dtd_conformant(generated: Path) -> None:
    text = generated.read_text(encoding="utf-8")
    assert text.startswith(APPLE_DTD)
    content = dict(re.findall(r"<!ELEMENT (\w+) (.*?)>\n", APPLE_DTD))
    declared: dict[str, dict[str, bool]] = {}
    for name, body in re.findall(r"<!ATTLIST (\w+)\n(.*?)\n>", APPLE_DTD, flags=re.S):
        declared[name] = {
            a: kind == "#REQUIRED" for a, _, kind in re.findall(r"(\w+)\s+(CDATA)\s+(#\w+)", body)
        }
    stack: list[str] = []
    seen: set[str] = set()

    def start(tag: str, attrs: dict[str, str]) -> None:
        assert tag in content, tag
        if stack:
            assert re.search(rf"\b{tag}\b", content[stack[-1]]), f"{tag} inside {stack[-1]}"
        allowed = declared.get(tag, {})
        assert set(attrs) <= set(allowed), (tag, set(attrs) - set(allowed))
        assert {a for a, req in allowed.items() if req} <= set(attrs), tag
        stack.append(tag)
        seen.add(tag)

    parser = expat.ParserCreate()
    parser.StartElementHandler = start
    parser.EndElementHandler = lambda tag: stack.pop()
    parser.Parse(text.encode("utf-8"), True)
    assert {"HealthData", "ExportDate", "Me", "Record", "Workout", "MetadataEntry"} <= seen


def test_generated_zip_loads_like_the_xml(generated: Path, tmp_path: Path) -> None:
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.write(generated, "apple_health_export/export.xml")
    a, _ = import_source("apple-health", generated)
    b, _ = import_source("apple-health", path)
    pd.testing.assert_frame_equal(a.daily.drop(columns="user_id"), b.daily.drop(columns="user_id"))


def test_minute_channels_hand_computed(tmp_path: Path) -> None:
    z = " +0100"
    body = (
        rec("StepCount", "2024-01-01 10:00:00" + z, "2024-01-01 10:10:00" + z, "100")
        + rec("StepCount", "2024-01-01 10:00:00" + z, "2024-01-01 10:05:00" + z, "30", PHONE)
        + rec(
            "DistanceWalkingRunning", "2024-01-01 10:00:00" + z, "2024-01-01 10:02:00" + z, "0.2", unit="km"
        )
        + rec("HeartRate", "2024-01-01 10:03:10" + z, "2024-01-01 10:03:10" + z, "90", unit="count/min")
        + rec("HeartRate", "2024-01-01 10:03:40" + z, "2024-01-01 10:03:40" + z, "100", unit="count/min")
        + rec("ActiveEnergyBurned", "2024-01-01 10:00:30" + z, "2024-01-01 10:01:30" + z, "2", unit="kcal")
        + f' <Workout workoutActivityType="HKWorkoutActivityTypeRowing" {WATCH}'
        ' startDate="2024-01-01 10:08:30 +0100" endDate="2024-01-01 10:10:00 +0100"/>\n'
    )
    out = minute_channels(export(tmp_path, body), tmp_path / "m.parquet")
    back = pd.read_parquet(out)
    assert list(back.columns) == list(CHANNELS)
    assert len(CHANNELS) == 19
    m = back.loc[pd.Timestamp("2024-01-01 10:00") : pd.Timestamp("2024-01-01 10:09")]
    assert m["watch_steps"].tolist() == [10.0] * 10
    assert m["phone_steps"].tolist() == [6.0] * 5 + [0.0] * 5
    assert m["watch_distance"].tolist()[:3] == [100.0, 100.0, 0.0]  # metres
    assert back.loc["2024-01-01 10:03", "heart_rate"] == 95.0
    assert np.isnan(back.loc["2024-01-01 10:04", "heart_rate"])
    assert m["active_energy"].tolist()[:3] == [1.0, 1.0, 0.0]
    assert m["workout_other"].tolist()[-2:] == [0.5, 1.0]  # Rowing is not among the ten → Other
    assert back.index.is_monotonic_increasing
    assert back.index[0] == pd.Timestamp("2024-01-01 10:00")  # local wall clock (+0100)


def test_minute_channels_of_a_generated_export(generated: Path, tmp_path: Path) -> None:
    frame = pd.read_parquet(minute_channels(generated, tmp_path / "g.parquet"))
    daily, _ = import_source("apple-health", generated)
    steps = frame["watch_steps"].groupby(frame.index.normalize()).sum()
    assert steps.sum() > 0
    assert frame.index.is_unique
    assert frame["asleep"].between(0, 1).all()
    assert frame["in_bed"].max() == 1.0
    # asleep minutes per wake day ≈ loader's sleep minutes (sessions end in the morning)
    asleep = frame["asleep"].groupby((frame.index + pd.Timedelta(hours=12)).normalize()).sum()
    got = daily.daily.set_index("date")["sleep_minutes"].dropna()
    np.testing.assert_allclose(asleep.reindex(got.index), got, atol=0.1)
