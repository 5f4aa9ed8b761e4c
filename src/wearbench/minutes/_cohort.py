"""Minute cohorts: dense ``(n_days, 19, 1440)`` float32 days per user, stored as Parquet per user.

Folder layout (written by :func:`write_minute_cohort`)::

    DIR/manifest.json            # kind, channels, users, per-file SHA-256, content hash, source
    DIR/users/<user_id>.parquet  # one file per user

Each user file is *wide*: one row per date, a ``date`` column (``date32``), one column per
channel named as :data:`~wearbench.minutes.CHANNEL_NAMES` holding that day's 1440 float32
minutes (``fixed_size_list<float32>[1440]``), and ``non_wear`` (``fixed_size_list<bool>[1440]``).
Why wide: a column's values are one contiguous float32 buffer, so reading a user is 19
zero-copy views stacked once (no pivot or sort, as a long ``(date, channel)`` layout would
need), a reader may load only some channels, rows are grouped by 32 days (Parquet row groups,
so a user can be read a month at a time), and zstd compresses each channel on its own
(the sparse binary channels shrink to almost nothing). NaN is stored as a value, not a null,
so NaN positions and bits round-trip exactly.

Files are written with fixed writer settings and no timestamps, so the same cohort always
gives the same bytes under one pyarrow version.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from wearbench._errors import WearbenchError
from wearbench._folder import replaced_folder
from wearbench._jsonfile import read_json_object
from wearbench._version import __version__
from wearbench.minutes._channels import CHANNEL_NAMES, MINUTES_PER_DAY, N_CHANNELS

F32Array = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]

#: The manifest file of a minute-cohort folder.
MINUTE_MANIFEST = "manifest.json"
#: Folder of the per-user Parquet files.
USERS_DIR = "users"
_KIND = "wearbench-minute-cohort"
_FORMAT_VERSION = 1
_MAGIC = b"wearbench-minute-content/1\n"
#: Days per Parquet row group of a user file: a reader can decode a user a month at a time
#: (:func:`iter_minute_user_chunks`). Files written earlier with one row group read the same.
DAYS_PER_ROW_GROUP = 32
_PARQUET_OPTIONS: dict[str, Any] = {
    "version": "2.6",
    "compression": "zstd",
    "compression_level": 3,
    "use_dictionary": False,
    "write_statistics": False,
    "store_schema": True,
    "data_page_version": "1.0",
    "row_group_size": DAYS_PER_ROW_GROUP,
}


@dataclass(frozen=True)
class MinuteUser:
    """One user's dense minute days.

    Attributes:
        user_id: The user's identifier (used as the file name; no path separators).
        dates: ``datetime64[D]`` days, shape ``(n_days,)``, strictly increasing.
        values: ``(n_days, 19, 1440)`` float32 in the channel order of
            :data:`~wearbench.minutes.CHANNELS`: binary channels 0/1, HR NaN where unobserved.
        non_wear: ``(n_days, 1440)`` bool, True where the watch was not worn.
    """

    user_id: str
    dates: npt.NDArray[np.datetime64]
    values: F32Array
    non_wear: BoolArray

    def __post_init__(self) -> None:
        check_minute_user(self)


@dataclass(frozen=True)
class MinuteCohort:
    """Minute days of several users, plus provenance.

    Attributes:
        users: The users, in the order they are stored.
        source: Plain-JSON provenance (generator name and parameters, daily cohort hash …).
    """

    users: tuple[MinuteUser, ...]
    source: Mapping[str, Any] = field(default_factory=dict)

    @property
    def user_ids(self) -> list[str]:
        """The users' identifiers, in order."""
        return [u.user_id for u in self.users]

    def user(self, user_id: str) -> MinuteUser:
        """One user by id.

        Raises:
            WearbenchError: If the cohort has no such user.
        """
        for u in self.users:
            if u.user_id == user_id:
                return u
        raise WearbenchError(f"minute cohort: no user {user_id!r} (has {len(self.users)} users)")


