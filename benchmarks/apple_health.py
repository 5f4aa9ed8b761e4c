"""Apple Health loader: throughput and peak memory as the export grows; streaming vs whole tree.

For each size a synthetic user's export.xml is generated (``write_export``, 300 heart-rate
samples a day, days added until the file reaches the size), then loaded in its own
subprocess so ``ru_maxrss`` is that load's peak. ``peak RSS`` includes the interpreter and
pandas (``base`` = RSS after imports, before loading); ``growth`` = peak − base. The
streaming loader must stay nearly flat as the file grows. On the smaller sizes the same
collector is also fed from a plain ``xml.etree.ElementTree.parse`` (whole tree in memory)
for comparison; both must give the same daily table. In the same worker process, after the
load, a plain ``xml.etree.ElementTree.iterparse`` pass with ``elem.clear()`` over the same file
is timed (``iterparse MB/s``; ``speed x`` = our MB/s ÷ iterparse MB/s, > 1 means faster).
Times are CPU seconds of the worker process (``time.process_time``), so other work on a
shared machine does not distort the ratio; the load includes first-call set-up (imports done).

Run: ``python benchmarks/apple_health.py`` (10, 50, 200 MB; a few minutes on 2 cores),
``--sizes 1 5`` for other sizes, or ``--full`` to add 1 GB (needs ~5 GB free disk and ~10 min).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES_MB = (10, 50, 200)
FULL_MB = 1000
TREE_MAX_MB = 50
SAMPLES_PER_DAY = 300


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _tree_collect(path: Path, log: object) -> object:
    import xml.etree.ElementTree as ET

    from wearbench.sources.apple_health._collect import Collector

    col = Collector(path.name, log, "u", keep_all=True)  # type: ignore[arg-type]
    root = ET.parse(path).getroot()

    def walk(elem: ET.Element) -> None:
        col.start(elem.tag, dict(elem.attrib), 0)
        for child in elem:
            walk(child)
        col.end(elem.tag)

    walk(root)
    col.daily_cumulative = col.dedup.finish()
    return col


def _iterparse_seconds(path: Path) -> float:
    """Seconds of a plain ``iterparse`` + ``clear()`` pass (the speed the loader must reach)."""
    import xml.etree.ElementTree as ET

    t0 = time.process_time()
    for _, elem in ET.iterparse(path, events=("end",)):
        elem.clear()
    return time.process_time() - t0


def _growth_ratio(growth: float, stream_growth: float) -> str:
    """Tree growth ÷ stream growth; the stream's growth can be 0 MB (RSS is in whole pages)."""
    if stream_growth < 1:
        return f"{growth:.0f}/<1"
    return f"{growth / stream_growth:.0f}x"


def worker(mode: str, path: str) -> dict[str, float | str]:
    import pandas as pd

    from wearbench.sources import ImportLog
    from wearbench.sources.apple_health._load import collect, daily_frame

    base = _rss_mb()
    t0 = time.process_time()
    log = ImportLog()
    col = collect(Path(path), log) if mode == "stream" else _tree_collect(Path(path), log)
    frame = daily_frame(col)  # type: ignore[arg-type]
    seconds = time.process_time() - t0
    peak = _rss_mb()
    iterparse_s = _iterparse_seconds(Path(path)) if mode == "stream" else math.nan
    digest = hashlib.sha256(pd.util.hash_pandas_object(frame.round(6)).to_numpy().tobytes()).hexdigest()
    return {
        "seconds": seconds,
        "iterparse_seconds": iterparse_s,
        "peak_mb": peak,
        "base_mb": base,
        "days": len(frame),
        "digest": digest[:12],
    }


def run(mode: str, path: Path) -> dict[str, float | str]:
    cmd = [sys.executable, __file__, "--worker", mode, str(path)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    result: dict[str, float | str] = json.loads(out.strip().splitlines()[-1])
    return result


def generate(mb: float, folder: Path, per_day: float) -> Path:
    import wearbench
    from wearbench.sources.apple_health import write_export

    days = max(2, math.ceil(mb * 1e6 / per_day))
    cohort = wearbench.synth(n_users=1, n_days=days, seed=1, reference_users=0)
    return write_export(
        cohort, "u0001", folder / f"export_{mb:g}mb.xml", seed=1, samples_per_day=SAMPLES_PER_DAY
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--full", action="store_true", help="also 1 GB")
    parser.add_argument("--sizes", type=float, nargs="+", help="export sizes in MB (default 10 50 200)")
    args = parser.parse_args()
    sizes = tuple(args.sizes) if args.sizes else SIZES_MB
    sizes = (*sizes, FULL_MB) if args.full else sizes
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        probe = generate(40 * 160_000 / 1e6, folder, 160_000)
        per_day = probe.stat().st_size / 40
        probe.unlink()
        print(
            f"{'size MB':>8} {'mode':>7} {'days':>6} {'gen s':>6} {'load s':>7} {'MB/s':>6} "
            f"{'iterparse MB/s':>14} {'speed x':>7} {'peak RSS MB':>11} {'base MB':>8} {'growth MB':>9} "
            f"{'tree/stream':>11}"
        )
        for mb in sizes:
            t0 = time.perf_counter()
            path = generate(mb, folder, per_day)
            gen_s = time.perf_counter() - t0
            size = path.stat().st_size / 1e6
            modes = ("stream", "tree") if mb <= TREE_MAX_MB else ("stream",)
            results = {m: run(m, path) for m in modes}
            for mode, r in results.items():
                print(_row(size, mode, r, results["stream"], gen_s))
            path.unlink()


def _row(size: float, mode: str, r: dict[str, float | str], s: dict[str, float | str], gen_s: float) -> str:
    growth = float(r["peak_mb"]) - float(r["base_mb"])
    ratio = ""
    if mode == "tree":
        s_growth = float(s["peak_mb"]) - float(s["base_mb"])
        ratio = f"{float(r['peak_mb']) / float(s['peak_mb']):.1f}x/{_growth_ratio(growth, s_growth)}"
        if r["digest"] != s["digest"]:
            raise SystemExit("tree and stream loaders disagree")
    seconds = float(r["seconds"])
    it = float(r["iterparse_seconds"])
    it_rate, speed = (f"{size / it:14.1f}", f"{it / seconds:7.2f}") if math.isfinite(it) else ("", "")
    return (
        f"{size:8.0f} {mode:>7} {r['days']:>6} {gen_s:6.1f} {seconds:7.2f} {size / seconds:6.1f} "
        f"{it_rate:>14} {speed:>7} {float(r['peak_mb']):11.0f} {float(r['base_mb']):8.0f} {growth:9.0f} "
        f"{ratio:>11}"
    )


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        print(json.dumps(worker(sys.argv[2], sys.argv[3])))
    else:
        main()
