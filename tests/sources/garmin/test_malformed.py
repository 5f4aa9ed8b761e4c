"""Malformed input: one-line errors naming the file, or counted rejections — never a traceback."""

import shutil
from pathlib import Path

import pytest

from wearbench import WearbenchError
from wearbench.sources import import_source

ACT = "Activity Data"
SLEEP = "Sleep Data"
MON_HEAD = (
    "sleep_ts,step_count,heart_rate,current_activity_type_intensity,stress_level_value,sleep_level,"
    "resting_heart_rate"
)


def _head(src: Path, dst: Path, lines: int, cut: int = 0) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(src.read_text().splitlines(keepends=True)[:lines])
    dst.write_text(text[: len(text) - cut] if cut else text)


@pytest.fixture
def small_uom(shared_data: Path, tmp_path: Path) -> Path:
    """First 3 days of participant 2301's epochs (day 1 from 05:45) as a T1D-UOM folder."""
    src = shared_data / "t1d_uom" / ACT / "UoMActivity2301.csv"
    _head(src, tmp_path / ACT / "UoMActivity2301.csv", 300)
    return tmp_path


def test_truncated_csv_row_is_counted(small_uom: Path) -> None:
    f = small_uom / ACT / "UoMActivity2301.csv"
    f.write_text(f.read_text().rstrip("\n")[:-40])  # last line cut mid-row
    cohort, report = import_source("garmin-uom", small_uom)
    kind = "activity: row with an empty or non-numeric value"
    assert report.rejections[kind] == 1
    assert report.examples[kind][0].startswith("UoMActivity2301.csv line 300: user 2301, 2023-10")
    assert cohort.n_users == 1


def test_wrong_header_names_file_line_and_column(small_uom: Path) -> None:
    f = small_uom / ACT / "UoMActivity2301.csv"
    f.write_text(f.read_text().replace("step_count", "steps", 1))
    with pytest.raises(
        WearbenchError, match=r"UoMActivity2301\.csv: line 1: missing column\(s\) step_count"
    ) as e:
        import_source("garmin-uom", small_uom)
    assert "\n" not in str(e.value)


def test_empty_file_is_one_line_error(small_uom: Path) -> None:
    (small_uom / SLEEP).mkdir()
    (small_uom / SLEEP / "UoMsleep2301.csv").write_text("")
    with pytest.raises(WearbenchError, match=r"UoMsleep2301\.csv: line 1: empty file") as e:
        import_source("garmin-uom", small_uom)
    assert "\n" not in str(e.value)


def test_bad_timestamp_is_counted(small_uom: Path) -> None:
    f = small_uom / ACT / "UoMActivity2301.csv"
    lines = f.read_text().splitlines()
    lines[5] = "31/02/2204 06:45" + lines[5][16:]
    f.write_text("\n".join(lines) + "\n")
    _, report = import_source("garmin-uom", small_uom)
    assert report.rejections["activity: unparseable activity_ts"] == 1
    assert report.examples["activity: unparseable activity_ts"] == [
        "UoMActivity2301.csv line 6: user 2301, activity_ts = '31/02/2204 06:45'"
    ]


def test_stress_codes_are_counted_not_averaged(small_uom: Path) -> None:
    rows = [MON_HEAD]
    for i in range(24):  # 2 h on 2 Oct 2023 from 10:00 UTC: -1, -2, then 30, 31, 32 …
        value = -1 if i == 0 else -2 if i == 1 else 28 + i
        rows.append(
            f"02/10/2023 {10 + i // 12:02d}:{5 * (i % 12):02d},0,70,0,{value},0,{61 if i == 23 else 0}"
        )
    (small_uom / SLEEP).mkdir()
    (small_uom / SLEEP / "UoMsleep2301.csv").write_text("\n".join(rows) + "\n")
    cohort, report = import_source("garmin-uom", small_uom)
    assert report.rejections["stress: Garmin code -1 (not enough data / off wrist), not a value"] == 1
    assert report.rejections["stress: Garmin code -2 (too much motion), not a value"] == 1
    day = cohort.daily.set_index("date").loc["2023-10-02"]
    assert day["stress"] == pytest.approx(sum(range(30, 52)) / 22)
    assert day["resting_hr"] == 61


def test_not_a_uom_folder(tmp_path: Path) -> None:
    with pytest.raises(WearbenchError, match="no UoMActivity"):
        import_source("garmin-uom", tmp_path)


def test_truncated_fit_names_the_file(shared_data: Path, tmp_path: Path) -> None:
    pytest.importorskip("fitdecode")
    data = (shared_data / "garmin_fit" / "garmin-fenix-5-run.fit").read_bytes()
    (tmp_path / "cut.fit").write_bytes(data[: len(data) // 2])
    with pytest.raises(WearbenchError, match=r"cut\.fit: not a complete FIT file \(FitEOFError") as e:
        import_source("fit", tmp_path)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", r"empty\.fit: empty file"),
        (b"hello, this is not a FIT file", r"junk\.fit: not a complete FIT file"),
    ],
)
def test_not_fit_files(tmp_path: Path, content: bytes, message: str) -> None:
    pytest.importorskip("fitdecode")
    name = "empty.fit" if not content else "junk.fit"
    (tmp_path / name).write_bytes(content)
    with pytest.raises(WearbenchError, match=message):
        import_source("fit", tmp_path / name)


def test_weight_files_alone_give_no_daily_data(shared_data: Path, tmp_path: Path) -> None:
    pytest.importorskip("fitdecode")
    shutil.copy(shared_data / "garmin_fit" / "WeightScaleSingleUser.fit", tmp_path)
    with pytest.raises(WearbenchError, match="no activity or monitoring data in 1 FIT file"):
        import_source("fit", tmp_path)
    (tmp_path / "sub").mkdir()
    with pytest.raises(WearbenchError, match=r"no \.fit files"):
        import_source("fit", tmp_path / "sub")
