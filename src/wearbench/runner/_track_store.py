"""Track RESULTS folders in the run store: ``track_runs`` and one row table per track kind.

A RESULTS folder of ``wearbench track impute``, ``track forecast`` or ``track predict`` becomes
one ``track_runs`` row (its manifest ``kind`` and JSON, the data's content hash, the results'
SHA-256, the ``example.npz`` bytes when the folder has one) and one row per record of its results
file in the kind's table (:data:`TRACK_KINDS`): ``track_results`` (imputation,
:class:`~wearbench.tracks.ImputationError`), ``track_forecast_results`` (forecasting,
:class:`~wearbench.tracks.ForecastError`), ``track_outcome_results`` (outcome prediction,
:class:`~wearbench.tracks.OutcomePrediction`). Each row keeps its line number, so the records read
back in the file's order, equal to the folder's reader. The track run id is a hash of the manifest
without its timings (prefix ``impute-``, ``forecast-`` or ``outcome-``), so the same RESULTS folder
always maps to the same id and adding it again adds nothing (``INSERT OR IGNORE`` on the primary
keys, in one transaction: a store holds a track run whole or not at all). A store written before
the forecast and outcome tables existed opens as before and gets them (``CREATE TABLE IF NOT
EXISTS``). The SQL here runs on the connection of :class:`~wearbench.runner.RunStore`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench._version import __version__
from wearbench.tracks import (
    EXAMPLE_FILE,
    FORECAST_RESULTS_KIND,
    OUTCOME_RESULTS_KIND,
    RESULTS_KIND,
    ForecastError,
    ImputationError,
    OutcomePrediction,
    read_forecast_results,
    read_imputation_results,
    read_outcome_results,
    results_kind,
)

#: One record of a track's results file.
TrackRecord = ImputationError | ForecastError | OutcomePrediction

#: Manifest keys left out of the track run id: they change from one run of the same settings to the next.
_VOLATILE_KEYS = ("seconds", "seconds_total")


@dataclass(frozen=True)
class TrackKind:
    """How one track kind's records are stored.

    Attributes:
        kind: The manifest ``kind``.
        prefix: Prefix of its track run ids.
        table: Its rows' table.
        record: The record class (a frozen dataclass; its fields are the table's columns).
        read: The RESULTS folder reader, ``path -> (manifest, records)``.
    """

    kind: str
    prefix: str
    table: str
    record: type[Any]
    read: Callable[[str | os.PathLike[str]], tuple[dict[str, Any], Sequence[Any]]]

    @property
    def columns(self) -> tuple[str, ...]:
        """The record's field names, in order."""
        return tuple(f.name for f in fields(self.record))


#: Manifest kind → how its records are stored.
TRACK_KINDS: dict[str, TrackKind] = {
    RESULTS_KIND: TrackKind(
        RESULTS_KIND, "impute-", "track_results", ImputationError, read_imputation_results
    ),
    FORECAST_RESULTS_KIND: TrackKind(
        FORECAST_RESULTS_KIND, "forecast-", "track_forecast_results", ForecastError, read_forecast_results
    ),
    OUTCOME_RESULTS_KIND: TrackKind(
        OUTCOME_RESULTS_KIND, "outcome-", "track_outcome_results", OutcomePrediction, read_outcome_results
    ),
}

TRACK_SCHEMA = """
CREATE TABLE IF NOT EXISTS track_runs(
    run_id TEXT PRIMARY KEY, kind TEXT NOT NULL, source TEXT NOT NULL, data_hash TEXT,
    results_sha256 TEXT NOT NULL, n_rows INTEGER NOT NULL, manifest TEXT NOT NULL, example BLOB,
    wearbench_version TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS track_results(
    run_id TEXT NOT NULL, pos INTEGER NOT NULL, method TEXT NOT NULL, approach TEXT NOT NULL,
    participant TEXT NOT NULL, channel INTEGER NOT NULL, kind TEXT NOT NULL, value REAL NOT NULL,
    n_cells INTEGER NOT NULL, PRIMARY KEY(run_id, method, approach, participant, channel));
CREATE TABLE IF NOT EXISTS track_forecast_results(
    run_id TEXT NOT NULL, pos INTEGER NOT NULL, method TEXT NOT NULL, participant TEXT NOT NULL,
    channel INTEGER NOT NULL, kind TEXT NOT NULL, value REAL NOT NULL, n_hours INTEGER NOT NULL,
    PRIMARY KEY(run_id, method, participant, channel));
CREATE TABLE IF NOT EXISTS track_outcome_results(
    run_id TEXT NOT NULL, pos INTEGER NOT NULL, method TEXT NOT NULL, task TEXT NOT NULL,
    participant TEXT NOT NULL, label REAL NOT NULL, prediction REAL NOT NULL, fallback INTEGER NOT NULL,
    PRIMARY KEY(run_id, method, task, participant));
"""


@dataclass(frozen=True)
class TrackRun:
    """One track RESULTS folder recorded in a run store.

    Attributes:
        run_id: Track run id (:func:`track_run_id` of the manifest).
        kind: The manifest's ``kind`` (``wearbench-imputation-results``,
            ``wearbench-forecast-results`` or ``wearbench-outcome-results``).
        source: The RESULTS folder it was read from, as given.
        data_hash: Content hash of the minute cohort it ran on (None if the cohort had none).
        results_sha256: SHA-256 of its results file.
        n_rows: Number of records (error rows or predictions).
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


def track_kind(kind: object, where: str) -> TrackKind:
    """The :class:`TrackKind` of a manifest ``kind``.

    Raises:
        WearbenchError: Naming ``where`` for a kind that is no track's.
    """
    if not isinstance(kind, str) or kind not in TRACK_KINDS:
        want = ", ".join(TRACK_KINDS)
        raise WearbenchError(f"{where}: not track results (kind {kind!r}; want one of {want})")
    return TRACK_KINDS[kind]


def track_run_id(manifest: Mapping[str, Any]) -> str:
    """The track run id of a RESULTS manifest: a kind prefix + 16 hex of its SHA-256 without timings.

    The prefix is ``impute-`` (imputation, and any manifest of unknown kind), ``forecast-`` or
    ``outcome-``.

    Args:
        manifest: The ``manifest.json`` of a RESULTS folder.

    Returns:
        The id; equal for two runs with the same settings, data and results, whatever they took.
    """
    kept = {k: v for k, v in manifest.items() if k not in _VOLATILE_KEYS}
    text = json.dumps(kept, sort_keys=True, separators=(",", ":"), allow_nan=False)
    spec = TRACK_KINDS.get(str(manifest.get("kind")))
    return (spec.prefix if spec else "impute-") + hashlib.sha256(text.encode()).hexdigest()[:16]


def read_track_folder(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[TrackRecord]]:
    """``(manifest, records)`` of a RESULTS folder of any track, read by its manifest's kind.

    Raises:
        WearbenchError: For a folder without a readable manifest, of another kind, or whose
            results differ from the manifest.
    """
    spec = track_kind(results_kind(path), str(path))
    manifest, records = spec.read(path)
    return manifest, list(records)


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
    """Insert a RESULTS folder of any track (call inside a transaction); ``(run id, new rows)``.

    Raises:
        WearbenchError: For a folder that is not readable track results.
    """
    spec = track_kind(results_kind(path), str(path))
    manifest, records = spec.read(path)
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
            len(records),
            json.dumps(manifest, sort_keys=True, allow_nan=False),
            example,
            __version__,
            now,
        ),
    )
    before = db.total_changes
    cols = spec.columns
    db.executemany(
        f"INSERT OR IGNORE INTO {spec.table}(run_id, pos, {','.join(cols)}) "
        f"VALUES({','.join('?' * (len(cols) + 2))})",
        [(run_id, pos, *astuple(r)) for pos, r in enumerate(records)],
    )
    return run_id, db.total_changes - before


def select_track_runs(db: sqlite3.Connection) -> list[TrackRun]:
    """Every track run of the store, in the order recorded."""
    cur = db.execute(
        "SELECT run_id, kind, source, data_hash, results_sha256, n_rows, example IS NOT NULL, created "
        "FROM track_runs ORDER BY rowid"
    )
    return [TrackRun(r[0], r[1], r[2], r[3], r[4], int(r[5]), bool(r[6]), r[7]) for r in cur.fetchall()]


def _record(spec: TrackKind, row: Sequence[Any]) -> TrackRecord:
    if spec.record is OutcomePrediction:
        return OutcomePrediction(row[0], row[1], row[2], row[3], row[4], bool(row[5]))
    rec: TrackRecord = spec.record(*row)
    return rec


def select_track_records(
    db: sqlite3.Connection, run_id: str, where: str
) -> tuple[dict[str, Any], list[TrackRecord]]:
    """``(manifest, records)`` of one track run of any kind, in its results file's order.

    Raises:
        WearbenchError: If the run is unknown or holds fewer rows than its manifest lists.
    """
    hit = db.execute("SELECT manifest, n_rows, kind FROM track_runs WHERE run_id=?", (run_id,)).fetchone()
    if hit is None:
        raise WearbenchError(f"{where}: no track run {run_id!r}")
    spec = track_kind(hit[2], f"{where}: track run {run_id}")
    cur = db.execute(
        f"SELECT {','.join(spec.columns)} FROM {spec.table} WHERE run_id=? ORDER BY pos", (run_id,)
    )
    records = [_record(spec, r) for r in cur.fetchall()]
    if len(records) != int(hit[1]):
        raise WearbenchError(f"{where}: track run {run_id} holds {len(records)} of {hit[1]} error rows")
    manifest: dict[str, Any] = json.loads(hit[0])
    return manifest, records


def select_track_results(
    db: sqlite3.Connection, run_id: str, where: str
) -> tuple[dict[str, Any], list[ImputationError]]:
    """``(manifest, errors)`` of one imputation track run, the errors in ``results.jsonl`` order.

    Raises:
        WearbenchError: If the run is unknown, not an imputation run, or holds fewer rows than its
            manifest lists.
    """
    manifest, records = select_track_records(db, run_id, where)
    if manifest.get("kind") != RESULTS_KIND:
        kind = manifest.get("kind")
        raise WearbenchError(f"{where}: track run {run_id} is not imputation results ({kind})")
    return manifest, [r for r in records if isinstance(r, ImputationError)]


def select_track_example(db: sqlite3.Connection, run_id: str) -> bytes | None:
    """The stored ``example.npz`` bytes of a track run (None if it had none or is unknown)."""
    hit = db.execute("SELECT example FROM track_runs WHERE run_id=?", (run_id,)).fetchone()
    return None if hit is None or hit[0] is None else bytes(hit[0])
