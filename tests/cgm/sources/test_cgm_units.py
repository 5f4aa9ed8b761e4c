"""Unit sanity (issue 11, deliver 2) on the real Dexcom Clarity export of the shared data.

The broken files are made from ``cgm_dexcom_clarity/test_file.csv`` (2,148 EGV rows, file lines
13-2160, mg/dL) by the helpers below, as the issue reported them:

* a copy whose 3-hour block at file lines 1927-1962 (36 readings, 165-261 mg/dL, the file's
  highest 3-hour mean, 209 mg/dL) is rewritten in mmol/L (value / 18.016, one decimal). Read as
  mg/dL, those 36 rows (9.2-14.5) would raise time below 54 mg/dL from 8/2148 = 0.37 % to
  44/2148 = 2.05 %;
* two exports concatenated: lines 1-1085 (header, 11 settings rows, the first 1,073 EGV rows in
  mg/dL), then a second export: its header says ``Glucose Value (mmol/L)``, the same 11 settings
  rows, and EGV rows 1,074-2,148 in mmol/L.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from wearbench._errors import WearbenchError
from wearbench.cgm import cgm_metrics
from wearbench.cgm.sources import import_cgm

MGDL_PER_MMOL = 18.016  # what the issue's broken file used
BLOCK = (1927, 1962)  # file lines (1-based) of the 3-hour block
HALF = 1085  # last file line of the first export (12 + 1,073 EGV rows)
GLUCOSE_COL = 7  # "Glucose Value (mg/dL)"
CONVERTED = "dexcom-clarity: glucose block written in mmol/L inside mg/dL data, converted"


def _lines(shared_data: Path) -> list[str]:
    text = (shared_data / "cgm_dexcom_clarity" / "test_file.csv").read_text(encoding="utf-8-sig")
    return text.splitlines()


def _mmol(line: str) -> str:
    cells = line.split(",")
    cells[GLUCOSE_COL] = f"{float(cells[GLUCOSE_COL]) / MGDL_PER_MMOL:.1f}"
    return ",".join(cells)


def unit_block_copy(shared_data: Path, out: Path, first: int = BLOCK[0], last: int = BLOCK[1]) -> Path:
    """The clean export with file lines ``first``-``last`` (EGV rows) rewritten in mmol/L."""
    lines = _lines(shared_data)
    for i in range(first - 1, last):
        assert lines[i].split(",")[2] == "EGV", lines[i]
        lines[i] = _mmol(lines[i])
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def two_unit_export(shared_data: Path, out: Path) -> Path:
    """Two exports in one file: lines 1..HALF in mg/dL, then a mmol/L export of the rest."""
    lines = _lines(shared_data)
    head, settings = lines[0], lines[1:12]
    second = [head.replace("Glucose Value (mg/dL)", "Glucose Value (mmol/L)"), *settings]
    second += [_mmol(line) for line in lines[HALF:]]
    out.write_text("\n".join(lines[:HALF] + second) + "\n", encoding="utf-8")
    return out


def _metrics(path: Path) -> tuple[pd.DataFrame, dict[str, Any], dict[str, float]]:
    data, report = import_cgm("dexcom-clarity", path)
    r = data.readings
    m = cgm_metrics(r["time"], r["glucose"])
    keys = ("tbr_54", "tbr_70", "tir_70_180", "tar_180", "tar_250", "mean", "cv", "gmi")
    return r, report, {k: float(getattr(m, k)) for k in keys} | {"n": m.n_readings}


def test_helpers_make_the_issue_files(shared_data: Path, tmp_path: Path) -> None:
    block = unit_block_copy(shared_data, tmp_path / "block.csv").read_text().splitlines()
    assert block[1926].split(",")[GLUCOSE_COL] == "10.0"  # line 1927: 180 mg/dL / 18.016 = 9.99
    assert block[1961].split(",")[GLUCOSE_COL] == "9.2"  # line 1962: 165 mg/dL / 18.016 = 9.16
    assert block[1925].split(",")[GLUCOSE_COL] == "160"  # line 1926 untouched
    both = two_unit_export(shared_data, tmp_path / "both.csv").read_text().splitlines()
    assert len(both) == 2160 + 12
    assert both[HALF].endswith("Glucose Value (mmol/L),Insulin Value (u),Carb Value (grams),"
                               "Duration (hh:mm:ss),Glucose Rate of Change (mg/dL/min)")  # fmt: skip
    first_mmol = float(_lines(shared_data)[HALF].split(",")[GLUCOSE_COL]) / 18.016
    assert both[HALF + 12].split(",")[GLUCOSE_COL] == f"{first_mmol:.1f}"


def test_unit_block_gives_the_clean_metrics(shared_data: Path, tmp_path: Path) -> None:
    clean_r, _, clean = _metrics(shared_data / "cgm_dexcom_clarity" / "test_file.csv")
    r, report, fixed = _metrics(unit_block_copy(shared_data, tmp_path / "block.csv"))
    assert clean["tbr_54"] == pytest.approx(100 * 8 / 2148)  # 0.37 %, as the issue measured
    assert fixed["n"] == clean["n"] == 2148
    for key in ("tbr_54", "tbr_70", "tar_250"):
        assert fixed[key] == clean[key], key
    # 0.1 mmol/L is 1.8 mg/dL: line 1927's 180 mg/dL comes back as 10.0 x 18.0156 = 180.16, just
    # above the 70-180 range; it is the block's only reading that crosses a cut-off (1 of 2,148).
    assert fixed["tir_70_180"] == pytest.approx(clean["tir_70_180"] - 100 / 2148)
    assert fixed["tar_180"] == pytest.approx(clean["tar_180"] + 100 / 2148)
    # 36 values rounded to 0.1 mmol/L move at most 0.05 x 18.0156 = 0.9 mg/dL each
    assert abs(fixed["mean"] - clean["mean"]) <= 36 * 0.901 / 2148
    assert (r["glucose"] - clean_r["glucose"]).abs().max() <= 0.901
    assert r["glucose"].iloc[1927 - 13] == pytest.approx(10.0 * 18.0156)
    assert r["glucose"].iloc[1962 - 13] == pytest.approx(9.2 * 18.0156)  # 165.74 (was 165)
    assert report["repairs"] == {CONVERTED: 36}
    assert report["rejections"] == {}
    assert report["examples"][CONVERTED] == [
        "block.csv line 1927-1962 (36 readings, subject block): 10 -> 180.2 mg/dL"
    ]


def test_two_unit_export_reads_both_halves(shared_data: Path, tmp_path: Path) -> None:
    clean_r, _, clean = _metrics(shared_data / "cgm_dexcom_clarity" / "test_file.csv")
    r, report, both = _metrics(two_unit_export(shared_data, tmp_path / "both.csv"))
    assert both["n"] == 2148  # both halves: 1,073 + 1,075 readings
    assert r["time"].tolist() == clean_r["time"].tolist()
    assert (r["glucose"] - clean_r["glucose"]).abs().max() <= 0.901
    for key in ("tbr_54", "tbr_70", "tar_250"):
        assert both[key] == clean[key], key
    # lines 1304, 1927 and 2151 hold 180 mg/dL = 10.0 mmol/L -> 180.16: 3 readings leave 70-180
    # (54 -> 54.05 and 70 -> 70.26 at lines 1320, 1324, 1762, 1847 cross no cut-off)
    assert both["tir_70_180"] == pytest.approx(clean["tir_70_180"] - 300 / 2148)
    assert both["tar_180"] == pytest.approx(clean["tar_180"] + 300 / 2148)
    assert report["rejections"] == {}  # the second header is not an unparseable timestamp
    assert report["repairs"] == {}  # the header declares mmol/L: nothing to repair
    assert report["rows_read"] == {"both.csv": 2159 + 11}  # the second header is read as a header
    assert any("further header line(s)" in n and "both.csv line 1086" in n for n in report["notes"])


def test_two_unit_export_with_a_wrong_second_header(shared_data: Path, tmp_path: Path) -> None:
    """The second export's header claims mg/dL but its values are mmol/L: found by the values."""
    path = two_unit_export(shared_data, tmp_path / "both.csv")
    path.write_text(path.read_text().replace("Glucose Value (mmol/L)", "Glucose Value (mg/dL)"))
    _, report, both = _metrics(path)
    assert both["n"] == 2148
    assert report["repairs"] == {CONVERTED: 1075}
    assert report["examples"][CONVERTED][0].startswith("both.csv line 1098-2172 (1075 readings")


