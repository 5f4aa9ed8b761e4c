"""Import an official ``WearableQA_raw.json`` into a canonical cohort plus a benchmark folder.

Imported items keep the official stem, options, answer letter and labels but have no
computation graph: they are marked ``graph = {}`` and ``grounding_ref = "official"``, and
``wearbench verify`` reports them as not re-derivable instead of failing them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench._jsonfile import read_json_object
from wearbench._version import __version__
from wearbench.bench import IMPORTED_REF, build_stats, render_datasheet, write_artifact
from wearbench.cohort import (
    AGE_BANDS,
    BIOMARKER_NAMES,
    DEMOGRAPHIC_COLUMNS,
    METRIC_NAMES,
    PERCENTILES,
    SEXES,
    Cohort,
    age_band,
    content_hash,
    from_wearableqa,
    load_cohort,
    save_cohort,
)
from wearbench.interop._common import MCQ_KEYS, OFFICIAL_KEYS, OPTIONAL_MCQ_KEYS
from wearbench.questions import HISTORY_DAYS, LETTERS, Item, UserContext, contexts_from_cohort

_CELL_KEY = re.compile(r"^(p\d+|_\w+|n_users)$")


@dataclass(frozen=True)
class ImportResult:
    """What :func:`import_official` wrote.

    Attributes:
        cohort_dir: Canonical cohort folder (``DIR/cohort``).
        bench_dir: Benchmark folder (``DIR/bench``).
        n_items: MCQs imported.
        n_users: Users imported.
    """

    cohort_dir: Path
    bench_dir: Path
    n_items: int
    n_users: int


def _require(obj: Mapping[str, Any], keys: Sequence[str], where: str) -> None:
    missing = [k for k in keys if k not in obj]
    if missing:
        raise WearbenchError(f"{where}: missing key(s) {', '.join(missing)}")


def _daily(histories: Mapping[str, Sequence[Mapping[str, Any]]]) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for user, records in sorted(histories.items()):
        for n, rec in enumerate(records):
            if "date" not in rec:
                raise WearbenchError(f"user_histories[{user!r}][{n}]: no date")
            row: dict[str, Any] = {"user_id": str(user), "date": pd.Timestamp(str(rec["date"]))}
            row |= dict.fromkeys(METRIC_NAMES, np.nan)
            for field, value in rec.items():
                if field != "date":
                    name, v = from_wearableqa(field, np.nan if value is None else float(value))
                    row[name] = v
            rows.append(row)
    frame = pd.DataFrame(rows, columns=["user_id", "date", *METRIC_NAMES])
    return frame.astype(dict.fromkeys(METRIC_NAMES, np.float64))


def _first_dates(daily: pd.DataFrame) -> dict[str, str]:
    return {str(u): str(np.datetime64(d, "D")) for u, d in daily.groupby("user_id")["date"].min().items()}


def _static(mcqs: Sequence[Mapping[str, Any]], first: Mapping[str, str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Demographics (one row per user) and distinct blood draws from the MCQ contexts."""
    demo: dict[str, dict[str, Any]] = {}
    draws: dict[tuple[str, str], dict[str, Any]] = {}
    for n, q in enumerate(mcqs):
        user, ctx = str(q["user_id"]), q.get("context") or {}
        d = {k: (ctx.get("demographics") or {}).get(k) for k in DEMOGRAPHIC_COLUMNS}
        if demo.setdefault(user, d) != d:
            raise WearbenchError(f"mcqs[{n}] ({q['id']}): demographics of {user} differ from an earlier MCQ")
        panel = ctx.get("blood_panel")
        if panel:
            date = str(panel.get("draw_date") or first.get(user, q["end_date"]))
            row = {b: np.nan if panel.get(b) is None else float(panel[b]) for b in BIOMARKER_NAMES}
            if draws.setdefault((user, date), row) != row and not _same(draws[(user, date)], row):
                raise WearbenchError(f"mcqs[{n}] ({q['id']}): blood panel of {user} on {date} differs")
    demographics = pd.DataFrame([{"user_id": u, **d} for u, d in sorted(demo.items())])
    demographics = demographics.astype({"age": np.float64, "bmi": np.float64})
    blood = pd.DataFrame(
        [{"user_id": u, "draw_date": pd.Timestamp(d), **r} for (u, d), r in sorted(draws.items())],
        columns=["user_id", "draw_date", *BIOMARKER_NAMES],
    )
    return demographics, blood.astype(dict.fromkeys(BIOMARKER_NAMES, np.float64))


