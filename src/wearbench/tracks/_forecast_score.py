"""Per-participant forecasting errors, as the seed scores them (seed 004, Track 3).

Only observed target hours are scored. Per participant and channel, pooled over all their windows:
continuous channels (0–6) give the MAE ``sum |y_hat - y| / count``; binary channels (7–18) the ROC
AUC of the forecast score against the observed 0/1 truth, dropped when that participant's truth is
single-class. The skill module (``wearbench.scoring``) aggregates the :class:`ForecastError` rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from wearbench.minutes import BINARY, CONTINUOUS, N_CHANNELS
from wearbench.tracks._impute_score import auroc

FloatArray = NDArray[np.floating[Any]]


@dataclass(frozen=True)
class ForecastError:
    """One participant's error on one channel for one forecasting method.

    Attributes:
        method: Forecasting method name (``"seasonal_naive"`` …).
        participant: Participant id.
        channel: Channel index 0–18 (seed order).
        kind: ``"mae"`` (continuous) or ``"auroc"`` (binary).
        value: MAE in the channel's hourly unit (per-hour sums, HR bpm) pooled over the observed
            target hours of all the participant's windows; or the ROC AUC over them.
        n_hours: Observed target hours scored.
    """

    method: str
    participant: str
    channel: int
    kind: Literal["mae", "auroc"]
    value: float
    n_hours: int

    @property
    def error(self) -> float:
        """The unfloored error: the MAE, or ``1 - AUROC``."""
        return self.value if self.kind == "mae" else 1.0 - self.value


def score_forecast(
    target: FloatArray, forecast: FloatArray, participants: NDArray[Any], *, method: str
) -> list[ForecastError]:
    """Score one method's forecasts per participant and channel.

    Args:
        target: ``(N, H, 19)`` truth, NaN = unobserved (not scored).
        forecast: ``(N, H, 19)`` forecasts, finite at every observed target hour.
        participants: ``(N,)`` participant id per window; errors pool each one's windows.
        method: Method name recorded in the rows.

    Returns:
        Rows for participants in sorted order, channels ascending.

    Raises:
        ValueError: On mismatched shapes or a non-finite forecast at an observed target hour.
    """
    y = np.asarray(target, dtype=np.float64)
    f = np.asarray(forecast, dtype=np.float64)
    ids = np.asarray(participants)
    if y.shape != f.shape or y.ndim != 3 or y.shape[2] != N_CHANNELS or ids.shape != y.shape[:1]:
        raise ValueError(
            f"target {y.shape} and forecast {f.shape} must be (N, H, {N_CHANNELS}), ids (N,); got {ids.shape}"
        )
    obs = np.isfinite(y)
    if not np.isfinite(f[obs]).all():
        raise ValueError(f"method {method}: non-finite forecast at an observed target hour")
    out: list[ForecastError] = []
    for p in np.unique(ids):
        rows = ids == p
        yp, fp, op = y[rows], f[rows], obs[rows]
        for c in CONTINUOUS:
            sel = op[..., c]
            n = int(sel.sum())
            if n:
                mae = float(np.abs(fp[..., c][sel] - yp[..., c][sel]).sum() / n)
                out.append(ForecastError(method, str(p), c, "mae", mae, n))
        for c in BINARY:
            sel = op[..., c]
            truth = yp[..., c][sel] > 0.5
            if 0 < truth.sum() < truth.size:
                out.append(
                    ForecastError(method, str(p), c, "auroc", auroc(truth, fp[..., c][sel]), int(truth.size))
                )
    return out
