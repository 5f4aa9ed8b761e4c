"""The one score JSON of the OpenMHC tracks (``wearbench track score --format json``).

Every track kind (imputation, forecasting, outcome prediction) gives the same shape, the shape of
``wearbench score --format json`` (:data:`~wearbench.scoring.SCORE_JSON_SCHEMA`) as far as it fits:
``kind`` (``openmhc-imputation``, ``openmhc-forecast``, ``openmhc-outcome``), ``run_id`` (the
track run id of the RESULTS manifest, as the run store keys it), ``n`` (participants scored),
``ci_method`` (``participant_bootstrap``) and ``breakdowns``; beside them the skill keys of
:meth:`~wearbench.scoring.SkillResult.to_dict`: ``baseline``, ``level``, ``n_boot``,
``n_participants``, ``scopes`` and ``methods[method][scope] = {skill, ci_low, ci_high, rank}``,
plus ``track``, ``seed`` and ``results_sha256``. Breakdowns: ``by_channel[method][channel] =
{metric, value, n}`` (imputation and forecasting: the mean MAE or AUROC over the records of that
method and channel, ``n`` the records) or ``by_task[method][task] = {metric, value, n, domain}``
(outcome: the task metric on the whole test cohort, ``n`` the test participants in the task).
:data:`TRACK_SCORE_JSON_SCHEMA` states it; :func:`check_track_score_json` checks it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from wearbench.minutes import CHANNEL_NAMES
from wearbench.runner import track_run_id
from wearbench.scoring._schema import _check
from wearbench.tracks import (
    FORECAST_RESULTS_KIND,
    OUTCOME_RESULTS_KIND,
    RESULTS_KIND,
    ForecastError,
    ImputationError,
    OutcomePrediction,
    OutcomeTask,
)

#: Manifest kind → the score JSON's ``kind`` and ``track``.
TRACK_SCORE_KINDS: dict[str, tuple[str, str]] = {
    RESULTS_KIND: ("openmhc-imputation", "imputation"),
    FORECAST_RESULTS_KIND: ("openmhc-forecast", "forecast"),
    OUTCOME_RESULTS_KIND: ("openmhc-outcome", "outcome"),
}

_NUM: dict[str, Any] = {"type": ["number", "null"]}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}
_CELL: dict[str, Any] = {
    "type": "object",
    "required": ["skill", "ci_low", "ci_high", "rank"],
    "properties": {"skill": _NUM, "ci_low": _NUM, "ci_high": _NUM, "rank": _NUM},
}
_GROUP: dict[str, Any] = {
    "type": "object",
    "required": ["metric", "value", "n"],
    "properties": {"metric": {"type": "string"}, "value": _NUM, "n": _COUNT, "domain": {"type": "string"}},
}

#: The score JSON of one track RESULTS folder (any of the three kinds).
TRACK_SCORE_JSON_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "wearbench track score",
    "type": "object",
    "required": [
        *("kind", "track", "run_id", "baseline", "level", "n_boot", "n", "n_participants", "ci_method"),
        *("scopes", "methods", "breakdowns", "seed", "results_sha256"),
    ],
    "properties": {
        "kind": {"enum": [k for k, _ in TRACK_SCORE_KINDS.values()]},
        "track": {"enum": [t for _, t in TRACK_SCORE_KINDS.values()]},
        "run_id": {"type": "string"},
        "baseline": {"type": "string"},
        "level": {"type": "number", "minimum": 0, "maximum": 1},
        "n_boot": _COUNT,
        "n": _COUNT,
        "n_participants": _COUNT,
        "ci_method": {"enum": ["participant_bootstrap"]},
        "scopes": {"type": "array", "items": {"type": "string"}},
        "methods": {
            "type": "object",
            "additionalProperties": {"type": "object", "additionalProperties": _CELL},
        },
        "breakdowns": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "additionalProperties": {"type": "object", "additionalProperties": _GROUP},
            },
        },
        "seed": _COUNT,
        "results_sha256": {"type": ["string", "null"]},
    },
}


def check_track_score_json(result: Mapping[str, Any]) -> None:
    """Check one track score JSON against :data:`TRACK_SCORE_JSON_SCHEMA`.

    Raises:
        ValueError: Naming the first key path that breaks the schema (``$.methods.locf.Overall:
            missing rank``).
    """
    _check(dict(result), TRACK_SCORE_JSON_SCHEMA, "$")


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def channel_breakdown(
    records: Iterable[ImputationError | ForecastError],
) -> dict[str, dict[str, dict[str, Any]]]:
    """``by_channel[method][channel name] = {metric, value, n}``: mean MAE / AUROC over the records.

    Args:
        records: Imputation or forecasting error records (one per participant × channel, and
            approach for imputation).

    Returns:
        Methods in first-seen order; channels in index order; ``value`` None if not finite.
    """
    sums: dict[str, dict[int, tuple[str, list[float]]]] = {}
    for r in records:
        sums.setdefault(r.method, {}).setdefault(r.channel, (r.kind, []))[1].append(r.value)
    return {
        m: {
            CHANNEL_NAMES[c]: {"metric": kind, "value": _finite(sum(v) / len(v)), "n": len(v)}
            for c, (kind, v) in sorted(chans.items())
        }
        for m, chans in sums.items()
    }


def task_breakdown(
    preds: Iterable[OutcomePrediction],
    metrics: Mapping[str, Mapping[str, float]],
    tasks: Mapping[str, OutcomeTask],
) -> dict[str, dict[str, dict[str, Any]]]:
    """``by_task[method][task] = {metric, value, n, domain}`` of an outcome run.

    Args:
        preds: The run's predictions (``n`` counts them per method and task).
        metrics: ``metrics[method][task]`` on the whole test cohort.
        tasks: Task definitions (metric name, domain).
    """
    counts: dict[tuple[str, str], int] = {}
    for p in preds:
        counts[p.method, p.task] = counts.get((p.method, p.task), 0) + 1
    return {
        m: {
            t: {
                "metric": tasks[t].metric,
                "value": _finite(v),
                "n": counts.get((m, t), 0),
                "domain": tasks[t].domain,
            }
            for t, v in ts.items()
        }
        for m, ts in metrics.items()
    }


def finish_track_json(
    out: dict[str, Any], manifest: Mapping[str, Any], breakdowns: dict[str, Any], seed: int
) -> dict[str, Any]:
    """Add the common keys to a :meth:`SkillResult.to_dict` of a track run (in place; returned).

    Args:
        out: The skill dict.
        manifest: The RESULTS manifest (its ``kind``, ``results.sha256``, and the run id's hash).
        breakdowns: ``{"by_channel": …}`` or ``{"by_task": …}``.
        seed: Seed of the bootstrap draws.
    """
    kind, track = TRACK_SCORE_KINDS[str(manifest.get("kind"))]
    out["kind"] = kind
    out["track"] = track
    out["run_id"] = track_run_id(manifest)
    out["n"] = out["n_participants"]
    out["ci_method"] = "participant_bootstrap"
    out["breakdowns"] = breakdowns
    out["seed"] = seed
    out["results_sha256"] = manifest.get("results", {}).get("sha256")
    return out