def _same(a: Mapping[str, float], b: Mapping[str, float]) -> bool:
    return all((np.isnan(a[k]) and np.isnan(b[k])) or a[k] == b[k] for k in a)


def _is_cell(value: Any) -> bool:
    """Whether ``value`` is one metric's percentile cell (``{"p10": …, "_min": …}``)."""
    return isinstance(value, Mapping) and any(isinstance(k, str) and _CELL_KEY.match(k) for k in value)


def _row(field: str, band: str, sex: str, cell: Mapping[str, Any]) -> dict[str, Any]:
    name = from_wearableqa(field, 0.0)[0]
    n_users = cell.get("n_users", cell.get("_n_users", 0))
    row: dict[str, Any] = {"metric": name, "age_band": band, "sex": sex, "n_users": int(n_users or 0)}
    for p in PERCENTILES:
        v = cell.get(f"p{p}")
        row[f"p{p}"] = np.nan if v is None else from_wearableqa(field, float(v))[1]
    return row


def _user_groups(mcqs: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """The distinct ``(age band, sex)`` of the MCQs' users (users outside the bands skipped)."""
    out: set[tuple[str, str]] = set()
    for q in mcqs:
        demo = (q.get("context") or {}).get("demographics") or {}
        age, sex = demo.get("age"), demo.get("sex")
        if isinstance(age, int | float) and sex in SEXES and any(lo <= age < hi for _, lo, hi in AGE_BANDS):
            out.add((age_band(float(age)), str(sex)))
    return sorted(out)


def _reference(ref: Mapping[str, Any], mcqs: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Reference rows from every place a file may hold them, first found kept per cell.

    1. Each MCQ's ``context.cohort_reference`` (flat) with ``context.cohort_reference_group``.
    2. A nested top-level ``cohort_reference`` (field → age band → sex → cell; older exports).
    3. A flat top-level ``cohort_reference`` (field → cell; the official README's shape): the
       same cell for every age band × sex group of the file's users that has no row yet.
    """
    rows: dict[tuple[str, str, str], dict[str, Any]] = {}
    for q in mcqs:
        ctx = q.get("context") or {}
        group, cells = ctx.get("cohort_reference_group"), ctx.get("cohort_reference")
        if isinstance(group, Mapping) and isinstance(cells, Mapping):
            for field, cell in sorted(cells.items()):
                band, sex = str(group["age_band"]), str(group["sex"])
                rows.setdefault((field, band, sex), _row(field, band, sex, cell))
    flat = {f: c for f, c in ref.items() if _is_cell(c)}
    for field, bands in sorted(ref.items()):
        if field in flat or not isinstance(bands, Mapping):
            continue
        for band, sexes in sorted(bands.items()):
            for sex, cell in sorted(sexes.items()):
                rows.setdefault((field, band, sex), _row(field, band, sex, cell))
    have = {(band, sex) for _, band, sex in rows}
    for band, sex in (g for g in _user_groups(mcqs) if g not in have):
        for field, cell in sorted(flat.items()):
            rows[(field, band, sex)] = _row(field, band, sex, cell)
    columns = ["metric", "age_band", "sex", "n_users", *[f"p{p}" for p in PERCENTILES]]
    frame = pd.DataFrame([rows[k] for k in sorted(rows)], columns=columns)
    return frame.astype({"n_users": np.int64, **{f"p{p}": np.float64 for p in PERCENTILES}})


def _known_percentiles(ctx: UserContext) -> UserContext:
    """``ctx`` without the reference percentiles the file did not give (e.g. p5/p95 of the README shape)."""
    reference = {m: {p: v for p, v in pct.items() if np.isfinite(v)} for m, pct in ctx.reference.items()}
    return replace(ctx, reference={m: pct for m, pct in reference.items() if pct})


def _item(q: Mapping[str, Any], first: Mapping[str, str], n: int) -> Item:
    _require(q, MCQ_KEYS, f"mcqs[{n}]")
    options = list(q["options"].values()) if isinstance(q["options"], Mapping) else list(q["options"])
    if len(options) != len(LETTERS) or q["gt_letter"] not in LETTERS:
        raise WearbenchError(f"mcqs[{n}] ({q['id']}): need 10 options and gt_letter in A-J")
    user = str(q["user_id"])
    if user not in first:
        raise WearbenchError(f"mcqs[{n}] ({q['id']}): user {user} has no history")
    end = (pd.Timestamp(str(q["end_date"])) - pd.Timestamp(first[user])).days
    return Item(
        id=str(q["id"]),
        type=str(q["question_type"]),
        type_version=0,
        reasoning=str(q["reasoning_group"]),
        signals=str(q["signal"]),
        grounding=str(q["grounding"]),
        dependency="unknown",
        user_id=user,
        end_date=str(q["end_date"]),
        window_days=int(q["window_size"]),
        history_days=max(0, min(HISTORY_DAYS, end + 1)),
        metrics=(),
        question=str(q["stem"]),
        options=dict(zip(LETTERS, map(str, options), strict=True)),
        claims={letter: {} for letter in LETTERS},
        answer=str(q["gt_letter"]),
        graph={},
        evidence={
            "official": {
                "full_dropped_metrics": list(q["full_dropped_metrics"] or []),
                "no_cohort": bool(q["no_cohort"]),
                **{k: q[k] for k in OPTIONAL_MCQ_KEYS if q.get(k)},
            }
        },
        grounding_ref=IMPORTED_REF,
        pair_kind=None,
        gates=None,
    )


def _read(file: Path) -> dict[str, Any]:
    doc = read_json_object(file, missing="no such file")
    _require(doc, OFFICIAL_KEYS, str(file))
    return doc


def import_official(file: str | Path, out: str | Path) -> ImportResult:
    """Read an official-format file into ``out/cohort`` (canonical) and ``out/bench`` (items).

    Raises:
        WearbenchError: Naming the key, MCQ or user that is malformed, or listing the cohort's
            validation problems.
    """
    file, out = Path(file), Path(out)
    doc = _read(file)
    daily = _daily(doc["user_histories"])
    first = _first_dates(daily)
    demographics, blood = _static(doc["mcqs"], first)
    source = {"name": "wearableqa-official", "params": {"file": file.name}}
    cohort = Cohort(daily, demographics, blood, _reference(doc["cohort_reference"], doc["mcqs"]), source)
    cohort = load_cohort(save_cohort(cohort, out / "cohort"))
    items = [_item(q, first, n) for n, q in enumerate(doc["mcqs"])]
    stats = build_stats(items, {}, {})
    manifest: dict[str, Any] = {
        "wearbench_version": __version__,
        "seed": None,
        "cohort_hash": content_hash(cohort),
        "cohort_source": source,
        "types": {},
        "max_per_type": None,
        "official": {"description": doc["description"], "file": file.name},
        "counts": {k: stats[k] for k in ("n_items", "n_users", "by_type", "by_label")},
    }
    contexts = {u: _known_percentiles(c) for u, c in contexts_from_cohort(cohort).items()}
    write_artifact(out / "bench", items, contexts, manifest, render_datasheet(stats, manifest))
    return ImportResult(out / "cohort", out / "bench", len(items), len({i.user_id for i in items}))
