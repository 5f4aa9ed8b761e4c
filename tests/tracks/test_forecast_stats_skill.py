"""Issue 16 acceptance: AutoETS beats seasonal naive on the synthetic heart-rate channel."""

from __future__ import annotations

from pathlib import Path

import pytest

from wearbench.scoring import forecast_skill
from wearbench.sources import synthesize_minutes
from wearbench.tracks import read_forecast_results, run_forecast


def test_autoets_beats_seasonal_naive_on_synthetic_heart_rate(tmp_path: Path) -> None:
    """Issue 16 acceptance: AutoETS's HR skill against seasonal naive has a CI above 0."""
    data = synthesize_minutes(30, 30, 0, tmp_path / "minutes")
    run_forecast(data, ["seasonal_naive", "autoets"], tmp_path / "res", 0, max_origins=3)
    _, errors = read_forecast_results(tmp_path / "res")
    hr = forecast_skill([e for e in errors if e.channel == 5], seed=0).to_dict()["methods"]
    got = hr["autoets"]["Physiology"]
    assert got["ci_low"] > 0.0
    assert got["skill"] == pytest.approx(0.204, abs=0.001)  # measured: 0.204 [0.110, 0.289]
    assert hr["seasonal_naive"]["Physiology"]["skill"] == 0.0
