"""Where a HealthLoopQA benchmark's families come from: the data folder, or its fault-free twin.

The seed releases AD from a fault-injected run and PM and PD from a normal run of the same
patients and scenario (``shared/specs/healthloopqa.md``: "regenerated from the saved scenario").
So when the data folder is a simulation with faults, the build asks the AD templates about the
folder and the PM and PD templates about its **fault-free twin**: the folder's simulation (its
manifest's profile, patients, days, controller, sensor, meals, exercise, seed and engine) run
again with the faults switched off (:func:`~wearbench.cgmqa._read.read_twin`). Otherwise the
faults would leak into the process answers (a zero-reading fault makes every patient's minimum
0 mg/dL; a false meal, announced and not eaten, counts as a meal) and into the prediction
contexts. ``pm_pd_run="same"`` asks every family about the folder (the build before this
choice existed); real data and simulations without faults have no twin.

The twin is checked against the folder (:func:`~wearbench.cgmqa._read.check_twin`: the same
meals and exercise, the same readings up to the first fault) and its readings' sha256 goes into
the manifest, so ``wearbench verify`` can re-simulate it and check that it reproduced.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench._jsonfile import read_json_object
from wearbench._version import __version__
from wearbench.cgmqa._artifact import CONTEXTS, MANIFEST, sha256
from wearbench.cgmqa._context import Window, record_window
from wearbench.cgmqa._read import READINGS, check_twin, read_records, read_twin, readings_sha256
from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._rerun import CHECKPOINT_EVERY
from wearbench.cgmqa._template import templates
from wearbench.cgmqa.pd import prefetch_counterfactuals

#: Choices of ``pm_pd_run`` (``cgm build --pm-pd-run``): the fault-free twin, or the folder itself.
PM_PD_RUNS = ("normal", "same")
#: Run ids (the manifest's ``runs``): the data folder as given, and its fault-free twin.
FOLDER, TWIN = "folder", "twin"
#: Folder of the twin's context files inside the benchmark.
TWIN_CONTEXTS = f"{CONTEXTS}/{TWIN}"
#: Families the twin answers (the seed's normal run).
TWIN_FAMILIES = ("pm", "pd")
#: What the manifest's ``counterfactuals`` entry says the answers came from, per run.
RERUN_SOURCES = {
    FOLDER: "re-simulation of the data folder from its manifest (wearbench.cgmqa.rerun_folder)",
    TWIN: "re-simulation of the data folder's fault-free twin (wearbench.cgmqa._read.read_twin)",
}
TWIN_SOURCE = (
    "the data folder's simulation (its manifest's profile, patients, days, controller, sensor, "
    "meals, exercise, seed and engine) re-run with faults none by the build"
)
Note = Callable[[str], None]


@dataclass(frozen=True)
class DataSource:
    """The CGM folder a benchmark is built from.

    Attributes:
        path: Resolved folder.
        kind: ``simulated`` (``wearbench cgm simulate``) or ``real`` (``wearbench cgm import``).
        source: The profile (simulated) or the loader (real) that wrote it.
        manifest_sha256: sha256 of its ``manifest.json`` (which lists its files' hashes).
        files: ``{file: sha256}`` from its manifest.
        faults: The simulation's ``--faults`` (``none``, ``random`` or a CSV); ``none`` for real data.
    """

    path: Path
    kind: str
    source: str
    manifest_sha256: str
    files: Mapping[str, str]
    faults: str = "none"

    def to_dict(self) -> dict[str, Any]:
        """The manifest's ``data`` entry (with ``faults`` for a simulation)."""
        out = {"path": str(self.path), "kind": self.kind, "source": self.source,
               "manifest_sha256": self.manifest_sha256}  # fmt: skip
        return out | {"faults": self.faults} if self.kind == "simulated" else out


def read_data_source(folder: str | Path) -> DataSource:
    """Describe a simulated or imported CGM folder.

    Raises:
        WearbenchError: If the folder has no ``readings.parquet`` or no ``manifest.json``.
    """
    root = Path(folder).resolve()
    if not (root / READINGS).is_file():
        raise WearbenchError(
            f"{folder}: no {READINGS}, not a CGM folder (write one with `wearbench cgm simulate` "
            "or `wearbench cgm import SOURCE PATH --grid 5`)"
        )
    manifest = read_json_object(
        root / MANIFEST, missing="no manifest.json, not a simulated or imported CGM folder"
    )
    raw = (root / MANIFEST).read_bytes()
    files = manifest.get("files", {})
    if manifest.get("source") == "wearbench.sim":
        params = manifest.get("params", {})
        profile, faults = params.get("profile", "default"), str(params.get("faults", "none"))
        return DataSource(root, "simulated", f"wearbench.sim profile {profile}", sha256(raw), files, faults)
    src = manifest.get("source", {})
    name = src.get("name", "unknown") if isinstance(src, dict) else str(src)
    return DataSource(root, "real", f"imported with loader {name}", sha256(raw), files)


def family_runs(source: DataSource, families: Iterable[str], pm_pd_run: str) -> dict[str, str]:
    """``{family: run id}``: :data:`TWIN` for PM and PD of a faulted simulation, else :data:`FOLDER`.

    Raises:
        WearbenchError: For a ``pm_pd_run`` not in :data:`PM_PD_RUNS`.
    """
    if pm_pd_run not in PM_PD_RUNS:
        raise WearbenchError(f"pm_pd_run {pm_pd_run!r}: unknown; valid: {', '.join(PM_PD_RUNS)}")
    twin = pm_pd_run == "normal" and source.kind == "simulated" and source.faults != "none"
    return {f: TWIN if twin and f in TWIN_FAMILIES else FOLDER for f in families}


@dataclass(frozen=True, eq=False)
class RunRecords:
    """The records one or more families are asked about.

    Attributes:
        run: :data:`FOLDER` or :data:`TWIN`.
        records: Whole records by subject.
        contexts: Folder of this run's context files inside the benchmark.
        complete_end: Whether a window must end on a complete day (real data).
        bases: Each subject's benchmark window (:func:`record_window`).
        cut: Each record cut to its window.
    """

    run: str
    records: Mapping[str, PatientRecord]
    contexts: str
    complete_end: bool
    bases: dict[str, Window] = field(init=False)
    cut: dict[str, PatientRecord] = field(init=False)

    def __post_init__(self) -> None:
        bases = {s: record_window(r, complete_end=self.complete_end) for s, r in self.records.items()}
        object.__setattr__(self, "bases", bases)
        object.__setattr__(self, "cut", {s: bases[s].cut(r) for s, r in self.records.items()})


def load_runs(
    source: DataSource, runs: Mapping[str, str], rerun: Iterable[str], note: Note | None
) -> dict[str, RunRecords]:
    """The records of the folder (always) and of its twin (when a family asks for it).

    Args:
        source: The data folder.
        runs: ``{family: run id}`` (:func:`family_runs`).
        rerun: Run ids whose records need their ``rerun`` (the counterfactual templates); the
            twin always has it.
        note: Optional callback given one line when a slow step starts and ends.

    Raises:
        WearbenchError: If the folder cannot be read or re-simulated, or its twin cannot be
            simulated or differs from it (with a hint).
    """
    real = source.kind == "real"
    folder = read_with_rerun(source.path, FOLDER in set(rerun), note)
    out = {FOLDER: RunRecords(FOLDER, {r.subject: r for r in folder}, CONTEXTS, real)}
    if TWIN in runs.values():
        twin = _read_twin(source.path, folder, note)
        out[TWIN] = RunRecords(TWIN, {r.subject: r for r in twin}, TWIN_CONTEXTS, real)
    return out


def _read_twin(folder: Path, records: Sequence[PatientRecord], note: Note | None) -> list[PatientRecord]:
    if note:
        note(f"simulating the fault-free twin of {folder} for the PM and PD templates")
    start = time.perf_counter()
    try:
        twin = read_twin(folder)
    except WearbenchError as e:
        raise WearbenchError(
            f"{e}. Hint: build PM and PD from the folder itself (--pm-pd-run same), or simulate the "
            "folder again with this wearbench version"
        ) from e
    check_twin(folder, records, twin)
    if note:
        note(f"simulated the twin's {len(twin)} patient(s) in {time.perf_counter() - start:.1f} s")
    return twin


def read_with_rerun(folder: Path, rerun: bool, note: Note | None) -> list[PatientRecord]:
    """:func:`read_records` of a folder, re-simulated when ``rerun`` (with notes and a hint).

    Raises:
        WearbenchError: From :func:`read_records`; a folder that cannot be re-simulated gets a
            hint on how to build or verify without the counterfactual templates.
    """
    if not rerun:
        return read_records(folder)
    if note:
        note(f"re-simulating {folder} for the counterfactual templates")
    start = time.perf_counter()
    try:
        records = read_records(folder, rerun=True)
    except WearbenchError as e:
        raise WearbenchError(
            f"{e}. Hint: simulate the folder again with this wearbench version (the same `wearbench "
            "cgm simulate --profile …` options), or build without the counterfactual templates "
            "(--families ad,pm)"
        ) from e
    if note:
        note(f"re-simulated {len(records)} patient(s) in {time.perf_counter() - start:.1f} s")
    return records


def prefetch_with_notes(asked: Sequence[tuple[list[PatientRecord], list[str]]], note: Note | None) -> None:
    """Run the counterfactuals of ``(records, template ids)`` pairs in shared batches, with notes."""
    start = time.perf_counter()
    if note:
        note("running the counterfactual re-simulations the templates ask for")
    for records, ids in asked:
        prefetch_counterfactuals(records, ids)
    if note:
        note(f"ran the counterfactuals in {time.perf_counter() - start:.1f} s")


def needs_rerun(family: str) -> bool:
    """Whether a template of ``family`` needs a counterfactual re-simulation."""
    return any("counterfactual" in t.needs for t in templates(family))


def counterfactual_entry(run: RunRecords, items: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The manifest's ``counterfactuals``: which run those answers came from, and how many items."""
    engines = sorted({r.rerun.engine for r in run.records.values() if r.rerun is not None})
    needing = {t.id for t in templates() if "counterfactual" in t.needs}
    return {
        "source": RERUN_SOURCES[run.run],
        "run": run.run,
        "engine": ",".join(engines),
        "wearbench_version": __version__,
        "checkpoint_every_min": CHECKPOINT_EVERY,
        "items": sum(1 for i in items if i["template"] in needing),
    }


def twin_entry(run: RunRecords) -> dict[str, Any]:
    """The manifest's ``twin``: how it was made, and its readings' sha256 (``verify`` checks it)."""
    engines = sorted({r.rerun.engine for r in run.records.values() if r.rerun is not None})
    return {
        "source": TWIN_SOURCE,
        "faults": "none",
        "engine": ",".join(engines),
        "wearbench_version": __version__,
        "readings_sha256": readings_sha256(run.records.values()),
        "contexts": TWIN_CONTEXTS,
    }


def check_twin_hash(run: RunRecords, recorded: Mapping[str, Any]) -> None:
    """Raise unless the re-simulated twin's readings hash to the one recorded at build time.

    Raises:
        WearbenchError: One line naming both hashes.
    """
    got, want = readings_sha256(run.records.values()), recorded.get("readings_sha256")
    if got != want:
        raise WearbenchError(
            f"the fault-free twin re-simulated to other readings (sha256 {got[:12]}…, {str(want)[:12]}… "
            "recorded at build time); the simulator or its engine changed since the build"
        )
