"""Forecasting skill score: :class:`~wearbench.tracks.ForecastError` rows → skill, CI, rank.

Per the seed (Track 3, reference Seasonal Naive, no approach level): one task per channel, bucketed
by the channel's category; continuous error = the pooled MAE, binary error = ``max(1 - AUROC, eps)``
(rank error the unfloored ``1 - AUROC``); binary channels stay separate tasks (not collapsed).
``S = 1 - exp(mean over categories of mean over the category's channels of l^(c))``; a category
column uses that category only (:func:`~wearbench.scoring.forecast_scopes`). Ranks: per channel,
then category. One seeded ``(B, P)`` participant-draw matrix is shared by every method.

:func:`score_track_results` scores any track RESULTS folder by its manifest's ``kind``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.minutes import CHANNEL_NAMES
from wearbench.scoring._skill import SkillErrors, binary_error
from wearbench.scoring._skill_boot import SkillResult, forecast_scopes, score_skill
from wearbench.scoring._skill_outcome import score_outcome_results
from wearbench.scoring._skill_tracks import CHANNEL_CATEGORY, score_imputation_results
from wearbench.tracks import (
    FORECAST_RESULTS_KIND,
    OUTCOME_REFERENCE,
    OUTCOME_RESULTS_KIND,
    ForecastError,
    read_forecast_results,
    results_kind,
)

#: The one "approach" of forecasting tasks.
FORECAST_APPROACH = "forecast"
#: Default references per track kind.
FORECAST_BASELINE = "seasonal_naive"
IMPUTATION_BASELINE = "locf"


def forecast_rows(errors: Iterable[ForecastError], eps: float = 0.005) -> list[dict[str, object]]:
    """Long-table rows for :meth:`SkillErrors.from_rows`: one per method × channel × participant.

    Args:
        errors: Per-participant forecasting errors.
        eps: Floor of binary errors.

    Returns:
        Rows with ``approach = "forecast"``, ``bucket`` = category, ``task`` = channel name,
        ``error`` (MAE or ``max(1 - AUROC, eps)``) and ``rank_error`` (MAE or ``1 - AUROC``).
    """
    rows: list[dict[str, object]] = []
    for e in errors:
        err = e.value if e.kind == "mae" else float(binary_error(e.value, eps))
        rows.append(
            {
                "method": e.method,
                "approach": FORECAST_APPROACH,
                "bucket": CHANNEL_CATEGORY[e.channel],
                "task": CHANNEL_NAMES[e.channel],
                "participant": e.participant,
                "error": err,
                "rank_error": e.error,
            }
        )
    return rows


def forecast_skill(
    errors: Iterable[ForecastError],
    baseline: str = FORECAST_BASELINE,
    *,
    seed: int = 0,
    n_boot: int = 1000,
    eps: float = 0.005,
) -> SkillResult:
    """Skill, 95% participant-bootstrap interval and rank per method and forecasting scope.

    Args:
        errors: Per-participant forecasting errors of every method.
        baseline: Reference method (the seed: seasonal naive).
        seed: Seed of the one ``(B, P)`` participant-draw matrix every method shares.
        n_boot: ``B``.
        eps: Floor of binary errors.

    Returns:
        The :class:`SkillResult` over :func:`forecast_scopes` (Overall, Activity, Physiology,
        Sleep, Workout).

    Raises:
        WearbenchError: If there are no errors, or ``baseline`` is not among the methods.
    """
    rows = forecast_rows(errors, eps)
    if not rows:
        raise WearbenchError("no forecasting errors to score (no test user had a valid origin)")
    skill_errors = SkillErrors.from_rows(rows)
    return score_skill(
        skill_errors, baseline, forecast_scopes(), rng=np.random.default_rng(seed), n_boot=n_boot
    )


def score_forecast_results(
    path: str | os.PathLike[str], baseline: str = FORECAST_BASELINE, *, seed: int = 0, n_boot: int = 1000
) -> dict[str, Any]:
    """Score a forecasting RESULTS folder (``wearbench track forecast``): the ``track score`` JSON.

    Returns:
        ``{"track": "forecast", "baseline", "level", "n_boot", "n_participants", "scopes",
        "methods": {method: {scope: {"skill", "ci_low", "ci_high", "rank"}}}, "results_sha256",
        "seed"}`` (NaN → None).

    Raises:
        WearbenchError: For an unreadable folder or an unknown baseline.
    """
    manifest, errors = read_forecast_results(path)
    out = forecast_skill(errors, baseline, seed=seed, n_boot=n_boot).to_dict()
    out["track"] = "forecast"
    out["seed"] = seed
    out["results_sha256"] = manifest.get("results", {}).get("sha256")
    return out


def score_track_results(
    path: str | os.PathLike[str], baseline: str | None = None, *, seed: int = 0, n_boot: int = 1000
) -> dict[str, Any]:
    """Score an imputation, forecasting or outcome RESULTS folder, chosen by its manifest's ``kind``.

    Args:
        path: RESULTS folder.
        baseline: Reference method; None = the track's (``locf`` / ``seasonal_naive`` / ``linear``).
        seed: Seed of the participant-draw matrix.
        n_boot: Bootstrap replicates.

    Returns:
        The skill JSON of :func:`score_forecast_results` or ``score_imputation_results``.
    """
    kind = results_kind(path)
    if kind == OUTCOME_RESULTS_KIND:
        return score_outcome_results(path, baseline or OUTCOME_REFERENCE, seed=seed, n_boot=n_boot)
    if kind == FORECAST_RESULTS_KIND:
        return score_forecast_results(path, baseline or FORECAST_BASELINE, seed=seed, n_boot=n_boot)
    return score_imputation_results(path, baseline or IMPUTATION_BASELINE, seed=seed, n_boot=n_boot)
