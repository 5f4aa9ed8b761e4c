"""The chat solver keeps only the context files it read last (a full benchmark's would be gigabytes)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from wearbench.runner._cgm_chat import _RecentFiles


def test_keeps_the_last_entries_in_insertion_order() -> None:
    files = _RecentFiles(3)
    for i in range(7):
        files[Path(f"f{i}")] = ([str(i)], [])
    assert list(files) == [Path("f4"), Path("f5"), Path("f6")]
    assert files[Path("f6")] == (["6"], [])


def test_concurrent_inserts_never_exceed_the_size() -> None:
    files = _RecentFiles(4)

    def put(i: int) -> int:
        files[Path(f"f{i}")] = ([], [])
        return len(files)

    with ThreadPoolExecutor(8) as pool:
        sizes = list(pool.map(put, range(500)))
    assert max(sizes) <= 4
    assert len(files) == 4
