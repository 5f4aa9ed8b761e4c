"""The SQLite run store: one row per item × run, append-safe, resumable, with a response cache.

One file (``RUNDIR/runs.sqlite``) holds any number of runs (model × setting on a benchmark).
Every answered item is committed on its own, in WAL mode, so a process killed at any moment
(``kill -9``) loses at most the item in flight; ``INSERT OR IGNORE`` on the primary key
``(run_id, item_id)`` means a re-run can never duplicate a row. Rows whose call failed
(``error`` set) are deleted and retried when a run resumes. The response cache maps
sha256(model, messages, params) to the model output, so an identical call is never paid twice,
in this run or any other run sharing the store. The ``judgements`` table holds an LLM judge's
grades of HealthLoopQA answers (``wearbench cgm judge``), keyed by run, item, judge and judge
prompt version, resumable the same way. The ``track_runs`` table and one row table per track
kind hold OpenMHC RESULTS folders (``wearbench track impute|forecast|predict``;
``runner/_track_store.py``), so the OpenMHC tracks' results and the WearableQA runs can share one
store.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench._version import __version__
from wearbench.models import ModelOutput, redact
from wearbench.prompts import Setting
from wearbench.runner._records import Judgement, ResultRow, RunInfo
from wearbench.runner._track_store import (
    TRACK_SCHEMA,
    TrackRecord,
    TrackRun,
    insert_track_results,
    select_track_example,
    select_track_records,
    select_track_results,
    select_track_runs,
)
from wearbench.tracks import ImputationError

STORE_NAME = "runs.sqlite"
_SCHEMA_VERSION = 1
_RESULT_COLUMNS = tuple(f.name for f in fields(ResultRow))
#: Text columns that may carry a provider's words (an error body, a transcript): redacted.
_REDACTED_COLUMNS = frozenset({"response", "error", "transcript", "extra", "rationale", "parse_error"})
_JUDGEMENT_COLUMNS = tuple(f.name for f in fields(Judgement))
_JUDGE_KEY = "run_id=? AND judge=? AND prompt_version=?"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(
    run_id TEXT PRIMARY KEY, model TEXT NOT NULL, setting TEXT NOT NULL, params TEXT NOT NULL,
    bench TEXT NOT NULL, bench_hash TEXT NOT NULL, n_items INTEGER NOT NULL,
    wearbench_version TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results(
    run_id TEXT NOT NULL, item_id TEXT NOT NULL, user_id TEXT NOT NULL, model TEXT NOT NULL,
    setting TEXT NOT NULL, prompt_hash TEXT NOT NULL, response TEXT NOT NULL, letter TEXT,
    correct INTEGER NOT NULL, parse_failed INTEGER NOT NULL, prompt_tokens INTEGER,
    completion_tokens INTEGER, cost_usd REAL, latency_s REAL NOT NULL, retries INTEGER NOT NULL,
    error TEXT, transcript TEXT NOT NULL, cached INTEGER NOT NULL, extra TEXT NOT NULL,
    created TEXT NOT NULL, PRIMARY KEY(run_id, item_id));
CREATE TABLE IF NOT EXISTS cache(key TEXT PRIMARY KEY, model TEXT NOT NULL, output TEXT NOT NULL,
    created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS judgements(
    run_id TEXT NOT NULL, item_id TEXT NOT NULL, user_id TEXT NOT NULL, judge TEXT NOT NULL,
    prompt_version TEXT NOT NULL, instruction_following INTEGER, reasoning_quality INTEGER,
    format_compliance INTEGER, failure_types TEXT NOT NULL, rationale TEXT NOT NULL,
    parse_failed INTEGER NOT NULL, parse_error TEXT, response TEXT NOT NULL, error TEXT,
    prompt_hash TEXT NOT NULL, prompt_tokens INTEGER, completion_tokens INTEGER, cost_usd REAL,
    latency_s REAL NOT NULL, cached INTEGER NOT NULL, created TEXT NOT NULL,
    PRIMARY KEY(run_id, item_id, judge, prompt_version));
"""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class RunStore:
    """A run store at ``RUNDIR/runs.sqlite`` (created on first use).

    Args:
        rundir: Run folder (created if missing).
    """

    def __init__(self, rundir: str | Path) -> None:
        self.rundir = Path(rundir)
        self.path = self.rundir / STORE_NAME
        try:
            self.rundir.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: safe against process kills
            self._db.execute("PRAGMA busy_timeout=10000")
            self._db.executescript(_SCHEMA + TRACK_SCHEMA)
            self._db.execute(
                "INSERT OR IGNORE INTO meta VALUES('schema_version', ?)", (str(_SCHEMA_VERSION),)
            )
        except sqlite3.DatabaseError as e:
            raise WearbenchError(f"{self.path}: not a usable run store ({e})") from e

    def close(self) -> None:
        """Close the connection."""
        self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # runs -------------------------------------------------------------------------------------
    def ensure_run(self, info: RunInfo) -> None:
        """Record a run (no-op if it exists with the same id)."""
        with self._tx() as db:
            _insert_run(db, info)

    def runs(self) -> list[RunInfo]:
        """Every run in the store, in creation order."""
        cur = self._db.execute(
            "SELECT run_id, model, setting, params, bench, bench_hash, n_items FROM runs ORDER BY rowid"
        )
        return [
            RunInfo(r[0], r[1], Setting.from_key(r[2]), json.loads(r[3]), r[4], r[5], int(r[6]))
            for r in cur.fetchall()
        ]

    def run(self, run_id: str) -> RunInfo:
        """One run by id (a unique prefix is enough).

        Raises:
            WearbenchError: If no run, or more than one, matches.
        """
        hits = [r for r in self.runs() if r.run_id.startswith(run_id)]
        if len(hits) != 1:
            known = ", ".join(r.run_id for r in self.runs()) or "none"
            raise WearbenchError(f"{self.path}: {len(hits)} runs match {run_id!r} (runs: {known})")
        return hits[0]

    # results ----------------------------------------------------------------------------------
    def add(self, row: ResultRow, run: RunInfo | None = None) -> bool:
        """Append one result (committed at once); False if the item was already stored.

        Text that may carry a provider's words (response, error, transcript, extra) passes
        through :func:`~wearbench.models.redact` first. With ``run``, the run is recorded in
        the same transaction (the runner records a run with its first answer).
        """
        return self.add_many([row], run=run) == 1

    def add_many(self, rows: Sequence[ResultRow], run: RunInfo | None = None) -> int:
        """Append results in one transaction (redacted like :meth:`add`); returns how many were new."""
        now = _now()
        values = [
            (*(_to_sql(getattr(row, c), c in _REDACTED_COLUMNS) for c in _RESULT_COLUMNS), now)
            for row in rows
        ]
        with self._tx() as db:
            if run is not None:
                _insert_run(db, run)
            before = db.total_changes
            db.executemany(
                f"INSERT OR IGNORE INTO results({','.join(_RESULT_COLUMNS)}, created) "
                f"VALUES({','.join('?' * (len(_RESULT_COLUMNS) + 1))})",
                values,
            )
            added = db.total_changes - before
        return added

    def done(self, run_id: str) -> set[str]:
        """Item ids of the run that have a stored answer without an error."""
        cur = self._db.execute("SELECT item_id FROM results WHERE run_id=? AND error IS NULL", (run_id,))
        return {r[0] for r in cur.fetchall()}

    def errored(self, run_id: str) -> int:
        """How many of the run's stored rows carry an error."""
        cur = self._db.execute("SELECT COUNT(*) FROM results WHERE run_id=? AND error IS NOT NULL", (run_id,))
        return int(cur.fetchone()[0])

    def drop_errors(self, run_id: str) -> int:
        """Delete the run's errored rows (so a resumed run retries them); returns how many."""
        with self._tx() as db:
            cur = db.execute("DELETE FROM results WHERE run_id=? AND error IS NOT NULL", (run_id,))
        return cur.rowcount

    def rows(self, run_id: str) -> list[ResultRow]:
        """The run's rows, sorted by item id."""
        cur = self._db.execute(
            f"SELECT {','.join(_RESULT_COLUMNS)} FROM results WHERE run_id=? ORDER BY item_id", (run_id,)
        )
        return [_row(r) for r in cur.fetchall()]

    # judgements -------------------------------------------------------------------------------
    def add_judgement(self, judgement: Judgement) -> bool:
        """Append one judgement (committed at once; text redacted); False if it was already stored."""
        values = [
            json.dumps(list(v)) if c == "failure_types" else _to_sql(v, c in _REDACTED_COLUMNS)
            for c, v in ((c, getattr(judgement, c)) for c in _JUDGEMENT_COLUMNS)
        ]
        with self._tx() as db:
            before = db.total_changes
            db.execute(
                f"INSERT OR IGNORE INTO judgements({','.join(_JUDGEMENT_COLUMNS)}, created) "
                f"VALUES({','.join('?' * (len(_JUDGEMENT_COLUMNS) + 1))})",
                (*values, _now()),
            )
            return db.total_changes > before

    def judged(self, run_id: str, judge: str, prompt_version: str) -> set[str]:
        """Item ids of the run that this judge and prompt version graded without an error."""
        cur = self._db.execute(
            f"SELECT item_id FROM judgements WHERE {_JUDGE_KEY} AND error IS NULL",
            (run_id, judge, prompt_version),
        )
        return {r[0] for r in cur.fetchall()}

    def drop_judgement_errors(self, run_id: str, judge: str, prompt_version: str) -> int:
        """Delete this judge's errored judgements of the run (so they are retried); returns how many."""
        with self._tx() as db:
            cur = db.execute(
                f"DELETE FROM judgements WHERE {_JUDGE_KEY} AND error IS NOT NULL",
                (run_id, judge, prompt_version),
            )
        return cur.rowcount

    def judgements(self, run_id: str, judge: str | None = None) -> list[Judgement]:
        """The run's judgements (of one judge spec, or all), sorted by judge, prompt version and item."""
        where, args = "run_id=?", [run_id]
        if judge is not None:
            where, args = where + " AND judge=?", [*args, judge]
        cur = self._db.execute(
            f"SELECT {','.join(_JUDGEMENT_COLUMNS)} FROM judgements WHERE {where} "
            "ORDER BY judge, prompt_version, item_id",
            args,
        )
        return [_judgement(r) for r in cur.fetchall()]

    # track results (RESULTS folders of the three OpenMHC tracks) -------------------------------
    def add_track_results(self, results: str | os.PathLike[str]) -> tuple[str, int]:
        """Record a track RESULTS folder (with its ``example.npz``, if any) in one transaction.

        Adding the same folder again adds nothing (the track run id hashes the manifest without
        its timings; rows are keyed by run and the record's own key: method, approach,
        participant, channel; method, participant, channel; or method, task, participant).

        Args:
            results: RESULTS folder of ``wearbench track impute``, ``track forecast`` or
                ``track predict``.

        Returns:
            ``(track run id, records newly stored)``.

        Raises:
            WearbenchError: For a folder that is not readable track results.
        """
        with self._tx() as db:
            return insert_track_results(db, results, _now())

    def track_runs(self) -> list[TrackRun]:
        """Every recorded track run, in the order recorded."""
        return select_track_runs(self._db)

    def track_results(self, run_id: str) -> tuple[dict[str, Any], list[ImputationError]]:
        """``(manifest, errors)`` of an imputation track run, equal to ``read_imputation_results``.

        Raises:
            WearbenchError: For an unknown track run id, or a run of another track.
        """
        return select_track_results(self._db, run_id, str(self.path))

    def track_records(self, run_id: str) -> tuple[dict[str, Any], list[TrackRecord]]:
        """``(manifest, records)`` of a track run of any kind, equal to its folder's reader.

        Raises:
            WearbenchError: For an unknown track run id.
        """
        return select_track_records(self._db, run_id, str(self.path))

    def track_example(self, run_id: str) -> bytes | None:
        """The ``example.npz`` bytes stored with a track run (None if it had none)."""
        return select_track_example(self._db, run_id)

    # cache ------------------------------------------------------------------------------------
    def cached(self, key: str) -> ModelOutput | None:
        """The cached output for a prompt hash, if any."""
        hit = self._db.execute("SELECT output FROM cache WHERE key=?", (key,)).fetchone()
        return ModelOutput.from_dict(json.loads(hit[0])) if hit else None

    def cache(self, key: str, model: str, output: ModelOutput) -> None:
        """Store an output under a prompt hash (first write wins)."""
        blob = redact(json.dumps(output.to_dict(), sort_keys=True, ensure_ascii=False))
        with self._tx() as db:
            db.execute("INSERT OR IGNORE INTO cache VALUES(?,?,?,?)", (key, model, blob, _now()))


