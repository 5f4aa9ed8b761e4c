"""Cohort folders: deterministic Parquet writing and validated loading.

A cohort folder holds ``daily.parquet``, ``demographics.parquet``, ``blood.parquet``,
``reference.parquet``, an optional ``ground_truth.json`` and the ``cohort.json`` manifest
(schema version, source, counts, date range, per-file SHA-256, content hash, wearbench
version). Parquet is written with explicit Arrow schemas, no pandas or Arrow schema
metadata and fixed zstd settings, with rows sorted by key, so the same cohort always
gives the same bytes under one pyarrow version, and load → save round-trips them.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from wearbench._errors import CohortValidationError, WearbenchError
from wearbench._folder import check_target, replaced_folder
from wearbench._jsonfile import read_json_object
from wearbench._version import __version__
from wearbench.cohort._cohort import Cohort
from wearbench.cohort._hash import cohort_tables, hash_tables, json_default
from wearbench.cohort._schema import SCHEMA_VERSION
from wearbench.cohort._tables import BLOOD, DAILY, DEMOGRAPHICS, REFERENCE, TABLES
from wearbench.cohort._validate import MANIFEST, TRUTH_FILE, inspect_folder, inspect_tables, repaired_frames

#: Fixed Parquet writer settings (changing any of them changes every file's bytes).
_PARQUET_OPTIONS: dict[str, Any] = {
    "version": "2.6",
    "compression": "zstd",
    "compression_level": 3,
    "use_dictionary": True,
    "write_statistics": True,
    "store_schema": False,
    "data_page_version": "1.0",
    "row_group_size": 1 << 20,
}


def save_cohort(
    cohort: Cohort, path: str | os.PathLike[str], *, validate: bool = True, shard_users: int | None = None
) -> Path:
    """Write a cohort folder.

    Args:
        cohort: The cohort to write (rows in any order; they are sorted by key).
        path: Folder to write; created if missing. An existing cohort folder is replaced as a
            whole: the new cohort is written to a hidden sibling and swapped in only when
            complete, so a failed write leaves the previous cohort intact.
        validate: Refuse to write a cohort with errors (repairable problems such as an
            out-of-range value are written as they are and repaired on load). Pass
            ``False`` only to write deliberately broken cohorts, e.g. test fixtures.
        shard_users: Write a sharded folder (``docs/cohort-shards.md``) of this many users
            per shard, in sorted user order; ``None`` writes the single-file layout. A
            sharded write always validates.

    Returns:
        The folder path.

    Raises:
        CohortValidationError: If ``validate`` and the cohort has errors; nothing is written.
        WearbenchError: If ``path`` is a file or a non-empty folder without a cohort manifest
            (nothing written), a table has duplicate column names, or the source / ground truth
            is not JSON-serialisable.
    """
    out = Path(path)
    check_target(out, "cohort", MANIFEST)
    if shard_users is not None:
        from wearbench.cohort._shards import save_sharded

        return save_sharded(cohort, out, shard_users)
    tables = cohort_tables(cohort)
    if validate:
        report = inspect_tables(tables, cohort.truth).report
        if report.errors:
            raise CohortValidationError(f"{out} (not written)", [p.message for p in report.errors])
    truth_text = None if cohort.truth is None else _json_text(cohort.truth, TRUTH_FILE)
    source_text = _json_text(dict(cohort.source or {}), "source")
    payloads = [(spec.filename, _parquet_bytes(tables[spec.name])) for spec in TABLES]
    if truth_text is not None:
        payloads.append((TRUTH_FILE, truth_text.encode("utf-8")))
    files = {name: hashlib.sha256(data).hexdigest() for name, data in payloads}
    manifest = {
        "schema_version": SCHEMA_VERSION,
        "source": json.loads(source_text),
        "counts": _counts(tables),
        "date_range": _date_range(tables[DAILY.name]),
        "files": files,
        "content_hash": hash_tables(tables, cohort.truth),
        "wearbench_version": __version__,
    }
    payloads.append((MANIFEST, _json_text(manifest, MANIFEST).encode("utf-8")))
    with replaced_folder(out, "cohort", MANIFEST) as new:
        for name, data in payloads:
            (new / name).write_bytes(data)
    return out


def load_cohort(path: str | os.PathLike[str], *, repair: bool = True) -> Cohort:
    """Read and validate a cohort folder.

    In the returned cohort ``date`` / ``draw_date`` are ``datetime64[us]`` at midnight,
    ``user_id`` and labels are ``str``, measurements ``float64`` (NaN = missing); rows are
    sorted by key.

    Args:
        path: Folder written by :func:`save_cohort`.
        repair: Apply repairs (set out-of-range values missing) and list them in
            ``cohort.repairs``. With ``False`` any repairable problem is an error.

    Raises:
        CohortValidationError: Listing one line per problem, if there are errors.
    """
    inspection = inspect_folder(Path(path))
    report = inspection.report
    problems = list(report.errors) if repair else list(report.problems)
    if problems:
        raise CohortValidationError(str(path), [p.message for p in problems])
    frames = repaired_frames(inspection)
    manifest = inspection.manifest or {}
    return Cohort(
        daily=frames[DAILY.name],
        demographics=frames[DEMOGRAPHICS.name],
        blood=frames[BLOOD.name],
        reference=frames[REFERENCE.name],
        source=dict(manifest.get("source") or {}),
        truth=inspection.truth,
        repairs=tuple(p.message for p in report.repairs),
    )


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a cohort folder's ``cohort.json`` without validating the tables.

    Raises:
        WearbenchError: If the manifest is missing, unreadable or not a JSON object.
    """
    return read_json_object(
        Path(path) / MANIFEST, missing="no cohort manifest (write the cohort with save_cohort)"
    )


def _parquet_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table.replace_schema_metadata(None), sink, **_PARQUET_OPTIONS)
    return bytes(sink.getvalue().to_pybytes())


def _json_text(obj: Any, what: str) -> str:
    """Sorted keys, indent 2, trailing newline."""
    try:
        return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False, default=json_default) + "\n"
    except (TypeError, ValueError) as e:
        raise WearbenchError(f"{what}: not JSON-serialisable ({e}); use plain JSON values") from e


def _counts(tables: Mapping[str, pa.Table]) -> dict[str, Any]:
    daily = tables[DAILY.name]
    per_user = np.array([], dtype=np.int64)
    if "user_id" in daily.column_names and daily.num_rows:
        counts = pc.value_counts(daily.column("user_id").combine_chunks())
        per_user = np.asarray(counts.field("counts").to_numpy(), dtype=np.int64)
    return {
        "users": int(per_user.size),
        "user_days": int(daily.num_rows),
        "days_per_user": {
            "min": int(per_user.min()) if per_user.size else None,
            "median": float(np.median(per_user)) if per_user.size else None,
            "max": int(per_user.max()) if per_user.size else None,
        },
        "demographics_rows": int(tables[DEMOGRAPHICS.name].num_rows),
        "blood_draws": int(tables[BLOOD.name].num_rows),
        "reference_rows": int(tables[REFERENCE.name].num_rows),
    }


def _date_range(daily: pa.Table) -> dict[str, str] | None:
    if "date" not in daily.column_names or daily.num_rows == 0:
        return None
    days = pd.Series(daily.column("date").to_pandas()).dropna()
    if days.empty:
        return None
    try:
        first, last = np.datetime64(days.min(), "D"), np.datetime64(days.max(), "D")
    except (TypeError, ValueError):
        return None
    return {"first": str(first), "last": str(last)}
