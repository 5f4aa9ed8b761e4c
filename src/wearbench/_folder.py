"""Writers into a folder that may already exist: never a half-rewritten folder.

A folder that exists, is not empty and does not hold what the writer writes (its ``marker``
file is missing) is refused before anything is written. Otherwise:

- :func:`replaced_folder` yields a fresh hidden sibling (``.NAME.new-…``); when the block ends
  without an error the sibling takes the folder's place (the previous folder is renamed aside,
  the new one renamed in, the old one removed); on an error the sibling is removed and the
  previous folder is left as it was. Readers see the old folder or the new one, never a mix.
- :func:`rebuilt_folder` is for writers whose files record their own path (a run store
  records the benchmark path): the previous folder is renamed aside to ``.NAME.old-…``, the
  folder is written in place, and on an error the partial folder is removed and the previous
  one renamed back.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from wearbench._errors import WearbenchError


def check_target(out: Path, kind: str, marker: str) -> None:
    """Refuse ``out`` if it is a file, or a non-empty folder without ``marker`` (not a ``kind``).

    Raises:
        WearbenchError: One line naming the folder, what it lacks and the fix; nothing written.
    """
    if out.exists() and not out.is_dir():
        raise WearbenchError(f"{out}: exists and is not a folder; choose a folder for the {kind}")
    if out.is_dir() and any(out.iterdir()) and not (out / marker).exists():
        raise WearbenchError(
            f"{out}: folder is not empty and holds no {kind} (no {marker}); nothing written: "
            "choose a new or empty folder"
        )


def _sibling(out: Path, tag: str) -> Path:
    return out.with_name(f".{out.name}.{tag}-{os.getpid()}-{uuid.uuid4().hex[:8]}")


@contextmanager
def replaced_folder(out: str | os.PathLike[str], kind: str, marker: str) -> Iterator[Path]:
    """Yield an empty sibling folder to write; it replaces ``out`` when the block succeeds.

    Args:
        out: The folder to (re)write.
        kind: What it holds, for messages (``"cohort"``, ``"benchmark"``).
        marker: A file every such folder has (``manifest.json``).

    Raises:
        WearbenchError: ``out`` is a file or a foreign non-empty folder (see :func:`check_target`).
    """
    target = Path(out)
    check_target(target, kind, marker)
    target.parent.mkdir(parents=True, exist_ok=True)
    new = _sibling(target, "new")
    new.mkdir()
    try:
        yield new
        _swap(new, target)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise


def _swap(new: Path, out: Path) -> None:
    """Put ``new`` at ``out``; the previous ``out`` (if any) is removed only once ``new`` is in place."""
    if not out.exists():
        new.rename(out)
        return
    old = _sibling(out, "old")
    out.rename(old)
    try:
        new.rename(out)
    except OSError:
        old.rename(out)
        raise
    shutil.rmtree(old, ignore_errors=True)


@contextmanager
def rebuilt_folder(out: str | os.PathLike[str], kind: str, marker: str) -> Iterator[Path]:
    """Yield ``out`` emptied (its previous content set aside); restore that content on an error.

    Args:
        out: The folder to (re)write in place.
        kind: What it holds, for messages (``"demo"``).
        marker: A file every such folder has.

    Raises:
        WearbenchError: ``out`` is a file or a foreign non-empty folder (see :func:`check_target`).
    """
    target = Path(out)
    check_target(target, kind, marker)
    old = None
    if target.exists():
        old = _sibling(target, "old")
        target.rename(old)
    try:
        target.mkdir(parents=True)
        yield target
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        if old is not None:
            old.rename(target)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write_text_atomic(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a hidden sibling file renamed over it.

    A failed write leaves the previous file as it was; parent folders are created.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _sibling(path, "new")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path
