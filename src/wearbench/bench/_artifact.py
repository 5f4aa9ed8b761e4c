"""The benchmark artifact on disk: items.jsonl, contexts/, manifest.json, datasheet.md."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench._folder import replaced_folder
from wearbench._jsonfile import read_json_object
from wearbench.questions import Item, UserContext

ITEMS = "items.jsonl"
MANIFEST = "manifest.json"
DATASHEET = "datasheet.md"
CONTEXTS = "contexts"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_artifact(
    out: Path,
    items: Iterable[Item],
    contexts: Mapping[str, UserContext],
    manifest: Mapping[str, Any],
    datasheet: str,
) -> dict[str, str]:
    """Write the artifact; returns ``{relative path: sha256}`` of every data file.

    An existing benchmark folder is replaced as a whole: the artifact is written to a hidden
    sibling and swapped in when complete, so a failed write leaves the previous one intact.

    Raises:
        WearbenchError: ``out`` is a file or a non-empty folder without a benchmark manifest
            (nothing written).
    """
    items = list(items)
    dumps = {user: contexts[user].dump() for user in sorted({i.user_id for i in items})}
    return write_artifact_lines(out, [i.to_json() for i in items], dumps, manifest, datasheet)


def write_artifact_lines(
    out: Path,
    lines: Iterable[str],
    contexts: Mapping[str, bytes],
    manifest: Mapping[str, Any],
    datasheet: str,
) -> dict[str, str]:
    """:func:`write_artifact` from the items' JSON lines and the stored contexts' bytes.

    Lines are written and hashed one at a time (a large build never holds ``items.jsonl``
    twice); ``contexts`` maps each user with an item to :meth:`UserContext.dump` bytes.

    Raises:
        WearbenchError: As :func:`write_artifact`.
    """
    hashes: dict[str, str] = {}
    with replaced_folder(out, "benchmark", MANIFEST) as new:
        (new / CONTEXTS).mkdir()
        h = hashlib.sha256()
        with (new / ITEMS).open("wb") as f:
            for line in lines:
                data = (line + "\n").encode("utf-8")
                h.update(data)
                f.write(data)
        hashes[ITEMS] = h.hexdigest()
        for user in sorted(contexts):
            name = f"{CONTEXTS}/{user}.json.gz"
            (new / name).write_bytes(contexts[user])
            hashes[name] = _sha(contexts[user])
        data = datasheet.encode("utf-8")
        (new / DATASHEET).write_bytes(data)
        hashes[DATASHEET] = _sha(data)
        hashes = dict(sorted(hashes.items()))
        full = {**manifest, "files": hashes}
        (new / MANIFEST).write_text(json.dumps(full, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return hashes


def read_manifest(bench: Path) -> dict[str, Any]:
    """Parsed ``manifest.json``.

    Raises:
        WearbenchError: If the folder is not a benchmark.
    """
    return read_json_object(Path(bench) / MANIFEST, missing="not a benchmark folder (no manifest)")


def read_items(bench: Path) -> list[Item]:
    """All items of a benchmark.

    Raises:
        WearbenchError: Naming the line of a malformed item.
    """
    path = Path(bench) / ITEMS
    if not path.is_file():
        raise WearbenchError(f"{bench}: no {ITEMS}")
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            items.append(Item.from_dict(json.loads(line)))
        except (ValueError, TypeError, KeyError) as e:
            raise WearbenchError(f"{path}:{n}: malformed item ({e})") from e
    return items


def load_context(bench: Path, user_id: str) -> UserContext:
    """The stored context of one user.

    Raises:
        WearbenchError: If it is missing.
    """
    path = Path(bench) / CONTEXTS / f"{user_id}.json.gz"
    if not path.is_file():
        raise WearbenchError(f"{bench}: no context for user {user_id} ({path.name})")
    return UserContext.load(path.read_bytes())
