"""``import_cgm``: run a registered CGM loader and (optionally) write the result to a folder.

Files written to ``out``: ``readings.parquet`` (subject_id, time, glucose mg/dL),
``events.parquet`` (only when the source has events), ``import_report.json`` (rows read,
subjects, readings, span, repairs and rejections with examples, notes) and ``manifest.json``
(source, params, SHA-256 of each file written, the manifest itself excluded).

With ``grid`` (minutes), the readings are resampled onto that clock grid after loading
(:func:`~wearbench.cgm.resample_cgm`); the report's reading counts are then grid points, and its
``grid`` entry says what resampling did (readings used and merged, points interpolated, gaps).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench.cgm._grid import check_grid, resample_cgm
from wearbench.cgm._record import CGMData, write_cgm_tables
from wearbench.sources import ImportLog, run_loader

REPORT_NAME = "import_report.json"
MANIFEST_NAME = "manifest.json"


def import_report(name: str, path: Path, data: CGMData, log: ImportLog) -> dict[str, Any]:
    """The JSON-ready import report of one CGM import (times ISO, local wall clock)."""
    r = data.readings
    per_subject = r.groupby("subject_id")["time"].agg(["count", "min", "max"])
    return {
        "source": name,
        "path": str(path),
        "subjects": len(per_subject),
        "readings": len(r),
        "events": 0 if data.events is None else len(data.events),
        "first_time": None if r.empty else r["time"].min().isoformat(),
        "last_time": None if r.empty else r["time"].max().isoformat(),
        "per_subject": {
            str(s): {
                "readings": int(row["count"]),
                "first": row["min"].isoformat(),
                "last": row["max"].isoformat(),
            }
            for s, row in per_subject.iterrows()
        },
        "rows_read": dict(sorted(log.rows_read.items())),
        "repairs": dict(sorted(log.repairs.items())),
        "rejections": dict(sorted(log.rejections.items())),
        "examples": {k: list(v) for k, v in sorted(log.examples.items())},
        "notes": list(log.notes),
    }


def _sha256(file: Path) -> str:
    return hashlib.sha256(file.read_bytes()).hexdigest()


def _write(data: CGMData, report: dict[str, Any], out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        events = data.events if data.events is not None and not data.events.empty else None
        written = write_cgm_tables(data.readings, events, out)
        written.append(out / REPORT_NAME)
        written[-1].write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        manifest = {
            "source": dict(data.source),
            "files": {f.name: _sha256(f) for f in written},
        }
        text = json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        (out / MANIFEST_NAME).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise WearbenchError(
            f"{out}: cannot write the CGM import ({exc.strerror or type(exc).__name__})"
        ) from None


def import_cgm(
    name: str,
    path: str | Path,
    out: str | Path | None = None,
    *,
    grid: int | None = None,
    max_gap: int = 20,
) -> tuple[CGMData, dict[str, Any]]:
    """Load ``path`` with the CGM loader ``name``; write it to ``out`` when given.

    Args:
        name: CGM loader name (``dexcom-clarity``, ``libreview``, ``nightscout``, ``t1d-uom``,
            ``d1namo``, ``shanghai``, ``hall2018``).
        path: File or folder the loader reads.
        out: Folder for readings/events parquet, ``import_report.json`` and ``manifest.json``.
        grid: Resample the readings onto a clock grid every ``grid`` minutes (5: 288 a day);
            None keeps the sensor's own times.
        max_gap: With ``grid``: longest time between two readings, minutes, across which grid
            points are interpolated (see :func:`~wearbench.cgm.resample_cgm`).

    Returns:
        The CGM data (glucose mg/dL, naive local time) and the import report dict.

    Raises:
        UnknownNameError: For an unknown loader (with close matches).
        WearbenchError: For unreadable or malformed input (one line naming file and place), or a
            grid period that does not divide a day.
    """
    if grid is not None:
        check_grid(grid, max_gap)
    path = Path(path)
    loaded, log = run_loader("cgm_loader", name, path)
    data: CGMData = loaded
    resampled = None
    if grid is not None:
        data, resampled = resample_cgm(data, grid, max_gap=max_gap)
    report = import_report(name, path, data, log)
    if resampled is not None:
        report["grid"] = resampled
    if out is not None:
        _write(data, report, Path(out))
    return data, report
