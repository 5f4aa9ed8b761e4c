"""Seed streams: one independent generator per (population, component, user).

The root ``np.random.SeedSequence(seed)`` is split as a tree, exactly as nested
``SeedSequence.spawn`` calls would split it: ``root → population → component → user``.
A child is built directly from its spawn key (what ``spawn`` does internally), so
user ``i``'s stream is found in O(1) without spawning users ``0 … i-1``.

Consequences: a user's data depend only on ``(seed, population, component, user
index, n_days, start)`` — not on ``n_users``, the chunk size or other components — so
adding a component or users never reshuffles what exists.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from wearbench.sources.synthetic._config import FloatArray


class Population(IntEnum):
    """Top-level seed streams."""

    COHORT = 0
    REFERENCE = 1


class Component(IntEnum):
    """Per-user seed streams, one per generator component (append new ones at the end)."""

    TRAITS = 0
    PLAN = 1
    COUPLINGS = 2
    DAILY = 3
    DEVICE = 4
    BLOOD = 5
    MINUTES = 6


def user_rngs(
    seed: int, population: Population, component: Component, first: int, stop: int
) -> list[np.random.Generator]:
    """Independent generators for users ``first … stop-1`` of one component.

    Args:
        seed: Root seed.
        population: Benchmark cohort or reference population.
        component: Generator component.
        first: Index of the first user (0-based).
        stop: One past the last user.

    Returns:
        One ``np.random.Generator`` per user, in user order.
    """
    key = (int(population), int(component))
    return [
        np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(*key, i))) for i in range(first, stop)
    ]


def user_blocks(
    rngs: list[np.random.Generator], n_normal: int, n_uniform: int, n_days: int
) -> tuple[FloatArray, FloatArray]:
    """Draw each user's standard normals and uniforms in one call per user.

    Args:
        rngs: One generator per user.
        n_normal: Standard-normal rows per user.
        n_uniform: Uniform [0, 1) rows per user.
        n_days: Columns (days); 1 for per-user scalars.

    Returns:
        ``(normals, uniforms)`` of shapes ``(n_normal, users, n_days)`` and
        ``(n_uniform, users, n_days)``.
    """
    normals = np.stack([g.standard_normal((n_normal, n_days)) for g in rngs], axis=1)
    uniforms = np.stack([g.random((n_uniform, n_days)) for g in rngs], axis=1)
    return normals, uniforms
