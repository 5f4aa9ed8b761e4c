"""Reading sharded cohort folders: per-shard validation and the streaming :class:`CohortShards`."""

from __future__ import annotations

import bisect
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from wearbench._errors import CohortValidationError, WearbenchError
from wearbench.cohort._checks import check_tables
from wearbench.cohort._cohort import Cohort, empty_tables
from wearbench.cohort._io import read_manifest
from wearbench.cohort._problems import Findings, Problem
from wearbench.cohort._schema import SCHEMA_VERSION
from wearbench.cohort._shards import SHARD_TABLES, SHARDED, global_hash, shard_hash, sharded_content_hash
from wearbench.cohort._tables import DEMOGRAPHICS, REFERENCE, TABLES, arrow_to_frame
from wearbench.cohort._validate import (
    MANIFEST,
    TRUTH_FILE,
    Inspection,
    check_hash,
    frames_of,
    read_parquet,
    read_truth,
    repaired_frames,
)


@dataclass(frozen=True)
class _Shard:
    """One shard as the manifest states it: folder (``"."`` = the top) and file → SHA-256."""

    dir: str
    files: Mapping[str, str]
    content_hash: str | None

    def rel(self, filename: str) -> str:
        return filename if self.dir == "." else f"{self.dir}/{filename}"


def _shards(manifest: Mapping[str, Any], found: Findings) -> list[_Shard]:
    """The manifest's shard list (one ``"."`` shard for a single-file folder)."""
    if manifest.get("layout") != SHARDED:
        files = manifest.get("files")
        return [_Shard(".", dict(files) if isinstance(files, dict) else {}, None)]
    entries = manifest.get("shards")
    if not isinstance(entries, list) or not entries:
        found.error("bad_manifest", MANIFEST, "field 'shards' must be a non-empty list; re-save the cohort")
        return []
    out = []
    for i, e in enumerate(entries):
        if not (isinstance(e, dict) and isinstance(e.get("dir"), str) and isinstance(e.get("files"), dict)):
            found.error("bad_manifest", MANIFEST, f"shards[{i}] needs 'dir' and 'files'; re-save the cohort")
            continue
        out.append(_Shard(e["dir"], dict(e["files"]), e.get("content_hash")))
    return out


def _inspect_shard(root: Path, shard: _Shard, found: Findings) -> tuple[Inspection, dict[str, pa.Table]]:
    """Read and check one shard's daily, demographics and blood files (SHA-256 against the manifest)."""
    local = Findings()
    labels = {spec.name: shard.rel(spec.filename) for spec in SHARD_TABLES}
    tables = {
        spec.name: read_parquet(root, labels[spec.name], local, shard.files.get(spec.filename))
        for spec in SHARD_TABLES
    }
    read = {k: v for k, v in tables.items() if v is not None}
    frames = frames_of(read, labels, local)
    check_tables(frames, labels, local, file_order=True)
    found.extend(local)
    return Inspection(local.report(str(root)), frames, local.masks), read


def _inspect_reference(
    root: Path, files: Mapping[str, Any], found: Findings
) -> tuple[Inspection, pa.Table | None]:
    local = Findings()
    table = read_parquet(root, REFERENCE.filename, local, files.get(REFERENCE.filename))
    read = {REFERENCE.name: table} if table is not None else {}
    frames = frames_of(read, {REFERENCE.name: REFERENCE.filename}, local)
    check_tables(frames, {REFERENCE.name: REFERENCE.filename}, local, file_order=True)
    found.extend(local)
    return Inspection(local.report(str(root)), frames, local.masks), table


