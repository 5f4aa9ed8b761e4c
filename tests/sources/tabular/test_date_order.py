"""The ``csv`` loader's day/month order: proved by the data, stated by the mapping, or refused."""

from pathlib import Path

import pandas as pd
import pytest

from wearbench import WearbenchError
from wearbench.sources import ImportLog
from wearbench.sources.tabular import load_table

NO_FORMAT = """
user: {id: u1}
date: {column: day}
metrics:
  steps: {column: steps, unit: steps}
"""


def _mapping(fmt: str | None) -> str:
    return (
        NO_FORMAT if fmt is None else NO_FORMAT.replace("{column: day}", f'{{column: day, format: "{fmt}"}}')
    )


def _load(
    tmp_path: Path, rows: list[tuple[str, int]], fmt: str | None, chunk: int = 200_000
) -> tuple[pd.DataFrame, ImportLog]:
    (tmp_path / "d.csv").write_text("day,steps\n" + "".join(f"{d},{s}\n" for d, s in rows), encoding="utf-8")
    (tmp_path / "d.yaml").write_text(_mapping(fmt), encoding="utf-8")
    log = ImportLog()
    return load_table(tmp_path / "d.csv", log, chunk).daily, log


AMBIGUOUS = [("04/12/2016", 100), ("05/12/2016", 200), ("12/11/2016", 300)]


def test_ambiguous_dates_without_format_are_refused(tmp_path: Path) -> None:
    with pytest.raises(WearbenchError) as e:
        _load(tmp_path, AMBIGUOUS, None)
    text = str(e.value)
    assert "\n" not in text
    assert "d.csv" in text
    assert "column 'day'" in text
    assert "ambiguous dates: all 3 numeric dates" in text
    assert "format:" in text
    assert "d.yaml" in text


def test_stated_format_reads_ambiguous_dates(tmp_path: Path) -> None:
    daily, _ = _load(tmp_path, AMBIGUOUS, "%d/%m/%Y")
    assert daily["date"].dt.strftime("%Y-%m-%d").tolist() == ["2016-11-12", "2016-12-04", "2016-12-05"]
    assert daily["steps"].tolist() == [300.0, 100.0, 200.0]
    daily, _ = _load(tmp_path, AMBIGUOUS, "%m/%d/%Y")
    assert daily["date"].dt.strftime("%Y-%m-%d").tolist() == ["2016-04-12", "2016-05-12", "2016-12-11"]


@pytest.mark.parametrize("chunk", [200_000, 1])
def test_a_day_above_12_proves_day_first_and_is_noted(tmp_path: Path, chunk: int) -> None:
    rows = [("04/12/2016", 100), ("13/12/2016 08:30", 200)]
    daily, log = _load(tmp_path, rows, None, chunk)
    assert daily["date"].dt.strftime("%Y-%m-%d").tolist() == ["2016-12-04", "2016-12-13"]
    assert (
        "csv: column 'day' read as day/month/year: 1 date(s) prove it (e.g. d.csv line 3: '13/12/2016 08:30')"
        in log.notes
    )


def test_a_month_second_above_12_proves_month_first(tmp_path: Path) -> None:
    daily, log = _load(tmp_path, [("4/12/2016", 1), ("4/13/2016", 2)], None)
    assert daily["date"].dt.strftime("%Y-%m-%d").tolist() == ["2016-04-12", "2016-04-13"]
    assert any("read as month/day/year" in n for n in log.notes)


def test_mixed_orders_are_refused(tmp_path: Path) -> None:
    with pytest.raises(
        WearbenchError,
        match=r"mix day/month \(d.csv line 2: '13/04/2016'\) and month/day \(d.csv line 3: '04/13/2016'\)",
    ):
        _load(tmp_path, [("13/04/2016", 1), ("04/13/2016", 2)], None)


def test_stated_format_contradicted_by_the_data_is_refused(tmp_path: Path) -> None:
    # US month/day data with a day/month format: 2 of 3 cells fail, every cell reads swapped.
    rows = [("4/12/2016", 1), ("4/13/2016", 2), ("4/14/2016", 3)]
    with pytest.raises(
        WearbenchError,
        match=r"column 'day': 2 date\(s\) unreadable as '%d/%m/%Y' \(e.g. d.csv line 3: '4/13/2016'\)",
    ):
        _load(tmp_path, rows, "%d/%m/%Y")


def test_iso_dates_need_no_scan(tmp_path: Path) -> None:
    daily, log = _load(tmp_path, [("2016-12-04", 5)], None)
    assert daily["date"].tolist() == [pd.Timestamp("2016-12-04")]
    assert not any("read as" in n for n in log.notes)
