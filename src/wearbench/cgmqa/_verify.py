"""`wearbench verify` for a HealthLoopQA benchmark: recompute every answer from the stored data folder.

The manifest records the data folder's path and the sha256 of its ``manifest.json`` (which lists the
sha256 of each of its files). Verification checks, in order: every artifact file against the
manifest's hashes; the data folder against the recorded hashes (a changed or missing folder stops
verification with one line, since nothing can be recomputed from it); then, per item, the
template's spec against the one recorded at build time, the question text, where its context ends
("now" of a prediction item) and the answer, recomputed on the item's window; and per context
window, the context files, re-rendered from the data and compared byte for byte after
decompression (so another xz library version cannot fail it; the compressed bytes are checked
against the manifest's hashes). Each item is recomputed on the run its family was built from
(the manifest's ``runs``): the data folder, or its fault-free twin, simulated again as at build
time and checked against the readings' sha256 recorded then (:mod:`wearbench.cgmqa._source`).
When an item's template needs a counterfactual, its run (the twin, or the data folder
re-simulated) runs the counterfactuals again as at build time.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wearbench._errors import UnknownNameError, WearbenchError
from wearbench.cgmqa._artifact import MANIFEST, file_sha256, read_cgm_items, read_cgm_manifest
from wearbench.cgmqa._context import Window, context_texts, read_context_bytes
from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._source import (
    FOLDER,
    TWIN,
    Note,
    RunRecords,
    check_twin_hash,
    load_runs,
    prefetch_with_notes,
    read_data_source,
)
from wearbench.cgmqa._template import Template, get_template


@dataclass(frozen=True)
class CGMVerifyReport:
    """Outcome of :func:`verify_cgm_benchmark`.

    Attributes:
        n_items: Items checked.
        failures: ``(item id, reason)`` for every item that did not recompute.
        file_failures: ``(file, reason)`` for every artifact file that does not match.
    """

    n_items: int
    failures: tuple[tuple[str, str], ...]
    file_failures: tuple[tuple[str, str], ...] = ()

    @property
    def n_verified(self) -> int:
        """Items whose answer recomputed."""
        return self.n_items - len({i for i, _ in self.failures})

    @property
    def ok(self) -> bool:
        """Whether every item and file checked out."""
        return not self.failures and not self.file_failures


def _same(a: Any, b: Any) -> bool:
    """Equal JSON values; floats to 1e-9 relative (a recomputation on another machine may differ)."""
    if isinstance(a, float) or isinstance(b, float):
        if (
            isinstance(a, bool)
            or isinstance(b, bool)
            or not isinstance(a, int | float)
            or not isinstance(b, int | float)
        ):
            return False
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and type(a) is type(b)


def _check_files(bench: Path, manifest: Mapping[str, Any]) -> list[tuple[str, str]]:
    out = []
    for name, want in sorted(manifest.get("files", {}).items()):
        path = bench / name
        if not path.is_file():
            out.append((name, "missing"))
        elif file_sha256(path) != want:
            out.append((name, "sha256 differs from the manifest"))
    return out


def _check_data(data: Mapping[str, Any]) -> Path:
    """The data folder, after checking it against the recorded hashes.

    Raises:
        WearbenchError: If it is missing or changed (one line naming the file).
    """
    root = Path(data["path"])
    manifest = root / MANIFEST
    if not manifest.is_file():
        raise WearbenchError(
            f"data folder {root} (recorded in the benchmark manifest) is missing or has no {MANIFEST}"
        )
    if file_sha256(manifest) != data["manifest_sha256"]:
        raise WearbenchError(
            f"{manifest}: sha256 differs from the one recorded at build time (the data changed)"
        )
    for name, want in sorted(json.loads(manifest.read_text(encoding="utf-8")).get("files", {}).items()):
        if not (root / name).is_file() or file_sha256(root / name) != want:
            raise WearbenchError(
                f"{root / name}: missing, or its sha256 differs from the data folder's manifest"
            )
    return root


def _item_failure(item: Mapping[str, Any], t: Template, record: PatientRecord, spec: Any) -> str | None:
    if spec != json.loads(json.dumps(t.tags())):
        return "template spec differs from the one recorded at build time"
    ctx = item["context"]
    rec = Window(item["patient"], ctx["first_day"], ctx["days"]).cut(record)
    if t.text(item["params"]) != item["question"]:
        return "question text differs from the template's"
    now = t.context_end(item["params"])
    if ctx.get("until_minute") != now:
        return f"context ends at minute {ctx.get('until_minute')!r}, the template's now is {now!r}"
    value = t.answer(rec, item["params"])
    recomputed = None if value is None else json.loads(json.dumps(value))
    if recomputed is None or not _same(recomputed, item["answer"]):
        return f"recomputed answer {recomputed!r} != stored {item['answer']!r}"
    return None


def _verify_item(
    item: Mapping[str, Any], runs: Mapping[str, RunRecords], which: str, specs: Mapping[str, Any]
) -> str | None:
    try:
        t = get_template(str(item["template"]))
    except UnknownNameError as e:
        return str(e)
    if which not in runs:
        return f"run {which!r} (the manifest's runs) is not one the benchmark can be built from"
    records = runs[which].records
    if item["patient"] not in records:
        return f"patient {item['patient']!r} is not in the data folder"
    try:
        return _item_failure(item, t, records[item["patient"]], specs.get(t.id))
    except (WearbenchError, KeyError, TypeError, ValueError) as e:
        return f"recomputation failed: {e}"


def _check_contexts(
    bench: Path, items: list[dict[str, Any]], runs: Mapping[str, RunRecords], run_of: Mapping[str, str]
) -> list[tuple[str, str]]:
    windows = {
        (
            run_of[i["family"]],
            Window(
                i["patient"],
                i["context"]["first_day"],
                i["context"]["days"],
                i["context"].get("until_minute"),
            ),
        )
        for i in items
    }
    out = []
    for which, w in sorted(windows, key=lambda rw: (rw[0], rw[1].key)):
        run = runs.get(which)
        if run is None or w.subject not in run.records:
            continue  # reported per item
        for name, data in context_texts(run.records[w.subject], w, run.contexts).items():
            path = bench / name
            try:
                same = read_context_bytes(path) == data
            except WearbenchError:
                same = False
            if not same:
                out.append((name, "missing, or differs from the context re-rendered from the data"))
    return out


def _reread(
    data: Path, manifest: Mapping[str, Any], items: list[dict[str, Any]], note: Note | None
) -> tuple[dict[str, RunRecords], dict[str, str]]:
    """The records of each run the items were built from, by run id, and ``{family: run id}``.

    A run is re-simulated, with its items' counterfactuals run, when an item needs it.

    Raises:
        WearbenchError: If a run cannot be re-simulated, or the twin did not reproduce.
    """
    run_of = {str(i["family"]): FOLDER for i in items} | dict(manifest.get("runs") or {})
    needing = {t for t in {str(i["template"]) for i in items} if _needs_rerun(t)}
    rerun = {run_of[i["family"]] for i in items if i["template"] in needing}
    runs = load_runs(read_data_source(data), run_of, rerun, note)
    if TWIN in runs:
        check_twin_hash(runs[TWIN], manifest.get("twin") or {})
    for which in sorted(rerun & set(runs)):
        records = runs[which].records
        patients = {
            str(i["patient"]) for i in items if i["template"] in needing and run_of[i["family"]] == which
        }
        prefetch_with_notes([([records[s] for s in sorted(patients & set(records))], sorted(needing))], note)
    return runs, run_of


def _needs_rerun(template_id: str) -> bool:
    try:
        return "counterfactual" in get_template(template_id).needs
    except UnknownNameError:
        return False  # reported per item


def verify_cgm_benchmark(
    bench: str | Path, progress: Callable[[int, int], None] | None = None, note: Note | None = None
) -> CGMVerifyReport:
    """Recompute every answer and context of a HealthLoopQA benchmark from its data folder.

    Args:
        bench: The benchmark folder.
        progress: Optional ``(items_done, items_total)`` callback.
        note: Optional callback given one line when a slow step (the re-simulation) starts and ends.

    Raises:
        WearbenchError: Not a HealthLoopQA benchmark, its data folder is missing or changed, it
            cannot be re-simulated while an item needs a counterfactual, or its fault-free twin
            did not reproduce (its readings' sha256 differs from the one recorded at build time).
    """
    root = Path(bench)
    manifest = read_cgm_manifest(root)
    file_failures = _check_files(root, manifest)
    data = _check_data(manifest["data"])
    items = read_cgm_items(root)
    runs, run_of = _reread(data, manifest, items, note)
    failures = []
    for n, item in enumerate(items, start=1):
        reason = _verify_item(item, runs, run_of[item["family"]], manifest.get("templates", {}))
        if reason:
            failures.append((str(item["id"]), reason))
        if progress:
            progress(n, len(items))
    file_failures += _check_contexts(root, items, runs, run_of)
    return CGMVerifyReport(len(items), tuple(failures), tuple(file_failures))
