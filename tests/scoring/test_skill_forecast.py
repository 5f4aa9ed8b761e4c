"""Forecasting skill: the reference scores 0 against itself, halved errors score 0.5, categories."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wearbench import WearbenchError
from wearbench.scoring import forecast_rows, forecast_skill
from wearbench.tracks import ForecastError

CONT = (0, 1, 2, 3, 4, 5, 6)
BIN = tuple(range(7, 19))


def _errors(
    method: str, scale: float, users: int = 5, sleep_scale: float | None = None
) -> list[ForecastError]:
    """Errors for every channel: MAE = (u + 1) * (c + 1) * scale, binary 1 - AUC = 0.4 * scale."""
    out = []
    for u in range(users):
        p = f"p{u}"
        out.extend(ForecastError(method, p, c, "mae", (u + 1) * (c + 1) * scale, 10) for c in CONT)
        for c in BIN:
            s = sleep_scale if sleep_scale is not None and c == 8 else scale
            out.append(ForecastError(method, p, c, "auroc", 1.0 - 0.4 * s, 10))
    return out


def test_reference_scores_exactly_zero_and_halved_errors_score_half() -> None:
    rows = _errors("seasonal_naive", 1.0) + _errors("half", 0.5) + _errors("same", 1.0)
    res = forecast_skill(rows, "seasonal_naive", seed=3, n_boot=200)
    assert res.scopes == ("Overall", "Activity", "Physiology", "Sleep", "Workout")
    for scope in res.scopes:
        ref = res.cell("seasonal_naive", scope)
        assert (ref["skill"], ref["ci_low"], ref["ci_high"]) == (0.0, 0.0, 0.0)
        half = res.cell("half", scope)
        assert half["skill"] == pytest.approx(0.5, abs=1e-12)
        assert half["ci_low"] == pytest.approx(0.5, abs=1e-12)
        assert half["ci_high"] == pytest.approx(0.5, abs=1e-12)
        assert half["rank"] == 1.0  # best on every channel of every participant
        # the reference and "same" tie everywhere: (2 + 3) / 2
        assert res.cell("same", scope)["rank"] == ref["rank"] == 2.5


def test_binary_channels_stay_separate_and_categories_balance() -> None:
    # "m": sleep:inbed error halved, sleep:asleep unchanged, everything else unchanged
    rows = _errors("seasonal_naive", 1.0) + _errors("m", 1.0, sleep_scale=0.5)
    res = forecast_skill(rows, "seasonal_naive", seed=0, n_boot=50)
    sleep = 1.0 - math.exp((math.log(0.5) + 0.0) / 2)  # mean over the two sleep channels
    overall = 1.0 - math.exp((0.0 + 0.0 + math.log(0.5) / 2 + 0.0) / 4)  # mean over four categories
    assert res.cell("m", "Sleep")["skill"] == pytest.approx(sleep)
    assert res.cell("m", "Overall")["skill"] == pytest.approx(overall)
    assert res.cell("m", "Activity")["skill"] == 0.0
    assert res.cell("m", "Workout")["skill"] == 0.0
    # rank: Sleep column = mean over its 2 channels of the per-channel mean rank: (1 + 1.5) / 2
    assert res.cell("m", "Sleep")["rank"] == 1.25


def test_rows_floor_binary_errors_and_keep_the_unfloored_rank_error() -> None:
    rows = forecast_rows(
        [ForecastError("m", "p", 9, "auroc", 1.0, 4), ForecastError("m", "p", 5, "mae", 2.5, 4)]
    )
    assert rows[0]["bucket"] == "Workout"
    assert rows[0]["error"] == 0.005
    assert rows[0]["rank_error"] == 0.0
    assert rows[1]["bucket"] == "Physiology"
    assert rows[1]["error"] == rows[1]["rank_error"] == 2.5
    assert rows[0]["approach"] == rows[1]["approach"] == "forecast"


def test_no_errors_and_unknown_baseline_raise() -> None:
    with pytest.raises(WearbenchError, match="no forecasting errors"):
        forecast_skill([], "seasonal_naive")
    with pytest.raises(WearbenchError, match="not among"):
        forecast_skill(_errors("linear", 1.0), "seasonal_naive", n_boot=5)


def test_bootstrap_is_seeded() -> None:
    rows = _errors("seasonal_naive", 1.0) + [
        ForecastError(
            "noisy", e.participant, e.channel, e.kind, e.value * (1.5 if e.participant == "p0" else 0.7), 1
        )
        if e.kind == "mae"
        else ForecastError("noisy", e.participant, e.channel, e.kind, e.value, 1)
        for e in _errors("x", 1.0)
    ]
    a = forecast_skill(rows, "seasonal_naive", seed=1, n_boot=100)
    b = forecast_skill(rows, "seasonal_naive", seed=1, n_boot=100)
    assert np.array_equal(a.boot, b.boot)
    cell = a.cell("noisy", "Activity")
    assert cell["ci_low"] < cell["skill"] < cell["ci_high"]
