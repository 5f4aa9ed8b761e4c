"""Reading one .FIT file with ``fitdecode`` (MIT) into plain message dictionaries.

``fitdecode`` is imported on first use only. Compressed ``timestamp_16`` fields (monitoring
messages) are resolved against the last full timestamp, as the FIT protocol specifies. Every
decoding failure (truncated file, bad header, CRC mismatch) becomes one
:class:`~wearbench._errors.WearbenchError` line naming the file and byte offset.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

from wearbench._errors import WearbenchError

#: Messages kept (others, e.g. per-second ``record``, are only counted).
KEEP = frozenset(
    {"file_id", "session", "activity", "monitoring_info", "monitoring", "monitoring_hr_data", "weight_scale"}
)
_FIT_EPOCH = datetime(1989, 12, 31, tzinfo=UTC)


@dataclass
class FitMessages:
    """Decoded content of one FIT file.

    Attributes:
        path: The file.
        file_type: ``file_id.type`` (``activity``, ``monitoring_b``, ``weight`` …) or ``unknown``.
        counts: Messages per name (all of them, kept or not).
        messages: Kept messages per name, each ``{field: value}`` plus ``_timestamp`` (UTC,
            resolved from ``timestamp_16`` where needed) and ``_raw_cycles`` for monitoring.
    """

    path: Path
    file_type: str = "unknown"
    counts: dict[str, int] = field(default_factory=dict)
    messages: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def _library() -> ModuleType:
    try:
        return importlib.import_module("fitdecode")
    except ImportError:
        raise WearbenchError(
            "the fit loader needs the fitdecode package: pip install 'fitdecode>=0.10'"
        ) from None


def _resolve_ts16(last: datetime | None, ts16: int) -> datetime | None:
    if last is None:
        return None
    seconds = int((last - _FIT_EPOCH).total_seconds())
    return last + timedelta(seconds=(ts16 - (seconds & 0xFFFF)) & 0xFFFF)


def _values(frame: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in frame.fields:
        if f.value is not None and f.name not in out:
            out[f.name] = f.value
    if frame.name == "monitoring" and frame.has_field("cycles"):
        out["_raw_cycles"] = frame.get_field("cycles").raw_value
    return out


def _decode(path: Path, fitdecode: ModuleType, result: FitMessages) -> None:
    last: datetime | None = None
    with fitdecode.FitReader(str(path)) as reader:
        for frame in reader:
            if not isinstance(frame, fitdecode.FitDataMessage):
                continue
            result.counts[frame.name] = result.counts.get(frame.name, 0) + 1
            stamp = frame.get_value("timestamp", fallback=None)
            if isinstance(stamp, datetime):
                last = stamp
            if frame.name not in KEEP:
                continue
            values = _values(frame)
            if not isinstance(stamp, datetime) and isinstance(values.get("timestamp_16"), int):
                stamp = _resolve_ts16(last, values["timestamp_16"])
                last = stamp or last
            values["_timestamp"] = stamp
            result.messages.setdefault(frame.name, []).append(values)


def read_fit(path: Path) -> FitMessages:
    """Decode ``path``.

    Raises:
        WearbenchError: Empty, truncated or corrupt file, or no ``file_id`` message.
    """
    fitdecode = _library()
    if path.stat().st_size == 0:
        raise WearbenchError(f"{path}: empty file (0 bytes), not a FIT file")
    result = FitMessages(path)
    try:
        _decode(path, fitdecode, result)
    except fitdecode.FitError as exc:
        raise WearbenchError(f"{path}: not a complete FIT file ({type(exc).__name__}: {exc})") from None
    except (ValueError, KeyError, IndexError, OSError) as exc:
        raise WearbenchError(f"{path}: FIT file could not be decoded ({type(exc).__name__}: {exc})") from None
    ids = result.messages.get("file_id", [])
    if not ids:
        raise WearbenchError(f"{path}: no file_id message, not a FIT file wearbench can read")
    result.file_type = str(ids[0].get("type", "unknown"))
    return result
