"""Streaming access to ``export.xml`` (plain or inside ``export.zip``) and Apple's timestamps.

The file is fed in 1 MiB chunks to the stdlib expat parser (the same parser
``xml.etree.ElementTree.iterparse`` wraps) with start/end handlers, so no element tree is
built and memory does not grow with the file; the handlers also get the current line number
for error messages. Malformed or truncated XML raises a one-line :class:`WearbenchError`.
"""

from __future__ import annotations

import datetime as dt
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO
from xml.parsers import expat

from wearbench._errors import WearbenchError

#: Bytes fed to the parser per call.
CHUNK = 1 << 20
#: Bytes of the first call (the prolog and DTD are about 10 kB).
FIRST_CHUNK = 1 << 16
_EPOCH = dt.date(1970, 1, 1).toordinal()
#: Entries per cache before it is emptied (memory stays flat on any export).
_CACHE = 4096
_HOURS: dict[str, int] = {}
_OFFSETS: dict[str, int] = {}
_TIMES: dict[str, tuple[int, int]] = {}

#: ``start(name, attrs, line)`` and ``end(name)`` callbacks.
Handler = tuple[Callable[[str, dict[str, str], int], None], Callable[[str], None]]


def parse_time(text: str) -> tuple[int, int]:
    """Parse Apple's ``"2023-01-01 23:30:00 +0100"``.

    Recent timestamps, date-and-hour parts and offsets are looked up in small caches (an export
    repeats times across record types, has a few distinct hours per day and one or two offsets),
    so a new timestamp costs three slices, three dict look-ups and two ``int`` calls.

    Returns:
        (UTC epoch seconds, UTC offset in seconds) — local wall time is their sum.

    Raises:
        ValueError: If ``text`` is not in that form.
    """
    hit = _TIMES.get(text)  # steps and distance samples share their times
    if hit is not None:
        return hit
    if len(text) != 25 or text[19] != " " or text[20] not in "+-":
        raise ValueError(f"not a 'YYYY-MM-DD hh:mm:ss +hhmm' time: {text!r}")
    hour = _HOURS.get(text[:13])
    if hour is None:
        hour = _hour(text)
    local = hour + int(text[14:16]) * 60 + int(text[17:19])
    offset = _OFFSETS.get(text[20:])
    if offset is None:
        offset = _offset(text)
    if len(_TIMES) >= _CACHE:
        _TIMES.clear()
    out = _TIMES[text] = (local - offset, offset)
    return out


def _hour(text: str) -> int:
    """Seconds from 1970-01-01 to the local date and hour of ``text`` (cached)."""
    day = dt.date.fromisoformat(text[:10]).toordinal() - _EPOCH
    hour = day * 86400 + int(text[11:13]) * 3600
    if len(_HOURS) >= _CACHE:
        _HOURS.clear()
    _HOURS[text[:13]] = hour
    return hour


def _offset(text: str) -> int:
    """UTC offset (s) of ``text`` (cached)."""
    offset = int(text[21:23]) * 3600 + int(text[23:25]) * 60
    if text[20] == "-":
        offset = -offset
    if len(_OFFSETS) >= _CACHE:
        _OFFSETS.clear()
    _OFFSETS[text[20:]] = offset
    return offset


def export_member(names: list[str]) -> str | None:
    """The ``export.xml`` inside a zip listing (``export_cda.xml`` and ``__MACOSX`` excluded)."""
    hits = [n for n in names if (n == "export.xml" or n.endswith("/export.xml")) and "__MACOSX" not in n]
    return min(hits, key=len) if hits else None


@contextmanager
def open_export(path: Path) -> Iterator[tuple[IO[bytes], str]]:
    """Open ``export.xml`` or the ``export.xml`` inside ``export.zip`` as a byte stream.

    Yields:
        (stream, display name used in error messages).

    Raises:
        WearbenchError: If the zip is unreadable or has no ``export.xml``.
    """
    if path.is_dir():
        for candidate in (path / "export.xml", path / "apple_health_export" / "export.xml"):
            if candidate.is_file():
                path = candidate
                break
        else:
            raise WearbenchError(f"{path}: folder has no export.xml")
    is_zip = zipfile.is_zipfile(path)
    if not is_zip and path.suffix.lower() == ".zip":
        raise WearbenchError(f"{path.name}: not a readable zip file (truncated download?)")
    if is_zip:
        try:
            with zipfile.ZipFile(path) as zf:
                member = export_member(zf.namelist())
                if member is None:
                    raise WearbenchError(f"{path.name}: zip has no export.xml")
                with zf.open(member) as fh:
                    yield fh, f"{path.name}:{member}"
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
            raise WearbenchError(f"{path.name}: unreadable zip: {exc}") from None
        return
    with path.open("rb") as fh:
        yield fh, path.name


def stream(
    path: Path,
    start: Callable[[str, dict[str, str], int], None],
    end: Callable[[str], None],
    *,
    chunk_filter: Callable[[bytes, bool], bytes] | None = None,
) -> None:
    """Parse the export, calling ``start(name, attrs, line)`` and ``end(name)`` per element.

    ``chunk_filter(chunk, root_seen)``, if given, sees each chunk before expat and returns the
    bytes to parse (the collector's heart-rate fast lane; it must keep line numbers).

    Raises:
        WearbenchError: Empty file, wrong root element, or malformed/truncated XML (with line
            and column). Errors raised by the callbacks propagate unchanged.
    """
    with open_export(path) as (fh, name):
        parser = expat.ParserCreate()
        seen_root = False

        def on_start(tag: str, attrs: dict[str, str]) -> None:
            nonlocal seen_root
            if not seen_root:
                seen_root = True
                if tag != "HealthData":
                    raise WearbenchError(
                        f"{name}: line {parser.CurrentLineNumber}: root element is <{tag}>, expected "
                        "<HealthData> (not an Apple Health export)"
                    )
            start(tag, attrs, parser.CurrentLineNumber)

        parser.StartElementHandler = on_start
        parser.EndElementHandler = end
        blank = True
        try:
            size = FIRST_CHUNK  # the prolog and DTD, then the root's start: the filter's lane opens
            while chunk := fh.read(size):
                size = CHUNK
                blank = blank and not chunk.strip()
                parser.Parse(chunk if chunk_filter is None else chunk_filter(chunk, seen_root), False)
        except expat.ExpatError as exc:
            raise WearbenchError(
                f"{name}: malformed XML at line {exc.lineno}, column {exc.offset}: {_reason(exc)}"
            ) from None
        if blank:
            raise WearbenchError(f"{name}: file is empty (no <HealthData> element)")
        try:
            parser.Parse(b"", True)
        except expat.ExpatError as exc:
            raise WearbenchError(
                f"{name}: XML ends early at line {exc.lineno}, column {exc.offset}: {_reason(exc)} "
                "(truncated export?)"
            ) from None


def _reason(exc: expat.ExpatError) -> str:
    return expat.ErrorString(exc.code) if exc.code is not None else str(exc)
