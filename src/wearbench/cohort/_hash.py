"""Content hash of a cohort: independent of Parquet bytes, row order and library versions.

The hash is SHA-256 over a self-describing byte stream: for each table (daily,
demographics, blood, reference) its name, row and column counts, then per column its
name, a canonical type name and its values — float64 little-endian with every NaN/null
as the one quiet NaN and ``-0.0`` as ``0.0``; integers and dates as little-endian integers
with a validity byte per row; text as UTF-8 with lengths — after sorting rows into
canonical order. Ground truth follows as canonical JSON. Every variable-length part is
length-prefixed, so no two different contents share a stream.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from wearbench.cohort._tables import TABLES, canonical_table, frame_to_arrow, is_string_type

if TYPE_CHECKING:
    from wearbench.cohort._cohort import Cohort

_MAGIC = b"wearbench-cohort-content/1\n"


def content_hash(cohort: Cohort) -> str:
    """SHA-256 hex digest of a cohort's table contents and ground truth.

    Same data (in any row or column order) → same hash; any changed value, column name or
    column type → different hash. ``source`` and ``repairs`` are provenance and are not
    hashed.

    Raises:
        WearbenchError: If a table has duplicate column names.
    """
    return hash_tables(cohort_tables(cohort), cohort.truth)


def cohort_tables(cohort: Cohort) -> dict[str, pa.Table]:
    """The cohort's four tables as canonical Arrow tables, keyed by table name."""
    return {spec.name: frame_to_arrow(getattr(cohort, spec.name), spec) for spec in TABLES}


def hash_tables(tables: Mapping[str, pa.Table | None], truth: Any) -> str:
    """Content hash of Arrow tables (as read from disk or converted) plus ground truth."""
    h = hashlib.sha256(_MAGIC)
    for spec in TABLES:
        table = tables.get(spec.name)
        _put(h, spec.name.encode())
        if table is None:
            _put(h, b"<absent>")
            continue
        table = canonical_table(table, spec)
        _put(h, np.array([table.num_rows, table.num_columns], dtype="<i8").tobytes())
        for name, col in zip(table.column_names, table.columns, strict=True):
            _put(h, name.encode())
            _put(h, _type_name(col.type).encode())
            _put(h, _encode(col))
    _put(h, canonical_json(truth).encode())
    return h.hexdigest()


def _put(h: Any, data: bytes) -> None:
    h.update(len(data).to_bytes(8, "little"))
    h.update(data)


def _type_name(t: pa.DataType) -> str:
    if is_string_type(t):
        return "string"
    if pa.types.is_dictionary(t):
        return f"dictionary<{_type_name(t.value_type)}>"
    return str(t)


def _encode(col: pa.ChunkedArray) -> bytes:
    t = col.type
    if pa.types.is_dictionary(t):
        col = col.cast(t.value_type)
        t = col.type
    if pa.types.is_floating(t):
        values = np.asarray(col.cast(pa.float64()).to_numpy(), dtype=np.float64)
        values = np.where(np.isnan(values), np.nan, values) + 0.0  # one NaN, no -0.0
        return values.astype("<f8").tobytes()
    if is_string_type(t):
        return _encode_text(col)
    valid = np.asarray(pc.is_valid(col).to_numpy(zero_copy_only=False), dtype=np.uint8).tobytes()
    if pa.types.is_integer(t) or pa.types.is_boolean(t):
        ints = col.cast(pa.int64()).fill_null(0).to_numpy()
        return valid + np.asarray(ints, dtype="<i8").tobytes()
    if pa.types.is_date(t) or pa.types.is_timestamp(t):
        raw = col.cast(pa.date32()).cast(pa.int32()) if pa.types.is_date(t) else col
        ints = raw.cast(pa.int64()).fill_null(0).to_numpy()
        return valid + np.asarray(ints, dtype="<i8").tobytes()
    return canonical_json(col.to_pylist()).encode()


def _encode_text(col: pa.ChunkedArray) -> bytes:
    """Text as a dictionary (lengths + UTF-8) and per-row indices (-1 = null)."""
    codes = pc.dictionary_encode(col.cast(pa.string()).combine_chunks())
    words = codes.dictionary.to_pylist()
    parts = [len(words).to_bytes(8, "little")]
    for w in words:
        b = w.encode("utf-8")
        parts += [len(b).to_bytes(8, "little"), b]
    idx = codes.indices.cast(pa.int64()).fill_null(-1).to_numpy()
    parts.append(np.asarray(idx, dtype="<i8").tobytes())
    return b"".join(parts)


def json_default(obj: Any) -> Any:
    """``json.dumps`` fallback for numpy / pandas / date values.

    Raises:
        TypeError: For values with no JSON form.
    """
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, _dt.date | _dt.datetime):
        return obj.isoformat()
    if isinstance(obj, Mapping):
        return dict(obj)
    if isinstance(obj, set | frozenset):
        return sorted(obj)
    if hasattr(obj, "isoformat"):
        return obj.isoformat()
    raise TypeError(f"{type(obj).__name__} value {obj!r} is not JSON-serialisable")


def canonical_json(obj: Any) -> str:
    """Compact, key-sorted, ASCII JSON (``NaN`` allowed) used inside hashes."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=json_default)