def _insert_run(db: sqlite3.Connection, info: RunInfo) -> None:
    db.execute(
        "INSERT OR IGNORE INTO runs VALUES(?,?,?,?,?,?,?,?,?)",
        (
            info.run_id,
            info.model,
            info.setting.key(),
            json.dumps(dict(info.params), sort_keys=True),
            info.bench,
            info.bench_hash,
            info.n_items,
            __version__,
            _now(),
        ),
    )


def _to_sql(value: Any, secret_safe: bool = False) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, Mapping):
        value = json.dumps(dict(value), sort_keys=True)
    if secret_safe and isinstance(value, str):
        return redact(value)
    return value


def _row(values: Sequence[Any]) -> ResultRow:
    data = dict(zip(_RESULT_COLUMNS, values, strict=True))
    for key in ("correct", "parse_failed", "cached"):
        data[key] = bool(data[key])
    data["extra"] = json.loads(data["extra"])
    return ResultRow(**data)


def _judgement(values: Sequence[Any]) -> Judgement:
    data = dict(zip(_JUDGEMENT_COLUMNS, values, strict=True))
    for key in ("parse_failed", "cached"):
        data[key] = bool(data[key])
    data["failure_types"] = tuple(json.loads(data["failure_types"]))
    return Judgement(**data)


def record_track_results(
    results: str | os.PathLike[str], rundir: str | os.PathLike[str] | None = None
) -> str:
    """Record a track RESULTS folder in a run store (``RUNDIR/runs.sqlite``).

    Args:
        results: RESULTS folder of ``wearbench track impute``, ``track forecast`` or ``track predict``.
        rundir: Run folder whose store gets it (default: the RESULTS folder itself).

    Returns:
        The track run id.

    Raises:
        WearbenchError: For unreadable results or an unusable store.
    """
    with RunStore(Path(results if rundir is None else rundir)) as store:
        run_id, _ = store.add_track_results(results)
    return run_id