def check_minute_user(user: MinuteUser) -> None:
    """Check shapes, dtypes and dates of one user's minute days.

    Raises:
        WearbenchError: Naming the user and what is wrong.
    """
    who = f"minute user {user.user_id!r}"
    _check_id(user.user_id)
    n = user.dates.shape[0] if user.dates.ndim == 1 else -1
    if user.values.shape != (n, N_CHANNELS, MINUTES_PER_DAY) or user.values.dtype != np.float32:
        raise WearbenchError(
            f"{who}: values must be float32 (n_days, {N_CHANNELS}, {MINUTES_PER_DAY}) for {n} dates, "
            f"got {user.values.dtype} {user.values.shape}"
        )
    if user.non_wear.shape != (n, MINUTES_PER_DAY) or user.non_wear.dtype != np.bool_:
        raise WearbenchError(
            f"{who}: non_wear must be bool ({n}, {MINUTES_PER_DAY}), got {user.non_wear.shape}"
        )
    days = user.dates.astype("datetime64[D]").astype(np.int64)
    if n > 1 and np.any(np.diff(days) <= 0):
        raise WearbenchError(f"{who}: dates are not strictly increasing")


def _check_id(user_id: str) -> None:
    if not user_id or any(c in user_id for c in "/\\\0") or user_id.startswith("."):
        raise WearbenchError(f"minute user {user_id!r}: not usable as a file name")


def user_file(path: str | os.PathLike[str], user_id: str) -> Path:
    """The Parquet file of ``user_id`` in a minute-cohort folder.

    Raises:
        WearbenchError: If ``user_id`` is not usable as a file name.
    """
    _check_id(user_id)
    return Path(path) / USERS_DIR / f"{user_id}.parquet"


def minute_user_bytes(user: MinuteUser) -> bytes:
    """One user's Parquet file as bytes (deterministic)."""
    cols: dict[str, pa.Array] = {"date": pa.array(user.dates.astype("datetime64[D]"), type=pa.date32())}
    for c, name in enumerate(CHANNEL_NAMES):
        data = pa.array(np.ascontiguousarray(user.values[:, c, :]).reshape(-1), type=pa.float32())
        cols[name] = pa.FixedSizeListArray.from_arrays(data, MINUTES_PER_DAY)
    wear = pa.array(user.non_wear.reshape(-1), type=pa.bool_())
    cols["non_wear"] = pa.FixedSizeListArray.from_arrays(wear, MINUTES_PER_DAY)
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table(cols), sink, **_PARQUET_OPTIONS)
    return bytes(sink.getvalue().to_pybytes())


def _user_digest(user: MinuteUser) -> bytes:
    """Canonical bytes of one user's content (one quiet NaN, no ``-0.0``), length-prefixed."""
    values = np.where(np.isnan(user.values), np.float32(np.nan), user.values) + np.float32(0.0)
    parts = [
        user.user_id.encode("utf-8"),
        user.dates.astype("datetime64[D]").astype("<i8").tobytes(),
        values.astype("<f4").tobytes(),
        user.non_wear.astype(np.uint8).tobytes(),
    ]
    return b"".join(len(p).to_bytes(8, "little") + p for p in parts)


def write_minute_cohort(
    users: Iterable[MinuteUser], path: str | os.PathLike[str], source: Mapping[str, Any] | None = None
) -> Path:
    """Write users (streamed, one in memory at a time) and the manifest into a folder.

    Args:
        users: The users, in storage order (ids unique).
        path: Folder to write; an existing minute-cohort folder is replaced as a whole only
            once the new one is complete.
        source: Plain-JSON provenance stored in the manifest.

    Returns:
        The folder path.

    Raises:
        WearbenchError: If ``path`` is a file or a foreign non-empty folder, a user id repeats,
            or ``source`` is not JSON-serialisable.
    """
    out = Path(path)
    content = hashlib.sha256(_MAGIC)
    files: dict[str, str] = {}
    entries: list[dict[str, Any]] = []
    with replaced_folder(out, "minute cohort", MINUTE_MANIFEST) as new:
        (new / USERS_DIR).mkdir()
        for user in users:
            name = f"{USERS_DIR}/{user.user_id}.parquet"
            if name in files:
                raise WearbenchError(f"{out}: user {user.user_id!r} appears twice")
            data = minute_user_bytes(user)
            (new / name).write_bytes(data)
            files[name] = hashlib.sha256(data).hexdigest()
            content.update(_user_digest(user))
            entries.append(_entry(user))
        manifest = {
            "kind": _KIND,
            "format_version": _FORMAT_VERSION,
            "channels": list(CHANNEL_NAMES),
            "minutes_per_day": MINUTES_PER_DAY,
            "users": entries,
            "files": files,
            "content_hash": content.hexdigest(),
            "source": dict(source or {}),
            "wearbench_version": __version__,
        }
        (new / MINUTE_MANIFEST).write_text(_json_text(manifest, out), encoding="utf-8")
    return out


