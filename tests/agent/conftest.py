from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench.agent import Sandbox


def make_frame() -> pd.DataFrame:
    index = pd.date_range("2024-01-01", periods=10, freq="D", name="date")
    return pd.DataFrame(
        {"steps": np.arange(10, dtype=float) * 1000.0, "resting_hr": 60.0 + np.arange(10, dtype=float)},
        index=index,
    )


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return make_frame()


@pytest.fixture(scope="module")
def sandbox(frame: pd.DataFrame) -> Iterator[Sandbox]:
    """One worker shared by a module's tests that do not kill it (state is not relied upon)."""
    with Sandbox(frame) as sb:
        yield sb


def pid_namespace(pid: int) -> int:
    """Inode of the PID namespace of host process ``pid``."""
    return os.stat(f"/proc/{pid}/ns/pid").st_ino


def processes_in(namespace: int) -> list[int]:
    """Host pids of the live (not zombie) processes in a PID namespace, from a scan of ``/proc``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.stat(entry / "ns" / "pid").st_ino != namespace:
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.append(int(entry.name))
    return sorted(found)
