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
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.minutes import CHANNEL_NAMES
from wearbench.runner import TrackRecord, read_track_folder
from wearbench.scoring._skill import SkillErrors, binary_error
from wearbench.scoring._skill_boot import SkillResult, forecast_scopes, score_skill
from wearbench.scoring._skill_outcome import score_outcome_records
from wearbench.scoring._skill_tracks import CHANNEL_CATEGORY, score_imputation_records
from wearbench.scoring._track_json import channel_breakdown, finish_track_json
from wearbench.tracks import (
    FORECAST_RESULTS_KIND,
    OUTCOME_REFERENCE,
    OUTCOME_RESULTS_KIND,
    RESULTS_KIND,
    ForecastError,
    ImputationError,
    OutcomePrediction,
    read_forecast_results,
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


def score_forecast_records(
    manifest: Mapping[str, Any],
    errors: Sequence[ForecastError],
    baseline: str = FORECAST_BASELINE,
    *,
    seed: int = 0,
    n_boot: int = 1000,
) -> dict[str, Any]:
    """The ``track score`` JSON of a forecasting run's manifest and error rows (folder or store).

    Returns:
        The track score JSON (kind ``openmhc-forecast``, breakdown ``by_channel``).

    Raises:
        WearbenchError: For no errors or an unknown baseline.
    """
    out = forecast_skill(errors, baseline, seed=seed, n_boot=n_boot).to_dict()
    return finish_track_json(out, manifest, {"by_channel": channel_breakdown(errors)}, seed)


def score_forecast_results(
    path: str | os.PathLike[str], baseline: str = FORECAST_BASELINE, *, seed: int = 0, n_boot: int = 1000
) -> dict[str, Any]:
    """Score a forecasting RESULTS folder (``wearbench track forecast``): the ``track score`` JSON.

    Returns:
        ``{"kind": "openmhc-forecast", "track": "forecast", "run_id", "baseline", "level",
        "n_boot", "n", "n_participants", "ci_method", "scopes", "methods": {method: {scope:
        {"skill", "ci_low", "ci_high", "rank"}}}, "breakdowns": {"by_channel": …},
        "results_sha256", "seed"}`` (NaN → None).

    Raises:
        WearbenchError: For an unreadable folder or an unknown baseline.
    """
    manifest, errors = read_forecast_results(path)
    return score_forecast_records(manifest, errors, baseline, seed=seed, n_boot=n_boot)


def default_baseline(kind: object) -> str:
    """The reference method of a track kind (``locf``, ``seasonal_naive`` or ``linear``)."""
    if kind == OUTCOME_RESULTS_KIND:
        return OUTCOME_REFERENCE
    return FORECAST_BASELINE if kind == FORECAST_RESULTS_KIND else IMPUTATION_BASELINE


def score_track_records(
    manifest: Mapping[str, Any],
    records: Sequence[TrackRecord],
    baseline: str | None = None,
    *,
    seed: int = 0,
    n_boot: int = 1000,
) -> dict[str, Any]:
    """The ``track score`` JSON of any track run's manifest and records, chosen by its ``kind``.

    Args:
        manifest: The RESULTS manifest (from the folder or a run store).
        records: Its records, in results-file order.
        baseline: Reference method; None = the track's (``locf`` / ``seasonal_naive`` / ``linear``).
        seed: Seed of the participant-draw matrix.
        n_boot: Bootstrap replicates.

    Raises:
        WearbenchError: For an unknown kind or baseline.
    """
    kind = manifest.get("kind")
    ref = baseline or default_baseline(kind)
    if kind == OUTCOME_RESULTS_KIND:
        preds = [r for r in records if isinstance(r, OutcomePrediction)]
        return score_outcome_records(manifest, preds, ref, seed=seed, n_boot=n_boot)
    if kind == FORECAST_RESULTS_KIND:
        errs = [r for r in records if isinstance(r, ForecastError)]
        return score_forecast_records(manifest, errs, ref, seed=seed, n_boot=n_boot)
    if kind == RESULTS_KIND:
        imp = [r for r in records if isinstance(r, ImputationError)]
        return score_imputation_records(manifest, imp, ref, seed=seed, n_boot=n_boot)
    raise WearbenchError(f"not track results (kind {kind!r})")


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
        The track score JSON (:data:`~wearbench.scoring.TRACK_SCORE_JSON_SCHEMA`), as
        :func:`score_track_records`.
    """
    manifest, records = read_track_folder(path)
    return score_track_records(manifest, records, baseline, seed=seed, n_boot=n_boot)