def save_minute_cohort(cohort: MinuteCohort, path: str | os.PathLike[str]) -> Path:
    """Write a :class:`MinuteCohort` (see :func:`write_minute_cohort`)."""
    return write_minute_cohort(cohort.users, path, cohort.source)


def _entry(user: MinuteUser) -> dict[str, Any]:
    dates = user.dates.astype("datetime64[D]")
    first, last = (str(dates[0]), str(dates[-1])) if dates.size else (None, None)
    return {"user_id": user.user_id, "days": int(dates.size), "first": first, "last": last}


def _json_text(obj: Any, where: Path) -> str:
    try:
        return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    except (TypeError, ValueError) as e:
        raise WearbenchError(f"{where}: manifest is not plain JSON ({e})") from e


def read_minute_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a minute-cohort folder's ``manifest.json``.

    Raises:
        WearbenchError: If it is missing, unreadable or not a minute-cohort manifest.
    """
    file = Path(path) / MINUTE_MANIFEST
    manifest = read_json_object(file, missing="no minute-cohort manifest (write it with write_minute_cohort)")
    if manifest.get("kind") != _KIND:
        raise WearbenchError(f"{file}: not a minute-cohort manifest (kind {manifest.get('kind')!r})")
    if list(manifest.get("channels", [])) != list(CHANNEL_NAMES):
        raise WearbenchError(f"{file}: channels differ from the 19 OpenMHC channels in the seed's order")
    return manifest


def read_minute_user(path: str | os.PathLike[str], user_id: str, *, verify: bool = False) -> MinuteUser:
    """Read one user's minute days from a minute-cohort folder.

    Decodes one row group (32 days) at a time into the dense arrays, so the peak is the dense
    ``(n_days, 19, 1440)`` float32 array plus one row group, not a second copy of the user.

    Args:
        path: Folder written by :func:`write_minute_cohort`.
        user_id: The user to read.
        verify: Also check the file's SHA-256 against the manifest.

    Raises:
        WearbenchError: Naming the file and user, if the file is missing, unreadable, has the
            wrong columns or shapes, or (``verify``) its hash differs.
    """
    pf, file = _open_user(path, user_id, verify)
    n = pf.metadata.num_rows
    dates = np.empty(n, dtype="datetime64[D]")
    values = np.empty((n, N_CHANNELS, MINUTES_PER_DAY), dtype=np.float32)
    non_wear = np.empty((n, MINUTES_PER_DAY), dtype=np.bool_)
    pos = 0
    for table in _day_tables(pf, file, user_id, max(n, 1)):
        k = table.num_rows
        if pos + k > n:
            raise WearbenchError(f"{file}: user {user_id!r} has more rows than its metadata says ({n})")
        dates[pos : pos + k], non_wear[pos : pos + k] = _table_dates(table), _non_wear(table, file, user_id)
        for c, name in enumerate(CHANNEL_NAMES):
            values[pos : pos + k, c, :] = _column_values(table, name, file, user_id)
        pos += k
    try:
        return MinuteUser(user_id, dates[:pos], values[:pos], non_wear[:pos])
    except WearbenchError as e:
        raise WearbenchError(f"{file}: {e}") from e


def iter_minute_user_chunks(
    path: str | os.PathLike[str],
    user_id: str,
    *,
    max_days: int = DAYS_PER_ROW_GROUP,
    verify: bool = False,
) -> Iterator[MinuteUser]:
    """Yield one user's minute days in consecutive chunks of at most ``max_days`` days.

    Only one Parquet row group (32 days in files written by :func:`write_minute_cohort`; a
    whole user in older files) and one chunk are decoded at a time, so per-day work can run
    with a small, fixed memory footprint. Each chunk is a :class:`MinuteUser` with the same
    ``user_id``; chunks never span two row groups. Concatenating the chunks gives
    :func:`read_minute_user`'s result.

    Args:
        path: Folder written by :func:`write_minute_cohort`.
        user_id: The user to read.
        max_days: Most days per chunk (>= 1).
        verify: Also check the file's SHA-256 against the manifest (before the first chunk).

    Raises:
        WearbenchError: As :func:`read_minute_user`, also for dates that do not increase across
            chunks, or ``max_days < 1``.
    """
    if max_days < 1:
        raise WearbenchError(f"minute user {user_id!r}: max_days must be >= 1, got {max_days}")
    pf, file = _open_user(path, user_id, verify)
    last: np.datetime64 | None = None
    for table in _day_tables(pf, file, user_id, max_days):
        try:
            chunk = _user_from_table(table, user_id, file)
        except WearbenchError as e:
            raise WearbenchError(f"{file}: {e}") from e
        if last is not None and chunk.dates[0] <= last:
            raise WearbenchError(f"{file}: minute user {user_id!r}: dates are not strictly increasing")
        last = chunk.dates[-1]
        yield chunk


def _open_user(path: str | os.PathLike[str], user_id: str, verify: bool) -> tuple[pq.ParquetFile, Path]:
    """The user's Parquet file opened (footer read, nothing decoded), after the checks."""
    file = user_file(path, user_id)
    if not file.is_file():
        raise WearbenchError(f"{file}: no minute data for user {user_id!r}")
    try:
        data = file.read_bytes()
        pf = pq.ParquetFile(pa.BufferReader(data))
    except (OSError, pa.ArrowException) as e:
        raise WearbenchError(f"{file}: cannot read minute data of user {user_id!r} ({e})") from e
    if verify:
        want = read_minute_manifest(path).get("files", {}).get(f"{USERS_DIR}/{user_id}.parquet")
        if want != hashlib.sha256(data).hexdigest():
            raise WearbenchError(f"{file}: SHA-256 differs from the manifest (user {user_id!r})")
    missing = [c for c in ("date", *CHANNEL_NAMES, "non_wear") if c not in pf.schema_arrow.names]
    if missing:
        raise WearbenchError(f"{file}: user {user_id!r} has no column {missing[0]!r}")
    return pf, file