def test_ambiguous_block_is_refused_naming_the_rows(shared_data: Path, tmp_path: Path) -> None:
    """A 3-hour block at 35 (neither 35 mg/dL from a sensor nor 35 mmol/L = 631 mg/dL): one line."""
    lines = _lines(shared_data)
    for i in range(BLOCK[0] - 1, BLOCK[1]):
        cells = lines[i].split(",")
        cells[GLUCOSE_COL] = "35"
        lines[i] = ",".join(cells)
    path = tmp_path / "odd.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(WearbenchError) as err:
        import_cgm("dexcom-clarity", path)
    msg = str(err.value)
    assert "\n" not in msg
    assert "odd.csv line 1927-1962: 36 glucose readings (median 35) fit neither mg/dL nor mmol/L" in msg


def test_short_glitch_is_not_a_unit_block(shared_data: Path, tmp_path: Path) -> None:
    """One reading of 3 among ~100 mg/dL: 3 mmol/L = 54 mg/dL does not join its neighbours: rejected."""
    lines = _lines(shared_data)
    cells = lines[99].split(",")  # line 100
    cells[GLUCOSE_COL] = "3"
    lines[99] = ",".join(cells)
    path = tmp_path / "glitch.csv"
    path.write_text("\n".join(lines) + "\n")
    _, report, m = _metrics(path)
    assert m["n"] == 2147
    assert report["repairs"] == {}
    assert report["rejections"] == {"dexcom-clarity: glucose outside 20-600 mg/dL": 1}


