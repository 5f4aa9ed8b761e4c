"""``wearbench track run --config FILE.yaml``: a whole OpenMHC track grid, resumable.

The grid is tracks × data folders × seeds; each cell runs every method of its track (and, for
outcome prediction, every task) into one RESULTS folder ``ROOT/<track>/<data name>/seed-<k>``, so
a cell holds its reference method and scores on its own. Beside the RESULTS files a cell writes
``grid-cell.json``: its settings (track, data path and content hash, seed, methods, tasks,
options) and their SHA-256. A cell whose folder has ``manifest.json`` and a ``grid-cell.json``
with the same hash is skipped (its files are not touched); any changed setting (a method, a task,
an option, the data's content) gives another hash, and only that cell runs again. Every cell is
recorded in ``ROOT/runs.sqlite`` (adding a recorded run adds nothing). :func:`run_track_grid`
returns a :class:`GridSummary`; the command writes its table and one report page over the cells.

Config (YAML; relative paths are taken from the config file's folder)::

    root: grid-out                 # output root (required)
    data: [cohort-a, cohort-b]     # minute-cohort folder(s) (required; one string or a list)
    seeds: [0, 1]                  # default [0]
    tracks:                        # at least one of impute, forecast, predict
      impute:   {methods: [locf, mean], options: {approaches: [random_noise], max_days_per_user: 3}}
      forecast: {methods: [seasonal_naive, linear], options: {horizon: 24}}
      predict:  {methods: [linear], tasks: [high_ldl, sex]}

The track's reference method (locf, seasonal_naive, linear) is added first when a method list
lacks it: the skill score needs it in the same RESULTS folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench.executors import Executor
from wearbench.minutes import read_minute_manifest
from wearbench.runner._store import RunStore
from wearbench.tracks import RUN_MANIFEST, run_forecast, run_imputation, run_predict

#: The marker file of a finished grid cell.
CELL_FILE = "grid-cell.json"
_TOP_KEYS = ("root", "data", "seeds", "tracks")
_TRACK_KEYS = ("methods", "tasks", "options")
#: Options each track accepts (keyword arguments of its run function), with their types.
TRACK_OPTIONS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "impute": {"test_share": float, "approaches": list, "max_days_per_user": int, "limit_users": int},
    "forecast": {"test_share": float, "horizon": int, "history": int, "max_origins": int, "limit_users": int},
    "predict": {"test_share": float, "limit_users": int},
}
#: Reference method per track.
TRACK_REFERENCES = {"impute": "locf", "forecast": "seasonal_naive", "predict": "linear"}


@dataclass(frozen=True)
class TrackSpec:
    """One track of a grid: its methods, tasks (outcome prediction only) and options."""

    track: str
    methods: tuple[str, ...]
    tasks: tuple[str, ...] | None
    options: dict[str, Any]


@dataclass(frozen=True)
class GridConfig:
    """A parsed grid config (:func:`load_grid_config`).

    Attributes:
        root: Output root.
        data: Minute-cohort folders.
        seeds: Seeds (each fixes a cell's split, masks / origins).
        tracks: The tracks to run, in config order.
    """

    root: Path
    data: tuple[Path, ...]
    seeds: tuple[int, ...]
    tracks: tuple[TrackSpec, ...]


@dataclass(frozen=True)
class GridCell:
    """One cell of a grid run.

    Attributes:
        track: ``impute``, ``forecast`` or ``predict``.
        data: The minute-cohort folder.
        seed: The seed.
        folder: Its RESULTS folder.
        status: ``ran`` or ``skipped`` (finished before, same settings).
        seconds: Wall seconds this call spent on it (0 when skipped).
        rows: Records in its results file.
        run_id: Its track run id in ``ROOT/runs.sqlite``.
    """

    track: str
    data: Path
    seed: int
    folder: Path
    status: str
    seconds: float
    rows: int
    run_id: str


@dataclass
class GridSummary:
    """The cells of a grid run, in run order."""

    config: GridConfig
    cells: list[GridCell] = field(default_factory=list)

    def table(self) -> str:
        """A plain-text table: one line per cell (track, data, seed, status, rows, seconds, folder)."""
        head = f"{'track':<9} {'data':<16} {'seed':>4} {'status':<8} {'rows':>6} {'seconds':>8}  folder"
        lines = [head]
        lines += [
            f"{c.track:<9} {c.data.name:<16} {c.seed:>4} {c.status:<8} {c.rows:>6} {c.seconds:>8.1f}  "
            f"{c.folder}"
            for c in self.cells
        ]
        ran = sum(c.status == "ran" for c in self.cells)
        lines.append(f"{len(self.cells)} cells: {ran} ran, {len(self.cells) - ran} skipped")
        return "\n".join(lines) + "\n"


def _bad(where: str, key: str, what: str) -> WearbenchError:
    return WearbenchError(f"{where}: {key}: {what}")


def _names(value: Any, where: str, key: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise _bad(where, key, f"expected a non-empty list of names, got {value!r}")
    return tuple(value)


def _unknown(doc: Mapping[str, Any], allowed: tuple[str, ...], where: str, prefix: str) -> None:
    extra = [k for k in doc if k not in allowed]
    if extra:
        raise _bad(where, prefix + str(extra[0]), f"unknown key (allowed: {', '.join(allowed)})")


def _track(name: str, doc: Any, where: str) -> TrackSpec:
    key = f"tracks.{name}"
    if name not in TRACK_OPTIONS:
        raise _bad(where, key, f"unknown track (allowed: {', '.join(TRACK_OPTIONS)})")
    if not isinstance(doc, dict):
        raise _bad(where, key, f"expected a mapping with methods, got {doc!r}")
    _unknown(doc, _TRACK_KEYS, where, key + ".")
    if "methods" not in doc:
        raise _bad(where, key + ".methods", "missing")
    methods = _names(doc["methods"], where, key + ".methods")
    ref = TRACK_REFERENCES[name]
    methods = methods if ref in methods else (ref, *methods)
    tasks = None
    if "tasks" in doc:
        if name != "predict":
            raise _bad(where, key + ".tasks", "only the predict track has tasks")
        tasks = _names(doc["tasks"], where, key + ".tasks")
    options = doc.get("options") or {}
    if not isinstance(options, dict):
        raise _bad(where, key + ".options", f"expected a mapping, got {options!r}")
    allowed = TRACK_OPTIONS[name]
    _unknown(options, tuple(allowed), where, key + ".options.")
    for k, v in options.items():
        ok = isinstance(v, allowed[k]) and not isinstance(v, bool)
        if allowed[k] is float and isinstance(v, int) and not isinstance(v, bool):
            ok = True
        if not ok:
            raise _bad(
                where,
                f"{key}.options.{k}",
                f"expected {getattr(allowed[k], '__name__', allowed[k])}, got {v!r}",
            )
    return TrackSpec(name, methods, tasks, dict(options))


def parse_grid_config(doc: Any, base: Path, where: str = "grid config") -> GridConfig:
    """A :class:`GridConfig` from a parsed YAML document.

    Args:
        doc: The document (a mapping).
        base: Folder relative paths are taken from.
        where: Named in errors (the file).

    Raises:
        WearbenchError: Naming the key (``tracks.forecast.methods``) of the first bad entry.
    """
    if not isinstance(doc, dict):
        raise WearbenchError(f"{where}: expected a mapping with root, data, tracks")
    _unknown(doc, _TOP_KEYS, where, "")
    for key in ("root", "data", "tracks"):
        if key not in doc:
            raise _bad(where, key, "missing")
    if not isinstance(doc["root"], str) or not doc["root"]:
        raise _bad(where, "root", f"expected a folder, got {doc['root']!r}")
    data = tuple(base / p for p in _names(doc["data"], where, "data"))
    if len({p.name for p in data}) != len(data):
        raise _bad(where, "data", "two data folders share a name (cells are named after it)")
    seeds = doc.get("seeds", [0])
    seeds = [seeds] if isinstance(seeds, int) else seeds
    if not isinstance(seeds, list) or not seeds or not all(type(s) is int and s >= 0 for s in seeds):
        raise _bad(where, "seeds", f"expected a list of integers >= 0, got {doc.get('seeds')!r}")
    tracks = doc["tracks"]
    if not isinstance(tracks, dict) or not tracks:
        raise _bad(where, "tracks", "expected a mapping of impute / forecast / predict")
    specs = tuple(_track(str(k), v, where) for k, v in tracks.items())
    return GridConfig(base / doc["root"], data, tuple(dict.fromkeys(seeds)), specs)


def load_grid_config(path: str | os.PathLike[str]) -> GridConfig:
    """Read a grid config YAML file (relative paths from its folder).

    Raises:
        WearbenchError: For an unreadable file, bad YAML, or a bad key (named).
    """
    import yaml  # type: ignore[import-untyped]  # lazy: importing wearbench stays fast and silent

    file = Path(path)
    try:
        doc = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise WearbenchError(f"{file}: cannot read the grid config ({e})") from e
    return parse_grid_config(doc, file.parent, str(file))


def cell_settings(spec: TrackSpec, data: Path, seed: int) -> dict[str, Any]:
    """A cell's settings (hashed into ``grid-cell.json``): everything its results depend on."""
    return {
        "track": spec.track,
        "data": str(data.resolve()),
        "data_hash": read_minute_manifest(data).get("content_hash"),
        "seed": seed,
        "methods": list(spec.methods),
        "tasks": None if spec.tasks is None else list(spec.tasks),
        "options": spec.options,
    }


def _hash(settings: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def is_finished(folder: Path, settings_hash: str) -> bool:
    """Whether ``folder`` holds a finished cell of these settings (manifest + matching marker)."""
    if not (folder / RUN_MANIFEST).is_file():
        return False
    try:
        marker = json.loads((folder / CELL_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(marker, dict) and marker.get("sha256") == settings_hash


def _run_cell(
    spec: TrackSpec, data: Path, seed: int, folder: Path, executor: Executor | None
) -> dict[str, Any]:
    o = spec.options
    if spec.track == "impute":
        return run_imputation(data, spec.methods, folder, seed, **o, executor=executor)
    if spec.track == "forecast":
        return run_forecast(data, spec.methods, folder, seed, **o, executor=executor)
    return run_predict(data, spec.methods, folder, seed, spec.tasks, **o, executor=executor)


def run_track_grid(
    config: GridConfig | str | os.PathLike[str],
    *,
    progress: Callable[[GridCell], None] | None = None,
    executor: Executor | None = None,
) -> GridSummary:
    """Run every cell of a track grid that is not finished yet; record each in ``ROOT/runs.sqlite``.

    Args:
        config: A :class:`GridConfig`, or the path of its YAML file.
        progress: Called with each cell once it is done (ran or skipped).
        executor: Where each cell's per-user work runs (:mod:`wearbench.executors`; default
            serial); a cell's results, and whether it counts as finished, do not depend on it.

    Returns:
        The :class:`GridSummary` (cells in order: tracks, then data folders, then seeds).

    Raises:
        WearbenchError: For a bad config (the key named) or a cell that fails (its folder named).
    """
    cfg = config if isinstance(config, GridConfig) else load_grid_config(config)
    summary = GridSummary(cfg)
    with RunStore(cfg.root) as store:
        for spec in cfg.tracks:
            for data in cfg.data:
                for seed in cfg.seeds:
                    cell = _cell(spec, data, seed, cfg.root, store, executor)
                    summary.cells.append(cell)
                    if progress is not None:
                        progress(cell)
    return summary


def _cell(
    spec: TrackSpec, data: Path, seed: int, root: Path, store: RunStore, executor: Executor | None
) -> GridCell:
    folder = root / spec.track / data.name / f"seed-{seed}"
    settings = cell_settings(spec, data, seed)
    digest = _hash(settings)
    status, t0 = "skipped", time.perf_counter()
    if not is_finished(folder, digest):
        status = "ran"
        (folder / CELL_FILE).unlink(missing_ok=True)
        try:
            _run_cell(spec, data, seed, folder, executor)
        except WearbenchError as e:
            raise WearbenchError(f"grid cell {folder}: {e}") from e
        text = json.dumps({"settings": settings, "sha256": digest}, sort_keys=True, indent=2) + "\n"
        (folder / CELL_FILE).write_text(text, encoding="utf-8")
    seconds = time.perf_counter() - t0 if status == "ran" else 0.0
    run_id, _ = store.add_track_results(folder)
    rows = int(json.loads((folder / RUN_MANIFEST).read_text(encoding="utf-8"))["results"]["rows"])
    return GridCell(spec.track, data, seed, folder, status, seconds, rows, run_id)
