"""The ``csv`` loader: any CSV or Parquet file of daily (or finer) rows plus a YAML mapping."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.cohort import ETHNICITIES
from wearbench.sources._loader import LoadedSource, loader
from wearbench.sources._report import ImportLog
from wearbench.sources.tabular._aggregate import combine, partial
from wearbench.sources.tabular._convert import chunk_rows
from wearbench.sources.tabular._dates import date_order
from wearbench.sources.tabular._mapping import Mapping, read_mapping
from wearbench.sources.tabular._read import CHUNK_ROWS, PARQUET_SUFFIXES, chunks

MAPPING_NAME = "mapping.yaml"
_DATA_SUFFIXES = (".csv", ".tsv", ".txt", *PARQUET_SUFFIXES)
_SEX = {"f": "F", "female": "F", "woman": "F", "m": "M", "male": "M", "man": "M"}


def find_mapping(path: Path) -> tuple[Path, Mapping]:
    """The data file and its mapping for ``path`` (a data file, or a folder with ``mapping.yaml``).

    Beside a data file ``x.csv`` the mapping is the first of ``x.csv.yaml``, ``x.yaml``
    (``.yml`` too) and ``mapping.yaml``. For a folder it is ``mapping.yaml``; the data file is
    its ``file`` key, else the folder's only CSV/Parquet file.

    Raises:
        WearbenchError: No mapping, or no (or several) data files to choose from.
    """
    folder = path if path.is_dir() else path.parent
    names = (
        []
        if path.is_dir()
        else [f"{path.name}.yaml", f"{path.stem}.yaml", f"{path.name}.yml", f"{path.stem}.yml"]
    )
    candidates = [folder / n for n in [*names, MAPPING_NAME, "mapping.yml"]]
    found = next((c for c in candidates if c.is_file()), None)
    if found is None:
        tried = ", ".join(c.name for c in candidates)
        raise WearbenchError(f"{path}: no column-mapping file found (looked for {tried} in {folder})")
    mp = read_mapping(found)
    if not path.is_dir():
        return path, mp
    if mp.file is not None:
        data = folder / mp.file
        if not data.is_file():
            raise WearbenchError(f"{found}: file: {data} does not exist")
        return data, mp
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in _DATA_SUFFIXES and p.is_file())
    if len(files) != 1:
        raise WearbenchError(f"{found}: set 'file': the folder {folder} has {len(files)} CSV/Parquet files")
    return files[0], mp


def _clean(key: str, value: Any, where: str, log: ImportLog) -> Any:
    """A demographic value in canonical form (age/bmi float, sex F/M, ethnicity), None if unusable."""
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return None
    if key in ("age", "bmi"):
        number = pd.to_numeric(pd.Series([value]), errors="coerce").iloc[0]
        if pd.notna(number):
            return float(number)
    elif key == "sex" and str(value).strip().lower() in _SEX:
        return _SEX[str(value).strip().lower()]
    elif key == "ethnicity" and str(value).strip().lower() in ETHNICITIES:
        return str(value).strip().lower()
    log.repair(f"demographics: {key} not understood, set missing", f"{where}, {key} = {value!r}")
    return None


def _demographics(daily: pd.DataFrame, mp: Mapping, log: ImportLog) -> pd.DataFrame | None:
    if not mp.demographics:
        return None
    firsts = daily.groupby("user_id", sort=True).first()
    rows = []
    for user in firsts.index:
        row: dict[str, Any] = {"user_id": user}
        for key, (kind, value) in mp.demographics.items():
            raw = firsts.at[user, f"demo:{key}"] if kind == "column" else value
            where = f"user {user}" + (f", column {value!r}" if kind == "column" else f", {mp.path.name}")
            row[key] = _clean(key, raw, where, log)
        rows.append(row)
    return pd.DataFrame(rows)


@loader(
    "csv",
    formats="CSV/TSV or Parquet file with a YAML column mapping (<file>.yaml or mapping.yaml beside it)",
    description="generic table: user, date and canonical metric columns named by a mapping file",
)
def load_table(path: Path, log: ImportLog, chunk_rows_n: int = CHUNK_ROWS) -> LoadedSource:
    """Load a CSV or Parquet file with a YAML column mapping, streaming it in chunks.

    Args:
        path: The data file (or a folder holding ``mapping.yaml``); see :func:`find_mapping`.
        log: Import log to fill.
        chunk_rows_n: Rows per chunk (memory bound for large files).

    Returns:
        One row per user and local day with the mapped metrics in canonical units, aggregated
        as the mapping says; demographics when the mapping names them.

    Raises:
        WearbenchError: Bad mapping, unreadable file, missing columns, no readable dates, or a
            day/month order that the data leave ambiguous (see :func:`date_order`).
    """
    data, mp = find_mapping(path)
    file = data.name
    parts: list[pd.DataFrame] = []
    first_bad: str | None = None
    n_rows = 0
    delimiter = mp.delimiter or ("\t" if data.suffix.lower() == ".tsv" else ",")
    order = date_order(data, mp, delimiter, chunk_rows_n, log)
    for chunk in chunks(data, mp.columns(), delimiter, chunk_rows_n):
        n_rows += len(chunk)
        rows, bad = chunk_rows(chunk, mp, file, log, order)
        first_bad = first_bad or bad
        if len(rows):
            parts.append(partial(rows, mp.metrics))
    log.read(file, n_rows)
    if not parts:
        why = (
            f"no row has a readable date (e.g. {first_bad}); check date.format"
            if first_bad
            else "no data rows"
        )
        raise WearbenchError(f"{data}: {why}")
    daily = combine(parts, mp.metrics, log)
    log.note(
        f"csv: columns mapped by {mp.path.name}: " + ", ".join(f"{m.column} → {m.name}" for m in mp.metrics)
    )
    demo = _demographics(daily, mp, log)
    daily = daily[["user_id", "date", *(m.name for m in mp.metrics)]]
    return LoadedSource(daily=daily, demographics=demo, extras={"mapping": str(mp.path)})