LIBRE_HEAD = (
    "Glucose Data,Generated on,03-02-2021 10:15 UTC,Generated by,Jane Doe\n"
    "Patient,Jane Doe\n"
    "Device,Serial Number,Device Timestamp,Record Type,Historic Glucose {unit},Scan Glucose {unit},"
    "Rapid-Acting Insulin (units),Carbohydrates (grams),Long-Acting Insulin Value (units),Notes\n"
)


def test_libreview_two_unit_export_through_the_shared_rules(tmp_path: Path) -> None:
    """LibreView reads one unit per file; the shared rules find the mmol/L export from its values."""
    mg = [110, 114, 120, 126, 131, 135, 138, 140]  # 08:00-09:45, every 15 min
    mmol = [7.9, 7.8, 7.6, 7.4, 7.1, 6.9, 6.7, 6.5]  # 10:00-11:45
    rows = [f"L,A,03-01-2021 {8 + i // 4:02d}:{15 * (i % 4):02d},0,{v},,,,," for i, v in enumerate(mg)]
    rows2 = [f"L,A,03-01-2021 {10 + i // 4:02d}:{15 * (i % 4):02d},0,{v},,,,," for i, v in enumerate(mmol)]
    text = LIBRE_HEAD.format(unit="mg/dL") + "\n".join(rows) + "\n" + LIBRE_HEAD.format(unit="mmol/L")
    path = tmp_path / "jane.csv"
    path.write_text(text + "\n".join(rows2) + "\n")
    data, report = import_cgm("libreview", path)
    g = data.readings["glucose"].tolist()
    assert g[:8] == mg
    assert g[8:] == pytest.approx([v * 18.0156 for v in mmol])  # 7.9 mmol/L = 142.3 mg/dL after 140
    kind = "libreview: glucose block written in mmol/L inside mg/dL data, converted"
    assert report["repairs"] == {kind: 8}
    # lines 4-11: first export; 12-13: second title lines; 14: its header (read as a header); 15-22: rows
    assert report["examples"][kind] == ["jane.csv line 15-22 (8 readings, subject jane): 7.9 -> 142.3 mg/dL"]
    # the second export's two title lines have no timestamp: rejected and counted, the header is not
    assert report["rejections"] == {"libreview: unparseable Device Timestamp": 2}


def test_issue_block_of_22_is_refused_naming_the_rows(shared_data: Path, tmp_path: Path) -> None:
    """The issue's block: 36 rows all ``22.0``. Read as mg/dL that is fake hypoglycaemia (time below
    54 mg/dL 0.37 % -> 2.05 %); as mmol/L it is 396 mg/dL, which does not join 160 mg/dL 5 minutes
    before (line 1926). Neither unit fits the neighbours: refused in one line naming the rows."""
    lines = _lines(shared_data)
    for i in range(BLOCK[0] - 1, BLOCK[1]):
        cells = lines[i].split(",")
        cells[GLUCOSE_COL] = "22.0"
        lines[i] = ",".join(cells)
    path = tmp_path / "issue.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(WearbenchError) as err:
        import_cgm("dexcom-clarity", path)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith("dexcom-clarity: issue.csv line 1927-1962: 36 readings look like the other")