def _day_tables(pf: pq.ParquetFile, file: Path, user_id: str, max_days: int) -> Iterator[pa.Table]:
    """The file's rows, one row group at a time, sliced into tables of at most ``max_days`` rows."""
    for i in range(pf.num_row_groups):
        try:
            table = pf.read_row_group(i, use_threads=False)
        except (OSError, pa.ArrowException) as e:
            raise WearbenchError(f"{file}: cannot read minute data of user {user_id!r} ({e})") from e
        for start in range(0, table.num_rows, max_days):
            yield table.slice(start, max_days)


def _column_values(table: pa.Table, name: str, file: Path, user_id: str) -> np.ndarray:
    if name not in table.column_names:
        raise WearbenchError(f"{file}: user {user_id!r} has no column {name!r}")
    col = table.column(name).combine_chunks()
    if (
        not (pa.types.is_fixed_size_list(col.type) and col.type.list_size == MINUTES_PER_DAY)
        or col.null_count
    ):
        raise WearbenchError(
            f"{file}: user {user_id!r} column {name!r} is not {MINUTES_PER_DAY} minutes a day"
        )
    flat = col.flatten()  # respects a slice's offset (``.values`` would not)
    return np.asarray(flat.to_numpy(zero_copy_only=False)).reshape(-1, MINUTES_PER_DAY)


def _table_dates(table: pa.Table) -> npt.NDArray[np.datetime64]:
    return np.asarray(table.column("date").to_numpy(), dtype="datetime64[D]")


def _non_wear(table: pa.Table, file: Path, user_id: str) -> BoolArray:
    return _column_values(table, "non_wear", file, user_id).astype(np.bool_)


def _user_from_table(table: pa.Table, user_id: str, file: Path) -> MinuteUser:
    if "date" not in table.column_names:
        raise WearbenchError(f"{file}: user {user_id!r} has no column 'date'")
    dates = _table_dates(table)
    values = np.empty((dates.size, N_CHANNELS, MINUTES_PER_DAY), dtype=np.float32)
    for c, name in enumerate(CHANNEL_NAMES):
        values[:, c, :] = _column_values(table, name, file, user_id)
    return MinuteUser(user_id, dates, values, _non_wear(table, file, user_id))


def minute_user_ids(path: str | os.PathLike[str]) -> list[str]:
    """The user ids of a minute-cohort folder, in storage order (from the manifest)."""
    manifest = read_minute_manifest(path)
    return [str(e["user_id"]) for e in manifest.get("users", [])]


def iter_minute_users(path: str | os.PathLike[str], *, verify: bool = False) -> Iterator[MinuteUser]:
    """Yield the users of a minute-cohort folder one at a time (one user in memory)."""
    for user_id in minute_user_ids(path):
        yield read_minute_user(path, user_id, verify=verify)


def load_minute_cohort(path: str | os.PathLike[str], *, verify: bool = False) -> MinuteCohort:
    """Read a whole minute-cohort folder into memory."""
    manifest = read_minute_manifest(path)
    users = tuple(iter_minute_users(path, verify=verify))
    return MinuteCohort(users, dict(manifest.get("source") or {}))
