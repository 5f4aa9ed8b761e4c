"""Loader contract, cohort assembly and ``import_source``: any real export → canonical cohort.

A loader is a function ``(path: Path, log: ImportLog) -> LoadedSource`` registered with
:func:`loader` (registry kind ``loader``). It maps its source onto whichever of the 16 daily
metrics the source has (canonical names and units, local calendar days) and logs what it read,
repaired and rejected. :func:`assemble_cohort` then does what every source needs: adds the
metrics the source lacks as missing, drops duplicate user-days and out-of-range values (both
counted, with examples), gives every user a demographics row (unknowns are null), computes
reference percentiles from the cohort itself, and :func:`import_source` writes the cohort with
``import_report.json``.

That reference table includes every user of the cohort over their whole record, so it is
recorded as ``source["reference"]["kind"] = "cohort_self"`` and never shown with or used by an
item: items resolve their reference per user and end date
(:class:`~wearbench.cohort.ReferenceResolver`: leave-the-user-out over ≥ 30 other users of the
same age band and sex, else the cited external table, else the window is dropped). The import
report's ``reference`` section counts, per metric, the users whose reference at the end of their
record would be of each kind.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench._folder import check_target, replaced_folder
from wearbench._registry import Kind, registered, registry
from wearbench.cohort import (
    BIOMARKER_NAMES,
    DEMOGRAPHIC_COLUMNS,
    MANIFEST,
    METRIC_NAMES,
    REFERENCE_KINDS,
    Cohort,
    ReferenceResolver,
    metric,
    reference_percentiles,
    save_cohort,
)
from wearbench.sources._report import ImportLog, ImportReport

REPORT_NAME = "import_report.json"
loader = registered("loader")


@dataclass(frozen=True)
class LoadedSource:
    """What a loader returns.

    Attributes:
        daily: ``user_id`` (str), ``date`` (local calendar day, datetime64), then any subset of
            the 16 canonical metrics in canonical units (NaN = missing). Duplicate user-days are
            allowed (assembly keeps the first and counts the rest).
        demographics: ``user_id`` plus any of ``age``, ``sex`` (F/M), ``bmi``, ``ethnicity``, or None.
        blood: ``user_id``, ``draw_date`` plus any biomarkers, or None.
        extras: Anything else the source yields for other parts of wearbench (e.g. the path of
            minute-level channels); recorded in the cohort's source parameters.
    """

    daily: pd.DataFrame
    demographics: pd.DataFrame | None = None
    blood: pd.DataFrame | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)


def _daily_table(daily: pd.DataFrame, log: ImportLog) -> pd.DataFrame:
    unknown = [c for c in daily.columns if c not in ("user_id", "date", *METRIC_NAMES)]
    if unknown:
        raise WearbenchError(
            f"loader returned unknown daily columns {unknown}; valid: {', '.join(METRIC_NAMES)}"
        )
    out = daily.copy()
    out["user_id"] = out["user_id"].astype(str)
    out["date"] = pd.to_datetime(out["date"]).dt.normalize()
    for m in METRIC_NAMES:
        out[m] = pd.to_numeric(out[m], errors="coerce").astype("float64") if m in out else np.nan
    out = out[["user_id", "date", *METRIC_NAMES]].sort_values(["user_id", "date"], kind="stable")
    dup = out.duplicated(["user_id", "date"], keep="first")
    for _, row in out[dup].head(5).iterrows():
        log.repair("duplicate user-day: kept the first", f"user {row.user_id}, {row.date.date()}", n=0)
    if dup.any():
        log.repair("duplicate user-day: kept the first", n=int(dup.sum()))
    out = out[~dup]
    for m in METRIC_NAMES:
        _clip_range(out, m, log)
    return out.reset_index(drop=True)


def _clip_range(daily: pd.DataFrame, name: str, log: ImportLog) -> None:
    spec = metric(name)
    values = daily[name]
    bad = values.notna() & ((values < spec.lo) | (values > spec.hi))
    if not bad.any():
        return
    kind = f"{name}: outside {spec.lo:g}–{spec.hi:g} {spec.unit}, set missing"
    for _, row in daily[bad].head(5).iterrows():
        log.repair(kind, f"user {row.user_id}, {row.date.date()}, {name} = {row[name]:g}", n=0)
    log.repair(kind, n=int(bad.sum()))
    daily.loc[bad, name] = np.nan


def _demographics(users: list[str], given: pd.DataFrame | None) -> pd.DataFrame:
    base = pd.DataFrame({"user_id": users})
    if given is not None and len(given):
        given = given.assign(user_id=given["user_id"].astype(str)).drop_duplicates("user_id")
        base = base.merge(given, on="user_id", how="left")
    for c in DEMOGRAPHIC_COLUMNS:
        if c not in base:
            base[c] = np.nan if c in ("age", "bmi") else None
    base["age"] = pd.to_numeric(base["age"], errors="coerce").astype("float64")
    base["bmi"] = pd.to_numeric(base["bmi"], errors="coerce").astype("float64")
    base["sex"] = base["sex"].astype(object).where(base["sex"].notna(), None)
    base["ethnicity"] = base["ethnicity"].astype(object).where(base["ethnicity"].notna(), None)
    return base[["user_id", *DEMOGRAPHIC_COLUMNS]]


def _blood(users: list[str], given: pd.DataFrame | None) -> pd.DataFrame:
    cols = ["user_id", "draw_date", *BIOMARKER_NAMES]
    if given is None or not len(given):
        return pd.DataFrame({c: pd.Series(dtype="float64") for c in cols}).astype(
            {"user_id": object, "draw_date": "datetime64[ns]"}
        )
    out = given.assign(user_id=given["user_id"].astype(str), draw_date=pd.to_datetime(given["draw_date"]))
    out = out[out["user_id"].isin(users)]
    for b in BIOMARKER_NAMES:
        out[b] = pd.to_numeric(out[b], errors="coerce").astype("float64") if b in out else np.nan
    return out[cols].reset_index(drop=True)


def assemble_cohort(loaded: LoadedSource, log: ImportLog, source: Mapping[str, Any]) -> Cohort:
    """Canonical cohort from a loader's output (see the module docstring for what is done)."""
    daily = _daily_table(loaded.daily, log)
    metrics = [m for m in METRIC_NAMES if daily[m].notna().any()]
    daily = daily[daily[metrics].notna().any(axis=1)] if metrics else daily.iloc[0:0]
    users = sorted(daily["user_id"].unique().tolist())
    if not users:
        raise WearbenchError(f"{source.get('params', {}).get('path', 'source')}: no daily data found")
    demo = _demographics(users, loaded.demographics)
    reference = reference_percentiles(daily, demo)
    note = (
        "per-user medians of every cohort user's whole record: includes the tested user, never used by items"
    )
    source = {**source, "reference": {"kind": "cohort_self", "note": note}}
    return Cohort(daily, demo, _blood(users, loaded.blood), reference, source=source)


