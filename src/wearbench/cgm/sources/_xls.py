"""A small stdlib reader for legacy Excel ``.xls`` (BIFF8 in an OLE2 compound file).

Only what CGM spreadsheets need: the first worksheet's cell values as text (numbers as
``repr(float)``, shared strings resolved, formula results cached in the file). Dates stay Excel
serial day numbers, as in the xlsx reader. Formatting, merged cells and charts are ignored.
"""

from __future__ import annotations

import struct
from pathlib import Path

from wearbench._errors import WearbenchError

_MAGIC = bytes.fromhex("D0CF11E0A1B11AE1")
_END = 0xFFFFFFFE
_FREE = 0xFFFFFFFF


class _Bad(Exception):
    """Internal: malformed file (turned into a one-line WearbenchError)."""


def _chain(fat: list[int], start: int) -> list[int]:
    out, seen = [], set()
    while start not in (_END, _FREE) and start < len(fat):
        if start in seen:
            raise _Bad("sector chain loops")
        seen.add(start)
        out.append(start)
        start = fat[start]
    return out


def _workbook_stream(data: bytes) -> bytes:
    """The ``Workbook`` (or ``Book``) stream of an OLE2 compound file."""
    if len(data) < 512 or data[:8] != _MAGIC:
        raise _Bad("not an OLE2 compound file")
    size = 1 << struct.unpack_from("<H", data, 0x1E)[0]
    n_fat, first_dir = struct.unpack_from("<II", data, 0x2C)
    first_difat, n_difat = struct.unpack_from("<II", data, 0x44)

    def sector(i: int) -> bytes:
        return data[(i + 1) * size : (i + 2) * size]

    difat = [s for s in struct.unpack_from("<109I", data, 0x4C) if s != _FREE]
    nxt = first_difat
    for _ in range(n_difat):
        if nxt in (_END, _FREE):
            break
        words = struct.unpack(f"<{size // 4}I", sector(nxt))
        difat += [s for s in words[:-1] if s != _FREE]
        nxt = words[-1]
    fat: list[int] = []
    for s in difat[:n_fat]:
        fat += struct.unpack(f"<{size // 4}I", sector(s))
    directory = b"".join(sector(s) for s in _chain(fat, first_dir))
    for off in range(0, len(directory) - 127, 128):
        name_len = struct.unpack_from("<H", directory, off + 64)[0]
        name = directory[off : off + max(name_len - 2, 0)].decode("utf-16-le", errors="replace")
        if name in ("Workbook", "Book"):
            start, length = struct.unpack_from("<II", directory, off + 116)
            if length < 4096:
                raise _Bad("workbook stream in the mini stream (file too small)")
            return b"".join(sector(s) for s in _chain(fat, start))[:length]
    raise _Bad("no Workbook stream")


def _records(stream: bytes, pos: int) -> list[tuple[int, bytes]]:
    """BIFF records from ``pos`` up to and including the substream's EOF."""
    out = []
    while pos + 4 <= len(stream):
        rtype, length = struct.unpack_from("<HH", stream, pos)
        out.append((rtype, stream[pos + 4 : pos + 4 + length]))
        pos += 4 + length
        if rtype == 0x000A:
            break
    return out


def _sst(segments: list[bytes]) -> list[str]:
    """Shared strings from the SST record and its CONTINUE records (strings may span them)."""
    seg, pos = 0, 8
    count = struct.unpack_from("<I", segments[0], 4)[0]

    def take(n: int) -> bytes:
        nonlocal seg, pos
        if pos + n > len(segments[seg]) and pos >= len(segments[seg]):
            seg, pos = seg + 1, 0
        out = segments[seg][pos : pos + n]
        pos += n
        return out

    strings = []
    for _ in range(count):
        cch, flags = struct.unpack("<HB", take(3))
        runs = struct.unpack("<H", take(2))[0] if flags & 0x08 else 0
        ext = struct.unpack("<i", take(4))[0] if flags & 0x04 else 0
        chars: list[str] = []
        left, wide = cch, flags & 0x01
        while left:
            if pos >= len(segments[seg]):
                seg, pos = seg + 1, 0
                wide = take(1)[0] & 0x01
            room = (len(segments[seg]) - pos) // (2 if wide else 1)
            n = min(left, room)
            if n <= 0:
                raise _Bad("shared string split mid-character")
            raw = take(n * (2 if wide else 1))
            chars.append(raw.decode("utf-16-le" if wide else "latin-1", errors="replace"))
            left -= n
        strings.append("".join(chars))
        for _ in range(runs * 4 + ext):  # skip rich-text runs and phonetic data, byte by byte
            take(1)
    return strings