def inspect_sharded(
    path: Path, manifest: dict[str, Any], found: Findings, *, keep_frames: bool
) -> Inspection:
    """Validate a sharded folder shard by shard (messages name the shard files).

    Checks every file's SHA-256 against the manifest, each shard's content hash, shard user
    order and the folder's content hash. With ``keep_frames`` the returned frames are the
    whole cohort, repaired and sorted (no masks left to apply).
    """
    ref_insp, reference = _inspect_reference(path, manifest.get("files") or {}, found)
    truth_ok, truth = read_truth(path, found)
    kept: dict[str, list[pd.DataFrame]] = {spec.name: [] for spec in SHARD_TABLES}
    hashes: list[str] = []
    last: str | None = None
    for shard in _shards(manifest, found):
        insp, tables = _inspect_shard(path, shard, found)
        if len(tables) == len(SHARD_TABLES):
            hashes.append(shard_hash(tables))
            if shard.content_hash is not None and shard.content_hash != hashes[-1]:
                found.error(
                    "content_hash", shard.dir, f"content_hash does not match {MANIFEST}; re-save the cohort"
                )
        last = _check_order(insp, shard, last, found)
        if keep_frames and not insp.report.errors:
            for name, frame in repaired_frames(insp).items():
                kept[name].append(frame)
    if truth_ok and reference is not None and len(hashes) == len(manifest.get("shards") or ()):
        check_hash(manifest, sharded_content_hash(global_hash(reference, truth), hashes), found)
    frames: dict[str, pd.DataFrame] = {}
    if keep_frames and not found.errors:
        frames = {name: pd.concat(parts, ignore_index=True) for name, parts in kept.items()}
        frames.update(repaired_frames(ref_insp))
    return Inspection(found.report(str(path)), frames, {}, manifest, truth)


def _check_order(insp: Inspection, shard: _Shard, last: str | None, found: Findings) -> str | None:
    demo = insp.frames.get(DEMOGRAPHICS.name)
    if demo is None or "user_id" not in demo or demo.empty:
        return last
    users = demo["user_id"].dropna().astype(str)
    first = users.min()
    if last is not None and first <= last:
        found.error(
            "shard_order",
            shard.rel(DEMOGRAPHICS.filename),
            f"user {first!r} is not after {last!r} of the previous shard; shards must hold whole users "
            "in user order: re-save the cohort",
        )
    return str(users.max())


@dataclass(frozen=True, eq=False)
class CohortShards:
    """A handle on a cohort folder that reads users shard by shard (small and picklable).

    Attributes:
        path: The cohort folder.
        source: Provenance from the manifest.
        content_hash: The manifest's content hash (sharded rule for sharded folders).
        reference: The (global) reference-percentile table, validated and repaired.
        shard_users: Each shard's user ids (sorted), in shard order.
        sharded: Whether the folder is sharded (``False``: a single-file folder seen as one shard).
    """

    path: Path
    source: Mapping[str, Any]
    content_hash: str
    reference: pd.DataFrame
    shard_users: tuple[tuple[str, ...], ...]
    sharded: bool
    _shards: tuple[_Shard, ...]
    _truth_sha: str | None

    @property
    def users(self) -> tuple[str, ...]:
        """Every user id, sorted."""
        return tuple(u for shard in self.shard_users for u in shard)

    def demographics(self) -> pd.DataFrame:
        """All users' demographics (read from each shard; SHA-256 checked)."""
        return pd.concat([_demographics(self.path, shard) for shard in self._shards], ignore_index=True)

    def truth(self) -> Any:
        """The ground truth (``None`` if the folder has none); SHA-256 checked."""
        if not (self.path / TRUTH_FILE).exists():
            return None
        found = Findings()
        ok, truth = read_truth(self.path, found, self._truth_sha)
        _raise(self.path, found)
        return truth if ok else None

    def load_users(self, users: Sequence[str]) -> Cohort:
        """A validated, repaired cohort of exactly ``users``, reading only the shards holding them.

        The cohort has those users' daily, demographics and blood rows, the reference table,
        the source, ``truth=None``, and in ``repairs`` the repairs concerning those users.

        Raises:
            WearbenchError: If a user is not in the cohort.
            CohortValidationError: If a shard read has errors (a file whose SHA-256 does not
                match the manifest is named).
        """
        wanted = sorted(set(map(str, users)))
        by_shard: dict[int, list[str]] = {}
        firsts = [s[0] if s else "" for s in self.shard_users]
        members: dict[int, frozenset[str]] = {}
        for user in wanted:
            k = bisect.bisect_right(firsts, user) - 1
            if k >= 0 and k not in members:
                members[k] = frozenset(self.shard_users[k])
            if k < 0 or user not in members[k]:
                raise WearbenchError(f"{self.path}: user {user!r} is not in the cohort")
            by_shard.setdefault(k, []).append(user)
        parts: dict[str, list[pd.DataFrame]] = {spec.name: [] for spec in SHARD_TABLES}
        repairs: list[Problem] = []
        for k, chosen in by_shard.items():
            found = Findings()
            insp, _ = _inspect_shard(self.path, self._shards[k], found)
            _raise(self.path, found)
            keep = set(chosen)
            for name, frame in repaired_frames(insp).items():
                parts[name].append(frame[frame["user_id"].isin(keep).to_numpy()])
            repairs += [p for p in insp.report.repairs if p.user_id is None or p.user_id in keep]
        frames = {
            spec.name: pd.concat(parts[spec.name], ignore_index=True)
            if parts[spec.name]
            else _empty(spec.name)
            for spec in SHARD_TABLES
        }
        return Cohort(
            reference=self.reference.copy(),
            source=dict(self.source),
            truth=None,
            repairs=tuple(p.message for p in repairs),
            **frames,
        )


