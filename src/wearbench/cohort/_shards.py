"""Sharded cohort folders: users split into shards written one at a time.

Layout: ``cohort.json`` (the usual manifest plus ``"layout": "sharded"`` and a ``"shards"``
list), the global ``reference.parquet`` and optional ``ground_truth.json`` at the top, and
per shard ``shards/NNNNN/{daily,demographics,blood}.parquet`` (rows sorted by key; a
shard's users are contiguous in sorted user order and shards follow user order). Files are
written with the single-file writer's Parquet settings, so equal shards give equal bytes.

Content hash of a sharded cohort: SHA-256 over :data:`SHARDED_MAGIC`, the hash of the
reference table plus ground truth (:func:`~wearbench.cohort._hash.hash_tables` with only
``reference`` present), then each shard's content hash (``hash_tables`` of its daily,
demographics and blood tables, no reference, no truth), in shard order, every part
length-prefixed. It differs from the single-file ``content_hash`` of the same data, and
it depends on where the shard boundaries fall.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from wearbench._errors import CohortValidationError, WearbenchError
from wearbench._folder import check_target, replaced_folder
from wearbench._version import __version__
from wearbench.cohort._cohort import Cohort
from wearbench.cohort._hash import cohort_tables, hash_tables
from wearbench.cohort._io import _counts, _date_range, _json_text, _parquet_bytes
from wearbench.cohort._schema import SCHEMA_VERSION
from wearbench.cohort._tables import BLOOD, DAILY, DEMOGRAPHICS, REFERENCE, frame_to_arrow
from wearbench.cohort._validate import MANIFEST, TRUTH_FILE, inspect_tables

#: ``layout`` value of a sharded manifest.
SHARDED = "sharded"
#: First bytes of a sharded cohort's content-hash stream.
SHARDED_MAGIC = b"wearbench-cohort-sharded/1\n"
#: Per-user tables, written in every shard.
SHARD_TABLES = (DAILY, DEMOGRAPHICS, BLOOD)


def shard_dir(index: int) -> str:
    """Folder of shard ``index`` relative to the cohort folder (``shards/00000``)."""
    return f"shards/{index:05d}"


def shard_hash(tables: Mapping[str, pa.Table | None]) -> str:
    """Content hash of one shard: its daily, demographics and blood tables."""
    return hash_tables({spec.name: tables.get(spec.name) for spec in SHARD_TABLES}, None)


def global_hash(reference: pa.Table | None, truth: Any) -> str:
    """Content hash of the global part: the reference table and ground truth."""
    return hash_tables({REFERENCE.name: reference}, truth)


def sharded_content_hash(global_part: str, shard_hashes: Sequence[str]) -> str:
    """The folder's content hash from the global part's and each shard's hash, in order."""
    h = hashlib.sha256(SHARDED_MAGIC)
    for part in (global_part, *shard_hashes):
        data = part.encode()
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


