"""PMData demographics: ``participant-overview.xlsx`` (read with the standard library) or ``.csv``.

Age (years), gender → sex F/M, height (cm); BMI = median self-reported weight (kg,
``googledocs/reporting.csv``) / height (m)². Ethnicity is not recorded.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sources._report import ImportLog
from wearbench.sources.fitbit._common import numbers_or_reject, read_csv_checked

_NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}
_SEX = {"male": "M", "female": "F", "m": "M", "f": "F"}


def _column_index(ref: str) -> int:
    letters = re.match(r"[A-Z]+", ref)
    index = 0
    for ch in letters.group(0) if letters else "A":
        index = index * 26 + ord(ch) - ord("A") + 1
    return index - 1


def read_xlsx_rows(path: Path) -> list[list[str]]:
    """The first worksheet of an ``.xlsx`` as rows of cell text (shared strings resolved).

    Raises:
        WearbenchError: Not a readable xlsx (one line naming the file).
    """
    try:
        with zipfile.ZipFile(path) as book:
            names = set(book.namelist())
            shared = []
            if "xl/sharedStrings.xml" in names:
                root = ElementTree.fromstring(book.read("xl/sharedStrings.xml"))
                shared = ["".join(t.text or "" for t in si.iter(f"{{{_NS['m']}}}t")) for si in root]
            sheet = ElementTree.fromstring(book.read("xl/worksheets/sheet1.xml"))
    except (zipfile.BadZipFile, KeyError, ElementTree.ParseError, OSError) as exc:
        raise WearbenchError(f"{path.name}: unreadable xlsx ({type(exc).__name__})") from None
    rows = []
    for row in sheet.iterfind(".//m:sheetData/m:row", _NS):
        cells: dict[int, str] = {}
        for cell in row.iterfind("m:c", _NS):
            value = cell.findtext("m:v", default="", namespaces=_NS)
            if cell.get("t") == "s" and value:
                value = shared[int(value)]
            elif cell.get("t") == "inlineStr":
                value = "".join(t.text or "" for t in cell.iter(f"{{{_NS['m']}}}t"))
            cells[_column_index(cell.get("r", "A"))] = value
        rows.append([cells.get(i, "") for i in range(max(cells, default=-1) + 1)])
    return rows


def _overview_table(folder: Path) -> pd.DataFrame | None:
    csv, xlsx = folder / "participant-overview.csv", folder / "participant-overview.xlsx"
    if csv.is_file():
        return read_csv_checked(csv, ("Participant ID",))
    if not xlsx.is_file():
        return None
    rows = read_xlsx_rows(xlsx)
    head = next((i for i, r in enumerate(rows) if r and r[0].strip() == "Participant ID"), None)
    if head is None:
        raise WearbenchError(f"{xlsx.name}: no header row starting with 'Participant ID'")
    names = [c.strip() for c in rows[head]]
    body = [(r + [""] * len(names))[: len(names)] for r in rows[head + 1 :] if r and r[0].strip()]
    frame = pd.DataFrame(body, columns=names)
    frame["line"] = np.arange(head + 2, head + 2 + len(frame))
    return frame


def _median_weight(person: Path, log: ImportLog) -> float:
    file = person / "googledocs" / "reporting.csv"
    if not file.is_file():
        return float("nan")
    raw = read_csv_checked(file, ("weight",), name=f"{person.name}/googledocs/reporting.csv")
    log.read("reporting.csv", len(raw))
    raw["Id"] = person.name
    raw = numbers_or_reject(raw, ("weight",), "reporting.csv", log)
    return float(raw["weight"].median()) if len(raw) else float("nan")


def _column(table: pd.DataFrame, name: str) -> pd.Series:
    return table[name] if name in table else pd.Series("", index=table.index)


def pmdata_demographics(
    folder: Path, people: list[Path], log: ImportLog
) -> tuple[pd.DataFrame | None, dict[str, float]]:
    """Demographics per participant and each one's median self-reported weight (kg)."""
    weights = {p.name: _median_weight(p, log) for p in people}
    table = _overview_table(folder)
    if table is None:
        log.note("pmdata: participant-overview absent: no age, sex or BMI")
        return None, weights
    log.read("participant-overview", len(table))
    ids = table["Participant ID"].str.strip()
    age = pd.to_numeric(_column(table, "Age"), errors="coerce")
    height_m = pd.to_numeric(_column(table, "Height"), errors="coerce") / 100
    sex = _column(table, "Gender").str.strip().str.lower().map(_SEX)
    weight = ids.map(weights).astype("float64")
    demo = pd.DataFrame({"user_id": ids, "age": age, "sex": sex, "bmi": weight / height_m**2})
    log.note(
        "pmdata: age, sex (Gender), height from participant-overview; "
        "bmi = median reporting.csv weight / height²"
    )
    return demo, weights