def _empty(name: str) -> pd.DataFrame:
    return dict(zip([s.name for s in TABLES], empty_tables(), strict=True))[name]


def _demographics(root: Path, shard: _Shard) -> pd.DataFrame:
    found = Findings()
    label = shard.rel(DEMOGRAPHICS.filename)
    table = read_parquet(root, label, found, shard.files.get(DEMOGRAPHICS.filename))
    _raise(root, found)
    if table is None:  # read_parquet recorded why; _raise has raised
        return _empty(DEMOGRAPHICS.name)
    frame, problems = arrow_to_frame(table, DEMOGRAPHICS, label)
    _raise(root, problems)
    return frame


def _raise(path: Path, found: Findings) -> None:
    if found.errors:
        raise CohortValidationError(str(path), [p.message for p in found.errors])


def open_cohort(path: str | os.PathLike[str]) -> CohortShards:
    """Open a cohort folder for reading users shard by shard; loads no user data.

    Reads the manifest, the reference table and each shard's demographics (for the user
    ids). A single-file folder opens as one shard holding every user.

    Raises:
        WearbenchError: If there is no manifest or its schema version differs.
        CohortValidationError: If the manifest, the reference table or a demographics file
            has errors (a file whose SHA-256 does not match the manifest is named).
    """
    root = Path(path)
    manifest = read_manifest(root)
    if manifest.get("schema_version") != SCHEMA_VERSION:
        raise WearbenchError(
            f"{root / MANIFEST}: schema_version {manifest.get('schema_version')!r}, expected {SCHEMA_VERSION}"
        )
    found = Findings()
    shards = _shards(manifest, found)
    files = manifest.get("files") or {}
    ref_insp, _ = _inspect_reference(root, files, found)
    _raise(root, found)
    users = tuple(tuple(sorted(_demographics(root, shard)["user_id"].astype(str))) for shard in shards)
    return CohortShards(
        path=root,
        source=dict(manifest.get("source") or {}),
        content_hash=str(manifest.get("content_hash")),
        reference=repaired_frames(ref_insp)[REFERENCE.name],
        shard_users=users,
        sharded=manifest.get("layout") == SHARDED,
        _shards=tuple(shards),
        _truth_sha=files.get(TRUTH_FILE),
    )
