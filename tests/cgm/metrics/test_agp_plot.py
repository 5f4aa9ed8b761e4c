"""The AGP figure and ``wearbench cgm metrics --agp``: PNG bytes and hand-computed percentile curves."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from matplotlib.collections import PolyCollection

from wearbench.cgm.metrics import agp_figure, write_agp_png
from wearbench.cli import cli, main

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _series() -> tuple[pd.DatetimeIndex, np.ndarray]:
    """Two days, one reading every 6 h: 00:00, 06:00, 12:00, 18:00 (bins of 6 h hold 2 readings).

    Day 1: 100, 60, 200, 150; day 2: 120, 80, 100, 250 (mg/dL).
    """
    times = pd.date_range("2024-03-01", periods=8, freq="6h")
    return times, np.array([100.0, 60.0, 200.0, 150.0, 120.0, 80.0, 100.0, 250.0])


def test_median_and_bands_match_hand_computed_percentiles() -> None:
    times, glucose = _series()
    fig = agp_figure(times, glucose, bin_minutes=360)
    ax = fig.axes[0]
    (median,) = [line for line in ax.get_lines() if line.get_label() == "median"]
    # bin centres at 03:00, 09:00, 15:00, 21:00; median of two values is their mean
    assert list(median.get_xdata()) == [3.0, 9.0, 15.0, 21.0]
    assert list(median.get_ydata()) == [110.0, 70.0, 150.0, 200.0]
    bands = {c.get_label(): c for c in ax.collections if isinstance(c, PolyCollection)}
    # linear interpolation between the two values a, b: p = a + (b - a) * q
    expected = {
        "5th–95th": ([101.0, 61.0, 105.0, 155.0], [119.0, 79.0, 195.0, 245.0]),
        "25th–75th": ([105.0, 65.0, 125.0, 175.0], [115.0, 75.0, 175.0, 225.0]),
    }
    for label, (lo, hi) in expected.items():
        verts = bands[label].get_paths()[0].vertices
        for x, low, high in zip([3.0, 9.0, 15.0, 21.0], lo, hi, strict=True):
            ys = verts[np.isclose(verts[:, 0], x), 1]
            assert min(ys) == pytest.approx(low)
            assert max(ys) == pytest.approx(high)
    assert "Ambulatory glucose profile" in ax.get_title()
    assert ax.get_ylabel() == "glucose (mg/dL)"


def test_png_is_valid_and_deterministic(tmp_path: Path) -> None:
    times, glucose = _series()
    a = write_agp_png(times, glucose, tmp_path / "a.png", bin_minutes=360)
    b = write_agp_png(times, glucose, tmp_path / "sub" / "b.png", bin_minutes=360)
    data = a.read_bytes()
    assert data.startswith(PNG_MAGIC)
    assert data == b.read_bytes()
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (800, 360)  # 8 x 3.6 in at 100 dpi


def test_cli_metrics_prints_units_and_writes_agp(tmp_path: Path) -> None:
    times = pd.date_range("2024-03-01", periods=288 * 3, freq="5min")
    glucose = 120 + 40 * np.sin(np.arange(times.size) * 2 * np.pi / 288)
    folder = tmp_path / "cgm"
    folder.mkdir()
    pd.DataFrame({"subject_id": "s1", "time": times, "glucose": glucose}).to_parquet(
        folder / "readings.parquet"
    )
    out = tmp_path / "agp.png"
    res = CliRunner().invoke(cli, ["cgm", "metrics", str(folder), "--agp", str(out), "--agp-bin", "60"])
    assert res.exit_code == 0, res.output
    assert "mean (mg/dL)" in res.output
    assert "tir_70_180 (%)" in res.output
    assert f"wrote AGP {out}" in res.output
    assert out.read_bytes().startswith(PNG_MAGIC)


def test_cli_bad_agp_bin_is_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "cgm"
    folder.mkdir()
    times = pd.date_range("2024-03-01", periods=10, freq="5min")
    frame = pd.DataFrame({"subject_id": "s1", "time": times, "glucose": 100.0})
    frame.to_parquet(folder / "readings.parquet")

    with pytest.raises(SystemExit) as exc:
        main(["cgm", "metrics", str(folder), "--agp", str(tmp_path / "x.png"), "--agp-bin", "7"])
    assert exc.value.code == 1


def test_cli_agp_one_file_per_subject(tmp_path: Path) -> None:
    times = pd.date_range("2024-03-01", periods=288, freq="5min")
    frame = pd.concat(
        [
            pd.DataFrame({"subject_id": s, "time": times, "glucose": g})
            for s, g in (("a#1", 100.0), ("b", 150.0))
        ]
    )
    folder = tmp_path / "cgm"
    folder.mkdir()
    frame.to_parquet(folder / "readings.parquet")
    res = CliRunner().invoke(cli, ["cgm", "metrics", str(folder), "--agp", str(tmp_path / "agp.png")])
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in tmp_path.glob("agp*.png")) == ["agp.a_1.png", "agp.b.png"]
