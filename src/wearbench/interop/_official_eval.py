"""Turn an official WearableQA release file into a cached wearbench benchmark folder for evaluation.

Two inputs are accepted (see ``docs/exports.md``, "Evaluating the official release"):

- ``WearableQA_raw.json``: the single-file release, read by :func:`import_official`.
- ``WearableQA.jsonl``: one MCQ object per line with the per-MCQ keys of the raw file's ``mcqs``,
  plus optionally an inline ``user_history`` (list of daily records); users without one take their
  history from a ``WearableQA_raw.json`` in the same folder, which also supplies the cohort
  reference percentiles when present.

The import is cached under ``cache_dir / <first 12 hex of the sha256 of the input bytes>``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench._jsonfile import read_json_object
from wearbench.interop._common import MCQ_KEYS, OFFICIAL_KEYS
from wearbench.interop._import import import_official
from wearbench.questions import LETTERS

#: File name of the single-file release looked for next to a ``.jsonl``.
RAW_NAME = "WearableQA_raw.json"
_HISTORY = "user_history"


def _sha(chunks: Sequence[bytes]) -> str:
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk)
    return digest.hexdigest()[:12]


def _check_mcq(q: Any, where: str) -> dict[str, Any]:
    """The MCQ of one line, or a one-line error naming what is wrong."""
    if not isinstance(q, dict):
        raise WearbenchError(f"{where}: expected a JSON object, got {type(q).__name__}")
    missing = [k for k in MCQ_KEYS if k not in q]
    if missing:
        raise WearbenchError(f"{where}: missing key(s) {', '.join(missing)}")
    options = q["options"]
    if not isinstance(options, list | dict) or len(options) != len(LETTERS):
        raise WearbenchError(f"{where} ({q['id']}): options must be 10 texts (A-J)")
    if q["gt_letter"] not in LETTERS:
        raise WearbenchError(f"{where} ({q['id']}): gt_letter must be one of A-J, got {q['gt_letter']!r}")
    history = q.get(_HISTORY)
    if history is not None and not (
        isinstance(history, list) and all(isinstance(r, dict) and "date" in r for r in history)
    ):
        raise WearbenchError(f"{where} ({q['id']}): {_HISTORY} must be a list of records with a date")
    return q


def _read_jsonl(file: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, MCQ) of every non-blank line."""
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise WearbenchError(f"{file}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise WearbenchError(f"{file}: cannot be read ({e})") from e
    out = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            q = json.loads(line)
        except json.JSONDecodeError as e:
            raise WearbenchError(f"{file}:{n}: not JSON ({e.msg})") from e
        out.append((n, _check_mcq(q, f"{file}:{n}")))
    if not out:
        raise WearbenchError(f"{file}: no MCQs")
    return out


def _merge(records: dict[str, dict[str, Any]], history: Sequence[Mapping[str, Any]], where: str) -> None:
    """Add one line's history to a user's records by date; overlapping days must agree."""
    for rec in history:
        day = str(rec["date"])
        if records.setdefault(day, dict(rec)) != dict(rec):
            raise WearbenchError(f"{where}: {_HISTORY} for {day} differs from an earlier line")


def _dense(records: Mapping[str, Mapping[str, Any]], where: str) -> list[dict[str, Any]]:
    """Records as a dense calendar (days without a record become all-missing records)."""
    try:
        days = sorted(date.fromisoformat(d) for d in records)
    except ValueError as e:
        raise WearbenchError(f"{where}: bad date in {_HISTORY} ({e})") from e
    fields = sorted({k for r in records.values() for k in r if k != "date"})
    out = []
    for i in range((days[-1] - days[0]).days + 1):
        day = (days[0] + timedelta(days=i)).isoformat()
        rec = records.get(day)
        out.append({"date": day, **{f: (rec or {}).get(f) for f in fields}})
    return out


def _histories(
    mcqs: Sequence[tuple[int, dict[str, Any]]], file: Path, raw: Mapping[str, Any] | None
) -> dict[str, list[dict[str, Any]]]:
    inline: dict[str, dict[str, dict[str, Any]]] = {}
    first_line: dict[str, int] = {}
    for n, q in mcqs:
        user = str(q["user_id"])
        first_line.setdefault(user, n)
        if q.get(_HISTORY) is not None:
            _merge(inline.setdefault(user, {}), q[_HISTORY], f"{file}:{n} ({q['id']})")
    stored = raw["user_histories"] if raw is not None else {}
    out: dict[str, list[dict[str, Any]]] = {}
    for user, n in first_line.items():  # in line order: the first offending line is named
        if inline.get(user):
            out[user] = _dense(inline[user], f"{file}:{n}")
        elif user in stored:
            out[user] = list(stored[user])
        else:
            hint = f"{RAW_NAME} has no history for it" if raw is not None else f"and no {RAW_NAME} next to it"
            raise WearbenchError(f"{file}:{n}: user {user} has no {_HISTORY} ({hint})")
    return dict(sorted(out.items()))


def jsonl_document(file: str | Path) -> dict[str, Any]:
    """The ``WearableQA_raw.json``-shaped document of a ``WearableQA.jsonl`` file.

    Raises:
        WearbenchError: Naming the file and line of an MCQ that does not fit, or the user whose
            history is nowhere to be found.
    """
    file = Path(file)
    mcqs = _read_jsonl(file)
    raw_file = file.with_name(RAW_NAME)
    raw = read_json_object(raw_file, missing="no such file") if raw_file.is_file() else None
    if raw is not None and not {"user_histories", "cohort_reference"} <= set(raw):
        raise WearbenchError(f"{raw_file}: missing key(s) user_histories/cohort_reference")
    histories = _histories(mcqs, file, raw)
    return {
        "description": f"converted by wearbench from {file.name}",
        "n_mcqs": len(mcqs),
        "n_unique_users": len(histories),
        "gt_balancing": {},
        "cohort_reference": raw["cohort_reference"] if raw is not None else {},
        "user_histories": histories,
        "mcqs": [{k: q[k] for k in MCQ_KEYS} for _, q in mcqs],
    }


def _sources(file: Path) -> tuple[str, list[Path]]:
    """The input kind (``raw``/``jsonl``) and the files whose bytes key the cache."""
    if file.suffix == ".jsonl":
        sibling = file.with_name(RAW_NAME)
        return "jsonl", [file, sibling] if sibling.is_file() else [file]
    if file.suffix == ".json":
        return "raw", [file]
    raise WearbenchError(f"{file}: expected WearableQA_raw.json (.json) or WearableQA.jsonl (.jsonl)")


def _complete(target: Path) -> bool:
    return (target / "bench" / "manifest.json").is_file() and (target / "bench" / "items.jsonl").is_file()


def _import(kind: str, file: Path, work: Path) -> None:
    if kind == "raw":
        import_official(file, work)
        return
    doc = jsonl_document(file)
    source = work / "source" / f"{file.stem}.json"
    source.parent.mkdir(parents=True)
    source.write_text(json.dumps({k: doc[k] for k in OFFICIAL_KEYS}, ensure_ascii=False), encoding="utf-8")
    import_official(source, work)


def load_official(path: str | Path, cache_dir: str | Path) -> Path:
    """A wearbench benchmark folder holding the questions of an official release file.

    Args:
        path: ``WearableQA_raw.json`` or ``WearableQA.jsonl`` (see the module docstring).
        cache_dir: Where imports are kept, one folder per input content hash; an existing
            complete import is reused.

    Returns:
        The benchmark folder (``cache_dir/<hash>/bench``), next to its cohort (``…/cohort``).

    Raises:
        WearbenchError: One line naming the file (and line or MCQ) that does not fit.
    """
    file, cache = Path(path), Path(cache_dir)
    kind, sources = _sources(file)
    if not file.is_file():
        raise WearbenchError(f"{file}: no such file")
    target = cache / _sha([s.read_bytes() for s in sources])
    if _complete(target):
        return target / "bench"
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=cache))
    try:
        _import(kind, file, work)
        if target.exists() and not _complete(target):
            shutil.rmtree(target)
        if not target.exists():
            os.replace(work, target)
    finally:
        if work.exists():
            shutil.rmtree(work)
    return target / "bench"
