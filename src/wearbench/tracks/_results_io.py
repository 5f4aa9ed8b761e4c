"""RESULTS folders of the three tracks: one writer and one reader for the shared layout.

A RESULTS folder holds one JSON-lines records file (``results.jsonl`` or ``predictions.jsonl``),
optional extra files (the imputation track's ``example.npz``) and ``manifest.json`` with
``kind`` and the records file's SHA-256 under ``results.sha256``. Each file is written to a
temporary name and renamed into place, and the manifest comes last, so a folder with a manifest
is complete (the grid runner's skip rule relies on it).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from wearbench._errors import WearbenchError
from wearbench._jsonfile import read_json_object

#: The manifest's file name inside every RESULTS folder.
RUN_MANIFEST = "manifest.json"

R = TypeVar("R")


def _replace(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def write_results(out: Path, files: Mapping[str, bytes], manifest: Mapping[str, Any], noun: str) -> None:
    """Write ``files`` (name -> bytes) and then ``manifest.json`` into ``out``, each atomically.

    Args:
        out: The RESULTS folder (created if needed).
        files: The records file and any extra file, by name.
        manifest: JSON-ready manifest (written with sorted keys, 2-space indent, no NaN).
        noun: What the folder holds, for the error (``"imputation"``).

    Raises:
        WearbenchError: Naming the folder when a file cannot be written.
    """
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            _replace(out / name, data)
        text = json.dumps(manifest, sort_keys=True, indent=2, allow_nan=False) + "\n"
        _replace(out / RUN_MANIFEST, text.encode("utf-8"))
    except OSError as e:
        raise WearbenchError(f"{out}: cannot write {noun} results ({e})") from e


def read_results(
    path: str | os.PathLike[str],
    *,
    kind: str,
    file: str,
    record: Callable[..., R],
    noun: str,
    command: str,
    record_noun: str,
) -> tuple[dict[str, Any], list[R]]:
    """Read a RESULTS folder of one ``kind``: its manifest and one record per JSON line.

    Args:
        path: The RESULTS folder.
        kind: The manifest ``kind`` expected.
        file: The records file's name.
        record: Builds a record from one line's fields (a dataclass).
        noun: What the folder holds, for errors (``"forecast"``).
        command: The command that writes such a folder (``"track forecast"``).
        record_noun: One record, for errors (``"a forecast error record"``).

    Returns:
        ``(manifest, records)`` in file order.

    Raises:
        WearbenchError: Naming the file (and line) for a missing manifest, a folder of another
            kind, an unreadable file, a SHA-256 that differs from the manifest, or a bad line.
    """
    folder = Path(path)
    manifest = read_json_object(folder / RUN_MANIFEST, missing=f"no {noun} results (run `{command}`)")
    if manifest.get("kind") != kind:
        raise WearbenchError(f"{folder / RUN_MANIFEST}: not {noun} results (kind {manifest.get('kind')!r})")
    target = folder / file
    try:
        blob = target.read_bytes()
    except OSError as e:
        raise WearbenchError(f"{target}: cannot read {noun} results ({e})") from e
    if hashlib.sha256(blob).hexdigest() != manifest.get("results", {}).get("sha256"):
        raise WearbenchError(f"{target}: SHA-256 differs from the manifest (edited or truncated?)")
    records = []
    for n, line in enumerate(blob.decode().splitlines(), start=1):
        try:
            records.append(record(**json.loads(line)))
        except (TypeError, ValueError) as e:
            raise WearbenchError(f"{target}:{n}: not {record_noun} ({e})") from e
    return manifest, records
