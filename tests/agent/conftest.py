from __future__ import annotations

from collections.abc import Iterator

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
