"""Day-to-day persistence: a stationary AR(1) state per user and metric.

A persistent metric's standardised day-to-day deviation is::

    s[t] = phi * s[t - 1] + sqrt(1 - phi**2) * w[t],        s[0] = w[0]

with ``w`` its standardised innovation (own noise plus planted drivers, see
:mod:`._couplings`) and ``phi`` the user's coefficient. For unit-variance ``w`` the state
starts in, and keeps, its stationary distribution: unit variance on every day, so a
metric's marginal day-to-day SD is the same for every ``phi`` and lag-1 autocorrelation
is ``phi``.
"""

from __future__ import annotations

import numpy as np

from wearbench.sources.synthetic._config import FloatArray


def ar1(w: FloatArray, phi: FloatArray) -> FloatArray:
    """Stationary AR(1) filter along days, one coefficient per row.

    Vectorised over rows; a loop over days (each step one operation on all rows), so
    the cost is linear in rows × days.

    Args:
        w: ``(rows, days)`` innovations (unit variance for a unit-variance state).
        phi: ``(rows,)`` coefficients in ``[0, 1)``.

    Returns:
        ``(rows, days)`` state ``s`` with ``s[:, 0] = w[:, 0]``.

    Raises:
        ValueError: If the shapes disagree or a coefficient is outside ``[0, 1)``.
    """
    if w.ndim != 2 or phi.shape != (w.shape[0],):
        raise ValueError(f"w must be (rows, days) and phi (rows,), got {w.shape} and {phi.shape}")
    if phi.size and not (phi.min() >= 0.0 and phi.max() < 1.0):
        raise ValueError(f"phi must lie in [0, 1), got {phi.min()} … {phi.max()}")
    state = np.ascontiguousarray(w.T) * np.sqrt(1.0 - phi**2)  # (days, rows): one row per step
    if state.shape[0]:
        state[0] = w[:, 0]
    for t in range(1, state.shape[0]):
        state[t] += phi * state[t - 1]
    out: FloatArray = np.ascontiguousarray(state.T)
    return out
