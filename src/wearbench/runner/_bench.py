"""Open a benchmark for evaluation: check every file against the manifest, parse items once.

``eval`` refuses a benchmark whose files do not match the SHA-256 hashes its build wrote to
``manifest.json`` (an edited answer in ``items.jsonl``, a swapped context): a score on such
files would not be a score on the benchmark it names. ``items.jsonl`` is read and hashed once,
and parsed from the same bytes.
"""

from __future__ import annotations

import gc
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from wearbench._errors import WearbenchError
from wearbench.questions import Item

_ITEMS = "items.jsonl"
_MANIFEST = "manifest.json"


@dataclass(frozen=True)
class OpenBench:
    """A benchmark whose files match its manifest.

    Attributes:
        path: Benchmark folder.
        items: Every item, in file order.
        digest: SHA-256 of ``items.jsonl`` (hex), the run's ``bench_hash``.
    """

    path: Path
    items: list[Item]
    digest: str


def _manifest_hashes(bench: Path) -> dict[str, str]:
    path = bench / _MANIFEST
    if not path.is_file():
        raise WearbenchError(f"{bench}: not a benchmark folder (no {_MANIFEST})")
    try:
        files = json.loads(path.read_text(encoding="utf-8")).get("files")
    except (ValueError, AttributeError) as e:
        raise WearbenchError(f"{path}: not a readable manifest ({e})") from e
    if not isinstance(files, dict) or _ITEMS not in files:
        raise WearbenchError(f"{path}: lists no file hashes; rebuild the benchmark with `wearbench build`")
    return {str(k): str(v) for k, v in files.items()}


def _parse(path: Path, data: bytes) -> list[Item]:
    """Items from ``items.jsonl`` bytes, with the cyclic garbage collector paused.

    Parsing allocates ~300,000 containers for 5,000 items, none of them garbage; each
    collection the allocations trigger would rescan them all (0.8 s → 0.26 s measured).
    """
    items = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        for n, line in enumerate(data.decode("utf-8").splitlines(), start=1):
            try:
                items.append(Item.from_dict(json.loads(line)))
            except (ValueError, TypeError, KeyError) as e:
                raise WearbenchError(f"{path}:{n}: malformed item ({e})") from e
    finally:
        if enabled:
            gc.enable()
    return items


def open_bench(bench: str | Path) -> OpenBench:
    """Read a benchmark after checking every file its manifest lists.

    Args:
        bench: Benchmark folder (``manifest.json``, ``items.jsonl``, ``contexts/``).

    Returns:
        The items and the hash of ``items.jsonl``.

    Raises:
        WearbenchError: If the manifest is missing or lists no hashes, a listed file is missing,
            or a file's SHA-256 differs from the manifest (naming the files), or an item is
            malformed (naming its line).
    """
    bench = Path(bench)
    data, digest = checked_items_bytes(bench)
    return OpenBench(bench, _parse(bench / _ITEMS, data), digest)


def checked_items_bytes(bench: Path) -> tuple[bytes, str]:
    """The bytes of ``items.jsonl`` and their SHA-256, after checking every file of the manifest.

    Raises:
        WearbenchError: As :func:`open_bench` does for the manifest and the files.
    """
    expected = _manifest_hashes(bench)
    data, digest = b"", ""
    changed, missing = [], []
    for name, sha in sorted(expected.items()):
        path = bench / name
        if not path.is_file():
            missing.append(name)
            continue
        blob = path.read_bytes()
        actual = hashlib.sha256(blob).hexdigest()
        if name == _ITEMS:
            data, digest = blob, actual
        if actual != sha:
            changed.append(name)
    if changed or missing:
        what = "; ".join(
            part
            for part in (f"changed: {', '.join(changed[:5])}" if changed else "",
                         f"missing: {', '.join(missing[:5])}" if missing else "")
            if part
        )  # fmt: skip
        raise WearbenchError(
            f"{bench}: files do not match manifest.json ({what}); refusing to evaluate an altered benchmark"
        )
    return data, digest