def _rk(value: int) -> float:
    if value & 0x02:
        number = float(value >> 2 if value < 0x80000000 else (value >> 2) - (1 << 30))
    else:
        number = struct.unpack("<d", struct.pack("<Q", (value & 0xFFFFFFFC) << 32))[0]
    return number / 100 if value & 0x01 else number


def _cells(records: list[tuple[int, bytes]], sst: list[str]) -> dict[tuple[int, int], str]:
    cells: dict[tuple[int, int], str] = {}
    pending: tuple[int, int] | None = None
    for rtype, rec in records:
        if rtype == 0x00FD:  # LABELSST
            row, col, _, idx = struct.unpack_from("<HHHI", rec)
            cells[row, col] = sst[idx] if idx < len(sst) else ""
        elif rtype == 0x0203:  # NUMBER
            row, col, _, num = struct.unpack_from("<HHHd", rec)
            cells[row, col] = repr(num)
        elif rtype == 0x027E:  # RK
            row, col, _, rk = struct.unpack_from("<HHHI", rec)
            cells[row, col] = repr(_rk(rk))
        elif rtype == 0x00BD:  # MULRK
            row, first = struct.unpack_from("<HH", rec)
            for i in range((len(rec) - 6) // 6):
                cells[row, first + i] = repr(_rk(struct.unpack_from("<I", rec, 4 + 6 * i + 2)[0]))
        elif rtype == 0x0006:  # FORMULA: cached number, or a string in the next STRING record
            row, col = struct.unpack_from("<HH", rec)
            if rec[12:14] == b"\xff\xff":
                pending = (row, col) if rec[6] == 0 else None
            else:
                cells[row, col] = repr(struct.unpack_from("<d", rec, 6)[0])
        elif rtype in (0x0207, 0x0204):  # STRING (after FORMULA), LABEL
            at = pending if rtype == 0x0207 else struct.unpack_from("<HH", rec)
            body = rec if rtype == 0x0207 else rec[6:]
            if at is not None:
                cch, flags = struct.unpack_from("<HB", body)
                raw = body[3 : 3 + cch * (2 if flags & 1 else 1)]
                cells[at[0], at[1]] = raw.decode("utf-16-le" if flags & 1 else "latin-1", errors="replace")
            pending = None
    return cells


def read_xls_rows(path: Path) -> list[list[str]]:
    """The first worksheet of a BIFF8 ``.xls`` as rows of cell text (empty cells ``""``).

    Raises:
        WearbenchError: Not a readable BIFF8 workbook (one line naming the file).
    """
    try:
        stream = _workbook_stream(path.read_bytes())
        glob = _records(stream, 0)
        segments: list[bytes] = []
        sheets: list[int] = []
        for i, (rtype, rec) in enumerate(glob):
            if rtype == 0x00FC:
                segments = [rec]
                segments += [r for t, r in _takewhile_continue(glob[i + 1 :])]
            elif rtype == 0x0085:
                sheets.append(struct.unpack_from("<I", rec)[0])
        if not sheets:
            raise _Bad("no worksheet")
        cells = _cells(_records(stream, sheets[0]), _sst(segments) if segments else [])
    except (_Bad, struct.error, IndexError, OSError) as exc:
        raise WearbenchError(f"{path.name}: unreadable xls ({exc or type(exc).__name__})") from None
    if not cells:
        return []
    n_rows = max(r for r, _ in cells) + 1
    width = max(c for _, c in cells) + 1
    rows = [[""] * width for _ in range(n_rows)]
    for (r, c), text in cells.items():
        rows[r][c] = text
    while rows and not any(rows[-1]):
        rows.pop()
    return [_trim(r) for r in rows]


def _takewhile_continue(records: list[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
    out = []
    for rtype, rec in records:
        if rtype != 0x003C:
            break
        out.append((rtype, rec))
    return out


def _trim(row: list[str]) -> list[str]:
    while row and not row[-1]:
        row = row[:-1]
    return row