#: Metrics whose reference the import report summarises.
_REPORTED_METRICS: tuple[str, ...] = (
    "resting_hr",
    "steps",
    "hrv",
    "sleep_minutes",
    "sleep_efficiency",
    "vo2max",
)


def reference_summary(cohort: Cohort) -> dict[str, Any]:
    """Per metric, users whose reference on their last recorded day would be of each kind.

    Keys ``population``, ``cohort``, ``external`` and ``none`` (no independent reference: the
    reference-based questions drop such windows with a counted reason); only users with data
    of the metric are counted.
    """
    resolver = ReferenceResolver.from_cohort(cohort, _REPORTED_METRICS)
    demo = cohort.demographics.set_index(cohort.demographics["user_id"].astype(str))
    last = cohort.daily.groupby(cohort.daily["user_id"].astype(str))["date"].max()
    out: dict[str, Any] = {}
    for m in _REPORTED_METRICS:
        has = cohort.daily.loc[cohort.daily[m].notna(), "user_id"].astype(str).unique()
        counts = dict.fromkeys((*REFERENCE_KINDS, "none"), 0)
        for user in sorted(has):
            d = demo.loc[user]
            got = resolver.resolve(user, {"age": d["age"], "sex": d["sex"]}, m, str(last[user].date()))
            counts["none" if isinstance(got, str) else got.kind] += 1
        out[m] = counts
    return {"table_kind": "cohort_self", "users_by_kind": out}


def _report(name: str, path: Path, cohort: Cohort, log: ImportLog) -> ImportReport:
    daily = cohort.daily
    dates = daily["date"]
    return ImportReport(
        source=name,
        path=str(path),
        users=cohort.n_users,
        days=len(daily),
        first_date=None if daily.empty else str(dates.min().date()),
        last_date=None if daily.empty else str(dates.max().date()),
        rows_read=dict(log.rows_read),
        coverage={m: round(float(daily[m].notna().mean()), 4) if len(daily) else 0.0 for m in METRIC_NAMES},
        repairs=dict(log.repairs),
        rejections=dict(log.rejections),
        examples={k: list(v) for k, v in log.examples.items()},
        notes=tuple(log.notes),
    )


def import_source(name: str, path: str | Path, out: str | Path | None = None) -> tuple[Cohort, ImportReport]:
    """Load ``path`` with the loader ``name``, assemble the cohort, and write it (if ``out``).

    Args:
        name: Loader name (``apple-health``, ``fitabase``, ``pmdata``, ``garmin-uom``, ``fit``,
            ``whoop``, ``csv``).
        path: File or folder the loader reads.
        out: Cohort folder to write, with ``import_report.json``; None to only return them. An
            existing cohort folder is replaced only once both are complete (see
            :func:`~wearbench._folder.replaced_folder`).

    Raises:
        UnknownNameError: For an unknown loader (with close matches).
        WearbenchError: For unreadable or malformed input (one line naming file and place), or
            an ``out`` that is a file or a non-empty folder without a cohort (before any work).
    """
    path = Path(path)
    if out is not None:
        check_target(Path(out), "cohort", MANIFEST)  # refuse a foreign folder before any work
    found, log = run_loader("loader", name, path)
    loaded: LoadedSource = found
    params = {"path": str(path), **{k: v for k, v in loaded.extras.items() if _jsonable(v)}}
    cohort = assemble_cohort(loaded, log, {"name": name, "params": params})
    report = _report(name, path, cohort, log)
    if out is not None:
        doc = {**report.to_dict(), "reference": reference_summary(cohort)}
        text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
        with replaced_folder(out, "cohort", MANIFEST) as new:  # cohort and report swap in together
            save_cohort(cohort, new)
            (new / REPORT_NAME).write_text(text, encoding="utf-8")
    return cohort, report


def run_loader(kind: Kind, name: str, path: Path) -> tuple[Any, ImportLog]:
    """Run the registered loader ``name`` of ``kind`` (``loader`` or ``cgm_loader``) on ``path``.

    Returns:
        What the loader returned, and the import log it filled.

    Raises:
        UnknownNameError: For an unknown loader (with close matches).
        WearbenchError: If ``path`` does not exist, or the loader rejects the input.
    """
    entry = registry.get(kind, name)
    if not path.exists():
        raise WearbenchError(f"{path}: no such file or folder")
    log = ImportLog()
    fn: Callable[[Path, ImportLog], Any] = entry.obj
    return fn(path, log), log


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True
