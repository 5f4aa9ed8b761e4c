"""Validate a cohort folder or an in-memory cohort, reporting every problem with its place.

Validation never raises on bad data: an unreadable file, a missing column or a wrongly
typed value becomes a :class:`~wearbench.cohort.Problem` naming the file, user, date,
column and value, and the fix.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from wearbench._errors import WearbenchError
from wearbench.cohort._checks import check_tables
from wearbench.cohort._cohort import Cohort
from wearbench.cohort._hash import canonical_json, hash_tables
from wearbench.cohort._problems import Findings, ValidationReport, fmt_value
from wearbench.cohort._schema import SCHEMA_VERSION
from wearbench.cohort._tables import TABLES, arrow_to_frame, frame_to_arrow

MANIFEST = "cohort.json"
TRUTH_FILE = "ground_truth.json"
IN_MEMORY = "<in-memory cohort>"


@dataclass
class Inspection:
    """Everything validation learned (internal; used by the loader).

    Attributes:
        report: The problems found.
        frames: Canonical frames of the tables that could be read, rows in file order.
        masks: ``(table, column)`` → rows to set missing when repairing.
        manifest: Parsed ``cohort.json`` (folders only).
        truth: Parsed ground truth, if any.
    """

    report: ValidationReport
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)
    masks: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)
    manifest: dict[str, Any] | None = None
    truth: Any = None


def validate_cohort(source: str | os.PathLike[str] | Cohort) -> ValidationReport:
    """Check a cohort folder (or an in-memory :class:`Cohort`) against the canonical model.

    Reports missing files and columns, unexpected columns, wrong types, unit-scale errors,
    out-of-range values (as repairs), duplicate and out-of-order keys, users missing from
    one of the tables, invalid demographic codes, decreasing reference percentiles, and,
    for folders, a ``schema_version`` or ``content_hash`` that does not match.

    Args:
        source: Folder written by :func:`~wearbench.cohort.save_cohort`, or a cohort.

    Returns:
        The report; ``report.ok`` is true only when there is nothing to report.
    """
    if isinstance(source, Cohort):
        return inspect_cohort(source).report
    return inspect_folder(Path(source), keep_frames=False).report


def repaired_frames(inspection: Inspection) -> dict[str, pd.DataFrame]:
    """The inspection's frames with repairs applied (flagged values set missing), rows sorted by key."""
    frames = {name: frame.copy() for name, frame in inspection.frames.items()}
    for (table, column), mask in inspection.masks.items():
        frames[table].loc[mask, column] = np.nan
    by_name = {spec.name: spec for spec in TABLES}
    return {
        name: frame.sort_values(list(by_name[name].keys), kind="stable", ignore_index=True)
        for name, frame in frames.items()
    }


def inspect_cohort(cohort: Cohort) -> Inspection:
    """Validate an in-memory cohort (row order is not checked: saving sorts rows)."""
    found = Findings()
    tables: dict[str, pa.Table] = {}
    for spec in TABLES:
        frame = getattr(cohort, spec.name)
        if not isinstance(frame, pd.DataFrame):
            found.error("bad_table", spec.name, f"is a {type(frame).__name__}, expected a pandas DataFrame")
            continue
        try:
            tables[spec.name] = frame_to_arrow(frame, spec)
        except WearbenchError as e:
            found.error("bad_table", spec.name, str(e).removeprefix(f"{spec.name}: "))
    return inspect_tables(tables, cohort.truth, found=found)


def inspect_tables(
    tables: Mapping[str, pa.Table], truth: Any, *, found: Findings | None = None, source: str = IN_MEMORY
) -> Inspection:
    """Validate Arrow tables converted from memory (labels are table names)."""
    found = found if found is not None else Findings()
    try:
        canonical_json(truth)
    except (TypeError, ValueError) as e:
        found.error(
            "bad_truth", "truth", f"ground truth is not JSON-serialisable ({e}); use plain JSON values"
        )
    labels = {spec.name: spec.name for spec in TABLES}
    frames = frames_of(tables, labels, found)
    check_tables(frames, labels, found, file_order=False)
    return Inspection(found.report(source), frames, found.masks, None, truth)


def inspect_folder(path: Path, *, keep_frames: bool = True) -> Inspection:
    """Validate a cohort folder, keeping the frames for the loader.

    A sharded folder (``"layout": "sharded"``) is validated shard by shard; its frames are
    returned already repaired and concatenated, or not at all without ``keep_frames``.
    """
    found = Findings()
    if not path.is_dir():
        what = "does not exist" if not path.exists() else "is not a folder"
        found.error("missing_file", str(path), f"{what}; a cohort is a folder written by save_cohort")
        return Inspection(found.report(str(path)))
    manifest = _read_manifest(path, found)
    if manifest is not None and manifest.get("layout") == "sharded":
        from wearbench.cohort._shard_read import inspect_sharded

        return inspect_sharded(path, manifest, found, keep_frames=keep_frames)
    tables = {spec.name: read_parquet(path, spec.filename, found) for spec in TABLES}
    truth_ok, truth = read_truth(path, found)
    labels = {spec.name: spec.filename for spec in TABLES}
    frames = frames_of({k: v for k, v in tables.items() if v is not None}, labels, found)
    check_tables(frames, labels, found, file_order=True)
    if manifest is not None and truth_ok and all(t is not None for t in tables.values()):
        check_hash(manifest, hash_tables(tables, truth), found)
    return Inspection(found.report(str(path)), frames, found.masks, manifest, truth)


