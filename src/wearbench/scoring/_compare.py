"""Paired comparison of two runs on the items both answered: difference, bootstrap CI, McNemar."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from wearbench.questions import Item
from wearbench.runner import ResultRow
from wearbench.scoring._bootstrap import cluster_bootstrap_ci
from wearbench.scoring._breakdown import align_rows, is_correct


@dataclass(frozen=True)
class Comparison:
    """Run B against run A on the items both answered.

    Attributes:
        n: Items answered in both runs.
        n_users: Users among them.
        acc_a: Accuracy of A on those items (NaN when ``n`` is 0).
        acc_b: Accuracy of B on them.
        diff: ``acc_b - acc_a``.
        ci_low: Lower end of the per-user paired bootstrap 95% interval of ``diff``.
        ci_high: Upper end of that interval.
        a_only: Items A got right and B wrong.
        b_only: Items B got right and A wrong.
        mcnemar_p: Exact (binomial) McNemar p-value on the discordant pairs.
    """

    n: int
    n_users: int
    acc_a: float
    acc_b: float
    diff: float
    ci_low: float
    ci_high: float
    a_only: int
    b_only: int
    mcnemar_p: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (NaN → None)."""
        out: dict[str, Any] = {}
        for key, value in self.__dict__.items():
            out[key] = None if isinstance(value, float) and not math.isfinite(value) else value
        return out


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value: ``2 · P(X ≤ min)`` for ``X ~ Binomial(a_only + b_only, 1/2)``.

    Computed with exact integer arithmetic and capped at 1 (1 without discordant pairs), as
    ``statsmodels.stats.contingency_tables.mcnemar(..., exact=True)`` does.

    Raises:
        ValueError: On negative counts.
    """
    if a_only < 0 or b_only < 0:
        raise ValueError(f"discordant counts must be >= 0, got {a_only}, {b_only}")
    n, m = a_only + b_only, min(a_only, b_only)
    tail = Fraction(sum(math.comb(n, i) for i in range(m + 1)), 2**n)
    return float(min(Fraction(1), 2 * tail))


def compare_runs(
    rows_a: Iterable[ResultRow],
    rows_b: Iterable[ResultRow],
    items: Sequence[Item],
    *,
    seed: int = 0,
    n_boot: int = 2000,
) -> Comparison:
    """Paired accuracy difference (B − A) over the items both runs answered.

    Args:
        rows_a: Rows of run A.
        rows_b: Rows of run B.
        items: The benchmark's items.
        seed: Seed of the per-user paired bootstrap (users resampled with replacement).
        n_boot: Bootstrap replicates.

    Returns:
        The :class:`Comparison`.

    Raises:
        WearbenchError: If a row names an unknown item or a run has two rows for one item.
    """
    by_id = {i.id: i for i in items}
    a, b = align_rows(rows_a, by_id), align_rows(rows_b, by_id)
    shared = sorted(set(a) & set(b))
    ok_a = [is_correct(a[i], by_id[i]) for i in shared]
    ok_b = [is_correct(b[i], by_id[i]) for i in shared]
    users = [by_id[i].user_id for i in shared]
    diffs = [float(y) - float(x) for x, y in zip(ok_a, ok_b, strict=True)]
    lo, hi = cluster_bootstrap_ci(users, diffs, seed=seed, n_boot=n_boot)
    a_only = sum(x and not y for x, y in zip(ok_a, ok_b, strict=True))
    b_only = sum(y and not x for x, y in zip(ok_a, ok_b, strict=True))
    n = len(shared)
    acc_a, acc_b = (sum(ok_a) / n, sum(ok_b) / n) if n else (math.nan, math.nan)
    return Comparison(
        n=n,
        n_users=len(set(users)),
        acc_a=acc_a,
        acc_b=acc_b,
        diff=acc_b - acc_a,
        ci_low=lo,
        ci_high=hi,
        a_only=a_only,
        b_only=b_only,
        mcnemar_p=mcnemar_exact(a_only, b_only),
    )
