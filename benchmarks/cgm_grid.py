"""What the 5-minute grid (``cgm import --grid 5``) does to each shared real CGM dataset.

For each dataset the loader runs once; then :func:`wearbench.cgm.resample_cgm` puts the readings
on the 5-minute grid with several interpolation limits (``max_gap``, minutes). Printed per run:
readings in, grid points out, points taken from a reading, points interpolated, readings merged
(a nearer reading shared their grid point), gaps kept and the grid points they leave absent,
full days with 288 points, and the resampling time (CPU seconds, ``time.process_time``).
The step sizes between consecutive readings (minutes, rounded) are printed too, since they decide
what the interpolation limit does. The numbers in ``docs/cgm-sources.md`` come from this script.

Run: ``python benchmarks/cgm_grid.py`` (about 20 s), ``--data PATH`` for the shared data folder.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from wearbench.cgm import CGMData, resample_cgm
from wearbench.cgm.sources import import_cgm

DATASETS = (
    ("dexcom-clarity", "cgm_dexcom_clarity/test_file.csv"),
    ("hall2018", "cgm_hall2018"),
    ("d1namo", "cgm_d1namo"),
    ("shanghai", "shanghai"),
    ("t1d-uom", "t1d_uom"),
)
GAPS = (0, 15, 20, 30, 45)


def steps(data: CGMData) -> str:
    """The five most common steps between readings, ``minutes: share``."""
    r = data.readings
    step = r.groupby("subject_id")["time"].diff().dt.total_seconds().div(60).round().dropna()
    share = step.value_counts(normalize=True).head(5)
    return ", ".join(f"{int(k)} min {v:.1%}" for k, v in share.items())


def full_days(readings: pd.DataFrame) -> int:
    """Subject-days with all 288 grid points."""
    per_day = readings.groupby(["subject_id", readings["time"].dt.date]).size()
    return int((per_day == 288).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).resolve().parents[1].parent / "shared" / "data"
    parser.add_argument("--data", type=Path, default=default, help="The shared real-data folder.")
    args = parser.parse_args()
    head = f"{'max_gap':>7} {'points':>8} {'reading':>8} {'interp':>7} {'merged':>7} {'gaps':>6} "
    head += f"{'absent':>7} {'288-days':>8} {'cpu s':>6}"
    for name, rel in DATASETS:
        path = args.data / rel
        if not path.exists():
            print(f"{name}: {path} not found, skipped")
            continue
        data, _ = import_cgm(name, path)
        n = f"{len(data.subjects)} subject(s), {len(data.readings)} readings"
        print(f"\n{name}: {n}; steps: {steps(data)}")
        print(head)
        for gap in GAPS:
            t0 = time.process_time()
            grid, rep = resample_cgm(data, 5, max_gap=gap)
            cpu = time.process_time() - t0
            print(
                f"{gap:>7} {rep['grid_points']:>8} {rep['from_reading']:>8} {rep['interpolated']:>7} "
                f"{rep['merged']:>7} {rep['gaps']:>6} {rep['gap_points']:>7} {full_days(grid.readings):>8} "
                f"{cpu:>6.2f}"
            )


if __name__ == "__main__":
    main()