def frames_of(
    tables: Mapping[str, pa.Table], labels: Mapping[str, str], found: Findings
) -> dict[str, pd.DataFrame]:
    frames: dict[str, pd.DataFrame] = {}
    for spec in TABLES:
        table = tables.get(spec.name)
        if table is None:
            continue
        frame, problems = arrow_to_frame(table, spec, labels[spec.name])
        found.extend(problems)
        frames[spec.name] = frame
    return frames


def read_parquet(path: Path, filename: str, found: Findings, sha256: str | None = None) -> pa.Table | None:
    """Read ``path / filename``, recording a problem (and returning ``None``) if it cannot be used.

    Args:
        path: Cohort folder.
        filename: File path relative to ``path``; names the file in messages.
        found: Where problems are recorded.
        sha256: Expected SHA-256 hex digest of the file's bytes, if known (sharded manifests).
    """
    file = path / filename
    if not file.is_file():
        found.error(
            "missing_file", filename, f"file is missing from {path}; write the cohort with save_cohort"
        )
        return None
    data = file.read_bytes()
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        found.error(
            "file_hash",
            filename,
            f"sha256 does not match {MANIFEST} (expected {sha256[:12]}…): the file was changed after the "
            "cohort was written; restore it or re-save the cohort",
        )
        return None
    try:
        table = pq.read_table(pa.BufferReader(data))
    except (pa.ArrowException, OSError, ValueError) as e:
        reason = (str(e).splitlines() or [type(e).__name__])[0]
        found.error(
            "unreadable_file",
            filename,
            f"cannot be read as Parquet ({reason}); restore it or re-save the cohort",
        )
        return None
    names = table.column_names
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        text = f"has duplicate column name(s) {', '.join(dupes)}; every column name must be unique"
        found.error("duplicate_column", filename, text, column=dupes[0])
        return None
    return table


def _read_json(path: Path, found: Findings) -> tuple[bool, Any]:
    try:
        return True, json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        found.error(
            "unreadable_file", path.name, f"cannot be read as JSON ({e}); restore it or re-save the cohort"
        )
        return False, None


def _read_manifest(path: Path, found: Findings) -> dict[str, Any] | None:
    file = path / MANIFEST
    if not file.is_file():
        found.error(
            "missing_file", MANIFEST, f"file is missing from {path}; write the cohort with save_cohort"
        )
        return None
    ok, data = _read_json(file, found)
    if not ok:
        return None
    if not isinstance(data, dict):
        found.error("bad_manifest", MANIFEST, f"holds a {type(data).__name__}, expected a JSON object")
        return None
    for key in ("schema_version", "content_hash", "source"):
        if key not in data:
            found.error(
                "bad_manifest", MANIFEST, f"has no {key!r} field; re-save the cohort with save_cohort"
            )
    if "source" in data and not isinstance(data["source"], dict):
        found.error("bad_manifest", MANIFEST, "field 'source' must be a JSON object")
    version = data.get("schema_version")
    if "schema_version" in data and version != SCHEMA_VERSION:
        found.error(
            "schema_version",
            MANIFEST,
            f"schema_version = {fmt_value(version)} but this wearbench reads schema_version "
            f"{SCHEMA_VERSION}; convert the cohort or use a matching wearbench version",
            column="schema_version",
            value=version,
        )
    return data


def read_truth(path: Path, found: Findings, sha256: str | None = None) -> tuple[bool, Any]:
    """Read the optional ground truth (``True, None`` if absent); ``sha256`` as in :func:`read_parquet`."""
    file = path / TRUTH_FILE
    if not file.exists():
        return True, None
    if sha256 is not None and hashlib.sha256(file.read_bytes()).hexdigest() != sha256:
        found.error(
            "file_hash", TRUTH_FILE, f"sha256 does not match {MANIFEST}; restore it or re-save the cohort"
        )
        return False, None
    return _read_json(file, found)


def check_hash(manifest: Mapping[str, Any], actual: str, found: Findings) -> None:
    stated = manifest.get("content_hash")
    if stated is None or stated == actual:
        return
    found.error(
        "content_hash",
        MANIFEST,
        f"content_hash {str(stated)[:12]}… does not match the files' content ({actual[:12]}…): a file was "
        "changed after the cohort was written; restore the files or re-save the cohort with save_cohort",
        column="content_hash",
        value=str(stated),
    )