class ShardedCohortWriter(AbstractContextManager["ShardedCohortWriter"]):
    """Write a sharded cohort folder one part (one shard) at a time.

    Use as a context manager; each :meth:`add` writes one shard into a hidden sibling
    folder, and leaving the block without an error writes ``cohort.json`` and swaps the
    folder in (an existing cohort there is replaced as a whole). On an error nothing
    changes at ``path``. ``reference`` and ``truth`` may be set as attributes before the
    block ends (a generator may build them last).

    Example:
        >>> with ShardedCohortWriter(out, source=src, reference=ref) as writer:  # doctest: +SKIP
        ...     for part in parts:
        ...         writer.add(part)
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        source: Mapping[str, Any],
        reference: pd.DataFrame | None = None,
        truth: Mapping[str, Any] | None = None,
    ) -> None:
        """Check the target (nothing written yet).

        Raises:
            WearbenchError: If ``path`` is a file or a non-empty folder without a cohort manifest.
        """
        self.path = Path(path)
        check_target(self.path, "cohort", MANIFEST)
        self.source = dict(source)
        self.reference = reference
        self.truth = truth
        self._folder: AbstractContextManager[Path] | None = None
        self._new: Path | None = None
        self._shards: list[dict[str, Any]] = []
        self._days: list[np.ndarray] = []
        self._totals = {"demographics_rows": 0, "blood_draws": 0}
        self._dates: list[dict[str, str]] = []
        self._last_user: str | None = None

    def __enter__(self) -> ShardedCohortWriter:
        self._folder = replaced_folder(self.path, "cohort", MANIFEST)
        self._new = self._folder.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._folder is None:
            return
        folder, self._folder = self._folder, None
        try:
            if kind is None:
                try:
                    self._finish()
                except BaseException as e:
                    folder.__exit__(type(e), e, e.__traceback__)
                    raise
            folder.__exit__(kind, err, tb)
        finally:
            self._new = None

    def add(self, part: Cohort) -> None:
        """Write one shard holding every user of ``part`` (its reference and truth are ignored).

        Raises:
            WearbenchError: Outside a ``with`` block, or if a user id of ``part`` is not greater
                than every user id added before (parts must come in user order, whole users).
            CohortValidationError: If the part's daily, demographics or blood tables have errors.
        """
        self._target()
        index = len(self._shards)
        where = shard_dir(index)
        tables = {spec.name: frame_to_arrow(getattr(part, spec.name), spec) for spec in SHARD_TABLES}
        report = inspect_tables(tables, None).report
        if report.errors:
            raise CohortValidationError(
                f"{self.path}/{where} (not written)", [p.message for p in report.errors]
            )
        users = sorted(set(part.demographics["user_id"].astype(str)))
        if not users:
            raise WearbenchError(f"{self.path}/{where}: part has no users; add only non-empty parts")
        if self._last_user is not None and users[0] <= self._last_user:
            raise WearbenchError(
                f"{self.path}/{where}: user {users[0]!r} is not after {self._last_user!r}, the last user "
                "already written; add parts in user order, each user in one part"
            )
        self._shards.append(self._write_shard(where, tables, users))
        self._last_user = users[-1]

    def _target(self) -> Path:
        """The hidden folder being written.

        Raises:
            WearbenchError: Outside the writer's ``with`` block.
        """
        if self._new is None:
            raise WearbenchError(f"{self.path}: the writer is used outside its with-block")
        return self._new

    def _write_shard(self, where: str, tables: Mapping[str, pa.Table], users: list[str]) -> dict[str, Any]:
        folder = self._target() / where
        folder.mkdir(parents=True)
        files: dict[str, str] = {}
        for spec in SHARD_TABLES:
            data = _parquet_bytes(tables[spec.name])
            (folder / spec.filename).write_bytes(data)
            files[spec.filename] = hashlib.sha256(data).hexdigest()
        counts = _counts({**tables, REFERENCE.name: pa.table({})})
        self._days.append(_days_per_user(tables[DAILY.name]))
        self._totals["demographics_rows"] += counts["demographics_rows"]
        self._totals["blood_draws"] += counts["blood_draws"]
        dates = _date_range(tables[DAILY.name])
        if dates is not None:
            self._dates.append(dates)
        return {
            "dir": where,
            "first_user": users[0],
            "last_user": users[-1],
            "users": len(users),
            "user_days": counts["user_days"],
            "files": files,
            "content_hash": shard_hash(tables),
        }

    def _finish(self) -> None:
        new = self._target()
        if self.reference is None:
            raise WearbenchError(f"{self.path}: no reference table; pass reference= or set writer.reference")
        if not self._shards:
            raise WearbenchError(f"{self.path}: no users added; a cohort needs at least one user")
        reference = frame_to_arrow(self.reference, REFERENCE)
        report = inspect_tables({REFERENCE.name: reference}, self.truth).report
        if report.errors:
            raise CohortValidationError(f"{self.path} (not written)", [p.message for p in report.errors])
        payloads = [(REFERENCE.filename, _parquet_bytes(reference))]
        if self.truth is not None:
            payloads.append((TRUTH_FILE, _json_text(self.truth, TRUTH_FILE).encode("utf-8")))
        for name, data in payloads:
            (new / name).write_bytes(data)
        manifest = self._manifest(reference, {n: hashlib.sha256(d).hexdigest() for n, d in payloads})
        (new / MANIFEST).write_text(_json_text(manifest, MANIFEST), encoding="utf-8")

    def _manifest(self, reference: pa.Table, files: dict[str, str]) -> dict[str, Any]:
        source_text = _json_text(self.source, "source")
        per_user = np.concatenate(self._days) if self._days else np.array([], dtype=np.int64)
        counts = {
            "users": int(per_user.size),
            "user_days": int(per_user.sum()),
            "days_per_user": {
                "min": int(per_user.min()) if per_user.size else None,
                "median": float(np.median(per_user)) if per_user.size else None,
                "max": int(per_user.max()) if per_user.size else None,
            },
            **self._totals,
            "reference_rows": int(reference.num_rows),
        }
        dates = (
            {"first": min(d["first"] for d in self._dates), "last": max(d["last"] for d in self._dates)}
            if self._dates
            else None
        )
        shard_hashes = [s["content_hash"] for s in self._shards]
        return {
            "schema_version": SCHEMA_VERSION,
            "layout": SHARDED,
            "source": json.loads(source_text),
            "counts": counts,
            "date_range": dates,
            "files": files,
            "content_hash": sharded_content_hash(global_hash(reference, self.truth), shard_hashes),
            "shards": self._shards,
            "wearbench_version": __version__,
        }


def _days_per_user(daily: pa.Table) -> np.ndarray:
    if daily.num_rows == 0:
        return np.array([], dtype=np.int64)
    users = daily.column("user_id").to_pandas()
    return np.asarray(users.value_counts(sort=False).to_numpy(), dtype=np.int64)


def split_users(cohort: Cohort, shard_users: int) -> Iterator[Cohort]:
    """Parts of ``cohort`` with ``shard_users`` users each (sorted user order; reference kept).

    Raises:
        WearbenchError: If ``shard_users`` < 1.
    """
    if isinstance(shard_users, bool) or not isinstance(shard_users, int) or shard_users < 1:
        raise WearbenchError(f"shard_users must be an integer >= 1, got {shard_users!r}")
    ids = {spec.name: getattr(cohort, spec.name)["user_id"].astype(str) for spec in SHARD_TABLES}
    users = sorted(set().union(*(set(v.dropna()) for v in ids.values())))
    shard_of = {user: i // shard_users for i, user in enumerate(users)}
    index = {name: v.map(shard_of).fillna(-1).to_numpy(dtype=np.int64) for name, v in ids.items()}
    for k in range(-(-len(users) // shard_users)):
        frames = {spec.name: getattr(cohort, spec.name)[index[spec.name] == k] for spec in SHARD_TABLES}
        yield Cohort(reference=cohort.reference, source=cohort.source, **frames)


def save_sharded(cohort: Cohort, path: str | os.PathLike[str], shard_users: int) -> Path:
    """Write an in-memory cohort as a sharded folder of ``shard_users`` users per shard.

    Raises:
        CohortValidationError: If the cohort has errors; nothing is written.
        WearbenchError: As :func:`~wearbench.cohort.save_cohort`, or if ``shard_users`` < 1.
    """
    out = Path(path)
    report = inspect_tables(cohort_tables(cohort), cohort.truth).report
    if report.errors:
        raise CohortValidationError(f"{out} (not written)", [p.message for p in report.errors])
    parts = split_users(cohort, shard_users)
    with ShardedCohortWriter(
        path, source=cohort.source or {}, reference=cohort.reference, truth=cohort.truth
    ) as w:
        for part in parts:
            w.add(part)
    return Path(path)
