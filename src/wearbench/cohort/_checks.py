"""Content checks over canonical frames: ranges, unit scale, keys, order, users, categories.

Each check appends to a :class:`~wearbench.cohort._problems.Findings`; none raises on bad
data. Frames are in the order they were read, so row positions in repair masks refer to
that order.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from wearbench.cohort._problems import Findings, fmt_range, fmt_value, iso_date
from wearbench.cohort._schema import (
    AGE_BANDS,
    AGE_RANGE,
    BIOMARKERS,
    BMI_RANGE,
    ETHNICITIES,
    METRIC_NAMES,
    METRICS,
    PERCENTILES,
    SEXES,
)
from wearbench.cohort._tables import BLOOD, DAILY, DEMOGRAPHICS, REFERENCE, TableSpec, iter_rows
from wearbench.cohort._units import COLUMN_SHARE, diagnose_scale, unit_words

_BOUNDS: dict[str, dict[str, tuple[float, float, str]]] = {
    DAILY.name: {m.name: (m.lo, m.hi, m.unit) for m in METRICS},
    BLOOD.name: {b.name: (b.lo, b.hi, b.unit) for b in BIOMARKERS},
    DEMOGRAPHICS.name: {"age": (*AGE_RANGE, "years"), "bmi": (*BMI_RANGE, "kg/m2")},
}
_DUPLICATE = {
    DAILY.name: ("duplicate_user_day", "rows for the same user-day; keep one row per user and date"),
    DEMOGRAPHICS.name: ("duplicate_user", "demographics rows for the same user; keep one"),
    BLOOD.name: ("duplicate_draw", "blood panels for the same user and draw date; keep one"),
    REFERENCE.name: ("duplicate_reference_row", "rows for the same metric, age band and sex; keep one"),
}


def check_tables(
    frames: Mapping[str, pd.DataFrame], labels: Mapping[str, str], found: Findings, *, file_order: bool
) -> None:
    """Run every content check on the frames that could be read.

    Args:
        frames: Table name → canonical frame (tables that could not be read are absent).
        labels: Table name → what to call it in messages (file name or table name).
        found: Where problems and repair masks are recorded.
        file_order: Whether row order is meaningful (frames read from files), enabling
            the within-user date order check.
    """
    for spec in (DAILY, DEMOGRAPHICS, BLOOD, REFERENCE):
        frame = frames.get(spec.name)
        if frame is None:
            continue
        label = labels[spec.name]
        if spec is DAILY and frame.shape[0] == 0:
            found.error("empty_table", label, "has no rows; a cohort needs at least one user-day")
        _check_keys(frame, spec, label, found)
        if file_order and spec.date_column is not None:
            _check_order(frame, spec, label, found)
        for column, (lo, hi, unit) in _BOUNDS.get(spec.name, {}).items():
            if column in frame:
                scale = spec is not DEMOGRAPHICS
                _check_range(frame, spec, label, column, (lo, hi, unit), found, diagnose=scale)
    if DEMOGRAPHICS.name in frames:
        _check_categories(frames[DEMOGRAPHICS.name], labels[DEMOGRAPHICS.name], found)
    if REFERENCE.name in frames:
        _check_reference(frames[REFERENCE.name], labels[REFERENCE.name], found)
    _check_users(frames, labels, found)


def _check_keys(frame: pd.DataFrame, spec: TableSpec, label: str, found: Findings) -> None:
    keys = [k for k in spec.keys if k in frame]
    for k in keys:
        missing = np.flatnonzero(frame[k].isna().to_numpy())
        if missing.size:
            found.error(
                "missing_key",
                label,
                f"{missing.size} row(s) have no {k} (first: row {int(missing[0])}); "
                f"every row needs {', '.join(spec.keys)}",
                column=k,
                value=int(missing.size),
            )
    if len(keys) < len(spec.keys) or frame.shape[0] < 2:
        return
    dup = frame.duplicated(keys, keep=False).to_numpy() & frame[keys].notna().all(axis=1).to_numpy()
    if not dup.any():
        return
    code, text = _DUPLICATE[spec.name]
    sizes = frame.loc[dup, keys].groupby(keys, sort=True).size()
    for key, n in sizes.items():
        parts = key if isinstance(key, tuple) else (key,)
        where = dict(zip(keys, parts, strict=True))
        if spec is REFERENCE:
            head = f"{_ref_where(*parts)}: {int(n)} {text}"
            found.error(code, label, head, value=int(n))
            continue
        date = iso_date(where.get(spec.date_column)) if spec.date_column else None
        user = where.get("user_id")
        found.error(code, label, f"{int(n)} {text}", sep=": ", user_id=user, date=date, value=int(n))


def _check_order(frame: pd.DataFrame, spec: TableSpec, label: str, found: Findings) -> None:
    user_col, date_col = spec.user_column, spec.date_column
    if user_col not in frame or date_col not in frame or frame.shape[0] < 2:
        return
    dates = frame[date_col]
    prev = dates.groupby(frame[user_col], sort=False).shift()
    back = (dates < prev).to_numpy()
    if not back.any():
        return
    rows = np.flatnonzero(back)
    users = frame[user_col].to_numpy()
    for user in pd.unique(users[rows]):
        mine = rows[users[rows] == user]
        i = int(mine[0])
        day, before = iso_date(dates.iloc[i]), iso_date(prev.iloc[i])
        found.error(
            "non_monotonic_dates",
            label,
            f"{date_col} {day} comes after {before} in the file ({mine.size} backward step(s) for this "
            f"user); dates must increase within a user: sort rows by {user_col}, {date_col}",
            user_id=user,
            date=day,
            column=date_col,
            value=day,
        )


def _check_range(
    frame: pd.DataFrame,
    spec: TableSpec,
    label: str,
    column: str,
    bounds: tuple[float, float, str],
    found: Findings,
    *,
    diagnose: bool,
) -> None:
    lo, hi, unit = bounds
    values = frame[column].to_numpy(dtype=np.float64)
    present = ~np.isnan(values)
    out = present & ((values < lo) | (values > hi))
    n, n_out = int(present.sum()), int(out.sum())
    if n_out == 0:
        return
    if n_out >= max(COLUMN_SHARE * n, 2):
        _column_out_of_range(values[present], label, column, bounds, n_out, found, diagnose=diagnose)
        return
    found.masks[(spec.name, column)] = out
    rng = fmt_range(lo, hi, unit)
    for i, where in zip(np.flatnonzero(out), iter_rows(frame, spec, np.flatnonzero(out)), strict=True):
        v = float(values[i])
        found.repair(
            "out_of_range",
            label,
            f"{column} = {fmt_value(v)} {unit} is outside the plausible range {rng}; set missing (repair)",
            column=column,
            value=v,
            **where,
        )


def _column_out_of_range(
    present: np.ndarray,
    label: str,
    column: str,
    bounds: tuple[float, float, str],
    n_out: int,
    found: Findings,
    *,
    diagnose: bool,
) -> None:
    lo, hi, unit = bounds
    median = float(np.median(present))
    head = (
        f"{n_out} of {present.size} {column} values ({n_out / present.size:.0%}) are outside the plausible "
        f"range {fmt_range(lo, hi, unit)} (median {fmt_value(median)})"
    )
    conv = diagnose_scale(present, lo, hi, column=column, unit=unit) if diagnose else None
    if conv is None:
        found.error(
            "column_out_of_range",
            label,
            f"{head}; no common unit factor explains them: check the column's unit and source",
            column=column,
            value=median,
        )
        return
    what = f"looks like {conv.likely_unit}" if conv.likely_unit else "looks mis-scaled"
    found.error(
        "unit_scale",
        label,
        f"{head}; {column} {what}: values are ×{conv.inverse} of the expected {unit_words(unit)}; "
        f"multiply by {conv.label} to convert",
        column=column,
        value=median,
    )


def _check_categories(frame: pd.DataFrame, label: str, found: Findings) -> None:
    for column, allowed in (("sex", SEXES), ("ethnicity", ETHNICITIES)):
        if column not in frame:
            continue
        values = frame[column]
        bad = np.flatnonzero((values.notna() & ~values.isin(allowed)).to_numpy())
        for i, where in zip(bad, iter_rows(frame, DEMOGRAPHICS, bad), strict=True):
            v = values.iloc[int(i)]
            found.error(
                "bad_category",
                label,
                f"{column} = {fmt_value(v)} is not a valid code; use one of {', '.join(allowed)} "
                "(null if unknown)",
                column=column,
                value=v,
                **where,
            )


def _ref_where(metric: object, band: object, sex: object) -> str:
    return f"metric {metric}, age band {band}, sex {sex}"


def _check_reference(frame: pd.DataFrame, label: str, found: Findings) -> None:
    labels = {"metric": METRIC_NAMES, "age_band": tuple(b for b, _, _ in AGE_BANDS), "sex": SEXES}
    keys = [c for c in labels if c in frame]
    rows = frame[keys].astype(object).where(frame[keys].notna(), None).to_numpy() if keys else None
    for column, allowed in labels.items():
        if column not in frame:
            continue
        values = frame[column]
        for i in np.flatnonzero((values.notna() & ~values.isin(allowed)).to_numpy()):
            v = values.iloc[int(i)]
            found.error(
                "bad_category",
                label,
                f"row {int(i)}: {column} = {fmt_value(v)} is not known; use one of {', '.join(allowed)}",
                column=column,
                value=v,
            )
    cols = [f"p{p}" for p in PERCENTILES if f"p{p}" in frame]
    if len(cols) < 2:
        return
    pct = frame[cols].to_numpy(dtype=np.float64)
    for r in range(int(pct.shape[0])):
        _check_percentile_row(pct[r], cols, r, rows, keys, label, found)


def _check_percentile_row(
    row: np.ndarray,
    cols: list[str],
    i: int,
    keys_rows: np.ndarray | None,
    keys: list[str],
    label: str,
    found: Findings,
) -> None:
    ok = ~np.isnan(row)
    vals, names = row[ok], [c for c, k in zip(cols, ok, strict=True) if k]
    drops = np.flatnonzero(np.diff(vals) < 0)
    if not drops.size:
        return
    j = int(drops[0])
    key = dict(zip(keys, keys_rows[i], strict=True)) if keys_rows is not None else {}
    where = _ref_where(key.get("metric"), key.get("age_band"), key.get("sex"))
    found.error(
        "non_monotonic_percentiles",
        label,
        f"{where}: {names[j + 1]} = {fmt_value(float(vals[j + 1]))} is below {names[j]} = "
        f"{fmt_value(float(vals[j]))}; percentiles must not decrease from p5 to p95",
        column=names[j + 1],
        value=float(vals[j + 1]),
    )


def _check_users(frames: Mapping[str, pd.DataFrame], labels: Mapping[str, str], found: Findings) -> None:
    daily = frames.get(DAILY.name)
    if daily is None or "user_id" not in daily:
        return
    daily_users = set(daily["user_id"].dropna().astype(str))
    daily_label = labels[DAILY.name]
    for spec, what in ((BLOOD, "blood panel"), (DEMOGRAPHICS, "demographics row")):
        frame = frames.get(spec.name)
        if frame is None or "user_id" not in frame:
            continue
        for user in sorted(set(frame["user_id"].dropna().astype(str)) - daily_users):
            found.error(
                "unknown_user",
                labels[spec.name],
                f"{what} for a user with no records in {daily_label}; remove it or add the user's daily data",
                sep=": ",
                user_id=user,
            )
    demo = frames.get(DEMOGRAPHICS.name)
    if demo is None or "user_id" not in demo:
        return
    demo_label = labels[DEMOGRAPHICS.name]
    for user in sorted(daily_users - set(demo["user_id"].dropna().astype(str))):
        found.error(
            "unknown_user",
            daily_label,
            f"daily records for a user with no row in {demo_label}; "
            "add the user's age, sex, BMI and ethnicity",
            sep=": ",
            user_id=user,
        )
