"""Accuracy with a Wilson score interval (bottom layer: bench audits and scoring both use it)."""

from __future__ import annotations

import math
from dataclasses import dataclass


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion ``k / n``.

    Args:
        k: Successes (0 ≤ k ≤ n).
        n: Trials (≥ 0). With ``n == 0`` the interval is the whole ``[0, 1]``.
        z: Standard-normal quantile (1.96 for a 95% interval).

    Returns:
        ``(lo, hi)`` with ``0 ≤ lo ≤ k/n ≤ hi ≤ 1``.

    Raises:
        ValueError: If ``n < 0``, ``k`` is outside ``[0, n]`` or ``z <= 0``.
    """
    if n < 0 or not 0 <= k <= max(n, 0):
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if not z > 0:
        raise ValueError(f"z must be > 0, got {z}")
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return lo, hi


@dataclass(frozen=True)
class Accuracy:
    """Correct out of total with its 95% Wilson interval.

    Attributes:
        k: Correct answers.
        n: Questions.
        lo: Lower end of the interval.
        hi: Upper end of the interval.
    """

    k: int
    n: int
    lo: float
    hi: float

    @property
    def value(self) -> float:
        """``k / n`` (NaN when ``n == 0``)."""
        return self.k / self.n if self.n else math.nan

    def __str__(self) -> str:
        if not self.n:
            return "n/a (0 items)"
        return f"{self.value:.3f} [95% CI {self.lo:.3f}-{self.hi:.3f}] ({self.k}/{self.n})"

    def to_dict(self) -> dict[str, float | int | None]:
        """JSON-ready ``{"k", "n", "accuracy", "lo", "hi"}`` (accuracy None when n is 0)."""
        return {
            "k": self.k,
            "n": self.n,
            "accuracy": self.value if self.n else None,
            "lo": self.lo,
            "hi": self.hi,
        }


def accuracy(k: int, n: int, z: float = 1.96) -> Accuracy:
    """:class:`Accuracy` of ``k`` correct out of ``n`` with its Wilson interval."""
    lo, hi = wilson_interval(k, n, z)
    return Accuracy(k, n, lo, hi)
