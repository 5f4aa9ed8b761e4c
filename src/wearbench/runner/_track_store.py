"""Imputation RESULTS folders in the run store: the ``track_runs`` and ``track_results`` tables.

A RESULTS folder of ``wearbench track impute`` (:func:`~wearbench.tracks.run_imputation`) becomes
one ``track_runs`` row (the manifest JSON, the data's content hash, the results' SHA-256, the
``example.npz`` bytes when the folder has one) and one ``track_results`` row per
:class:`~wearbench.tracks.ImputationError` (its line number in ``results.jsonl`` kept, so the rows
read back in the file's order). The track run id is a hash of the manifest without its timings,
so the same RESULTS folder always maps to the same id and adding it again adds nothing
(``INSERT OR IGNORE`` on the primary keys, in one transaction: a store holds a track run whole or
not at all). The SQL here runs on the connection of :class:`~wearbench.runner.RunStore`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Mapping
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench._version import __version__
from wearbench.tracks import EXAMPLE_FILE, ImputationError, read_imputation_results

#: Manifest keys left out of the track run id: they change from one run of the same settings to the next.
_VOLATILE_KEYS = ("seconds", "seconds_total")
_ERROR_COLUMNS = tuple(f.name for f in fields(ImputationError))
TRACK_SCHEMA = """
CREATE TABLE IF NOT EXISTS track_runs(
    run_id TEXT PRIMARY KEY, kind TEXT NOT NULL, source TEXT NOT NULL, data_hash TEXT,
    results_sha256 TEXT NOT NULL, n_rows INTEGER NOT NULL, manifest TEXT NOT NULL, example BLOB,
    wearbench_version TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS track_results(
    run_id TEXT NOT NULL, pos INTEGER NOT NULL, method TEXT NOT NULL, approach TEXT NOT NULL,
    participant TEXT NOT NULL, channel INTEGER NOT NULL, kind TEXT NOT NULL, value REAL NOT NULL,
    n_cells INTEGER NOT NULL, PRIMARY KEY(run_id, method, approach, participant, channel));
"""


@dataclass(frozen=True)
class TrackRun:
    """One imputation RESULTS folder recorded in a run store.

    Attributes:
        run_id: Track run id (:func:`track_run_id` of the manifest).
        kind: The manifest's ``kind`` (``wearbench-imputation-results``).
        source: The RESULTS folder it was read from, as given.
        data_hash: Content hash of the minute cohort it ran on (None if the cohort had none).
        results_sha256: SHA-256 of its ``results.jsonl``.
        n_rows: Number of :class:`~wearbench.tracks.ImputationError` rows.
        has_example: Whether ``example.npz`` was stored with it.
        created: When it was recorded (UTC, ISO 8601).
    """

    run_id: str
    kind: str
    source: str
    data_hash: str | None
    results_sha256: str
    n_rows: int
    has_example: bool
    created: str


def track_run_id(manifest: Mapping[str, Any]) -> str:
    """The track run id of a RESULTS manifest: ``impute-`` + 16 hex of its SHA-256 without timings.

    Args:
        manifest: The ``manifest.json`` of a RESULTS folder.

    Returns:
        The id; equal for two runs with the same settings, data and results, whatever they took.
    """
    kept = {k: v for k, v in manifest.items() if k not in _VOLATILE_KEYS}
    text = json.dumps(kept, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return "impute-" + hashlib.sha256(text.encode()).hexdigest()[:16]


def read_example_bytes(path: str | os.PathLike[str], manifest: Mapping[str, Any]) -> bytes | None:
    """The bytes of ``RESULTS/example.npz`` (None without one), checked against the manifest's SHA-256.

    Args:
        path: The RESULTS folder.
        manifest: Its manifest (``"example": {"file", "sha256"}`` when the run wrote one).

    Raises:
        WearbenchError: Naming the file, if it cannot be read or its SHA-256 differs from the manifest.
    """
    declared = manifest.get("example")
    name = declared.get("file", EXAMPLE_FILE) if isinstance(declared, dict) else EXAMPLE_FILE
    file = Path(path) / str(name)
    if not file.is_file():
        return None
    try:
        blob = file.read_bytes()
    except OSError as e:
        raise WearbenchError(f"{file}: cannot read the example day ({e})") from e
    want = declared.get("sha256") if isinstance(declared, dict) else None
    if want is not None and hashlib.sha256(blob).hexdigest() != want:
        raise WearbenchError(f"{file}: SHA-256 differs from the manifest (edited or truncated?)")
    return blob


def insert_track_results(db: sqlite3.Connection, path: str | os.PathLike[str], now: str) -> tuple[str, int]:
    """Insert a RESULTS folder (call inside a transaction); returns ``(run id, new error rows)``.

    Raises:
        WearbenchError: For a folder that is not readable imputation results.
    """
    manifest, errors = read_imputation_results(path)
    example = read_example_bytes(path, manifest)
    run_id = track_run_id(manifest)
    db.execute(
        "INSERT OR IGNORE INTO track_runs VALUES(?,?,?,?,?,?,?,?,?,?)",
        (
            run_id,
            str(manifest["kind"]),
            str(path),
            manifest.get("data", {}).get("content_hash"),
            str(manifest.get("results", {}).get("sha256")),
            len(errors),
            json.dumps(manifest, sort_keys=True, allow_nan=False),
            example,
            __version__,
            now,
        ),
    )
    before = db.total_changes
    db.executemany(
        f"INSERT OR IGNORE INTO track_results(run_id, pos, {','.join(_ERROR_COLUMNS)}) "
        f"VALUES({','.join('?' * (len(_ERROR_COLUMNS) + 2))})",
        [(run_id, pos, *astuple(e)) for pos, e in enumerate(errors)],
    )
    return run_id, db.total_changes - before


def select_track_runs(db: sqlite3.Connection) -> list[TrackRun]:
    """Every track run of the store, in the order recorded."""
    cur = db.execute(
        "SELECT run_id, kind, source, data_hash, results_sha256, n_rows, example IS NOT NULL, created "
        "FROM track_runs ORDER BY rowid"
    )
    return [TrackRun(r[0], r[1], r[2], r[3], r[4], int(r[5]), bool(r[6]), r[7]) for r in cur.fetchall()]


def select_track_results(
    db: sqlite3.Connection, run_id: str, where: str
) -> tuple[dict[str, Any], list[ImputationError]]:
    """``(manifest, errors)`` of one track run, the errors in ``results.jsonl`` order.

    Raises:
        WearbenchError: If the run is unknown or holds fewer rows than its manifest lists.
    """
    hit = db.execute("SELECT manifest, n_rows FROM track_runs WHERE run_id=?", (run_id,)).fetchone()
    if hit is None:
        raise WearbenchError(f"{where}: no track run {run_id!r}")
    cur = db.execute(
        f"SELECT {','.join(_ERROR_COLUMNS)} FROM track_results WHERE run_id=? ORDER BY pos", (run_id,)
    )
    errors = [ImputationError(*r) for r in cur.fetchall()]
    if len(errors) != int(hit[1]):
        raise WearbenchError(f"{where}: track run {run_id} holds {len(errors)} of {hit[1]} error rows")
    manifest: dict[str, Any] = json.loads(hit[0])
    return manifest, errors


def select_track_example(db: sqlite3.Connection, run_id: str) -> bytes | None:
    """The stored ``example.npz`` bytes of a track run (None if it had none or is unknown)."""
    hit = db.execute("SELECT example FROM track_runs WHERE run_id=?", (run_id,)).fetchone()
    return None if hit is None or hit[0] is None else bytes(hit[0])
