"""The outcome track's hand-crafted XGBoost features of one participant, and of many.

:func:`participant_features` concatenates three families in a fixed order (:data:`FEATURE_NAMES`,
the same for every participant; a feature that cannot be computed is NaN, never missing):

1. daily descriptors aggregated over days (:data:`~wearbench.tracks.DESCRIPTOR_NAMES` × P5,
   median, P95, IQR);
2. day-to-day dynamics and cross-correlations (:data:`~wearbench.tracks.DYNAMICS_NAMES`);
3. curve features: HR cosinor, HR-over-steps, interdaily stability
   (:data:`~wearbench.tracks.CURVE_NAMES`).

The seed's FPCA scores need a population fit: :class:`~wearbench.tracks.CurveFPCA` on
:func:`~wearbench.tracks.mean_profiles` of the training users, appended by the caller.
Formulas and units: ``docs/openmhc-features.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wearbench.tracks._features_curve import CURVE_NAMES, curve_features
from wearbench.tracks._features_daily import AGGREGATE_NAMES, aggregate_days, daily_descriptors
from wearbench.tracks._features_dynamics import DYNAMICS_NAMES, dynamics_features

FloatArray = NDArray[np.floating[Any]]

#: Feature families and their names, in :data:`FEATURE_NAMES` order.
FEATURE_FAMILIES: dict[str, tuple[str, ...]] = {
    "daily": AGGREGATE_NAMES,
    "dynamics": DYNAMICS_NAMES,
    "curve": CURVE_NAMES,
}
FEATURE_NAMES: tuple[str, ...] = tuple(n for names in FEATURE_FAMILIES.values() for n in names)
N_FEATURES = len(FEATURE_NAMES)  #: 252 + 266 + 13 = 531


def participant_features(
    days: FloatArray, dates: NDArray[np.datetime64]
) -> tuple[NDArray[np.float64], list[str]]:
    """Hand-crafted features of one participant's retained days.

    Args:
        days: ``(n, 19, 1440)`` retained, zero-to-NaN'd minute days (NaN = unobserved), e.g.
            :attr:`PreparedUser.days` or a window of it; ``n`` may be 0.
        dates: ``(n,)`` ``datetime64[D]`` dates of those days, strictly increasing.

    Returns:
        ``(values, names)``: ``(N_FEATURES,)`` float64 (NaN allowed) and :data:`FEATURE_NAMES`.

    Raises:
        ValueError: Wrong shapes, or dates not strictly increasing.
    """
    d = np.asarray(days)
    t = np.asarray(dates, dtype="datetime64[D]")
    if t.shape != (d.shape[0],):
        raise ValueError(f"dates must have shape ({d.shape[0]},) to match days {d.shape}; got {t.shape}")
    desc = daily_descriptors(d)
    values = np.concatenate([aggregate_days(desc), dynamics_features(desc, t), curve_features(d)])
    return values, list(FEATURE_NAMES)


def feature_matrix(
    participants: Iterable[tuple[FloatArray, NDArray[np.datetime64]]],
) -> tuple[NDArray[np.float64], list[str]]:
    """:func:`participant_features` of many participants, stacked.

    Args:
        participants: ``(days, dates)`` pairs, one per participant (any iterable; consumed once).

    Returns:
        ``(X, names)``: ``(n_participants, N_FEATURES)`` float64 and :data:`FEATURE_NAMES`.
    """
    rows = [participant_features(days, dates)[0] for days, dates in participants]
    x = np.stack(rows) if rows else np.empty((0, N_FEATURES))
    return x, list(FEATURE_NAMES)
