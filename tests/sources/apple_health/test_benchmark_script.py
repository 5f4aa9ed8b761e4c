"""``benchmarks/apple_health.py`` prints a row at every size, even when the stream grew 0 MB."""

import importlib.util
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parents[3] / "benchmarks" / "apple_health.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("apple_health_bench", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rows_when_the_stream_grows_zero_mb() -> None:
    bench = _bench()
    stream = {"seconds": 0.5, "iterparse_seconds": 1.0, "peak_mb": 224.0, "base_mb": 224.0, "days": 61}
    tree = {"seconds": 2.0, "iterparse_seconds": float("nan"), "peak_mb": 250.0, "base_mb": 224.0, "days": 61}
    stream["digest"] = tree["digest"] = "abc"
    row = bench._row(10.0, "stream", stream, stream, 0.6).split()
    assert row[4:8] == ["0.50", "20.0", "10.0", "2.00"]  # load s, MB/s, iterparse MB/s, speed x
    row = bench._row(10.0, "tree", tree, stream, 0.6).split()
    assert row[-1] == "1.1x/26/<1"  # peak ratio 250/224; growth 26 MB against < 1 MB
    assert bench._growth_ratio(26.0, 2.0) == "13x"
