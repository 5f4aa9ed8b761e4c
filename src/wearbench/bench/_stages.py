"""A build's executor tasks: chunks of consecutive users, scanned, then generated.

Stage 1 (:func:`scan`) runs, per chunk, the pool's window statistics and the types' cohort
summaries (:class:`~wearbench.bench._pool.PoolPart`). :func:`null_part` runs, per *null group*
of :data:`NULL_GROUP_USERS` consecutive users, the cross-user null test of every pattern family
(:class:`NullPart`; it needs no pool, so the workers run it while the client merges the pool).
Stage 2 (:func:`generate`) runs, per chunk, the question types on each user with the merged
pool, returning packed items and each user's stored context (:class:`ChunkResult`).
Chunks and groups are cut from the sorted user list, never from the executor's workers, so a
build's bytes do not depend on where its tasks ran.

The null test pairs users within a group (every group of a cohort of at most
:data:`NULL_GROUP_USERS` users is the whole cohort, as before chunking); the families' counts
are pooled over groups (:func:`pooled_null`). Group 0 draws from the stream a whole-cohort test
used, so a build of up to 256 users is byte-identical to one made before chunking.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from wearbench._errors import WearbenchError
from wearbench.bench._generate import UserTask, generate_user, stable_rng
from wearbench.bench._packed import Packed, pack
from wearbench.bench._pool import PoolPart, pool_part
from wearbench.cohort import Cohort, CohortShards, ReferenceResolver, UserContext, contexts_from_cohort
from wearbench.questions import CohortPool, QuestionType

#: Users per generation task (small enough to spread 200 users over the workers).
CHUNK_USERS = 8
#: Users per null-test group (a cohort up to this size is tested as one group).
NULL_GROUP_USERS = 256
#: Counts a family's null result must carry to be pooled over groups.
_COUNTS = ("windows", "passes", "hits", "tested")


@dataclass(frozen=True)
class Users:
    """Consecutive users of a build: their contexts (an in-memory cohort) or only their ids.

    Attributes:
        index: Position of the chunk (or null group) in the build.
        user_ids: The users, in sorted order.
        contexts: Their contexts without a resolver (the shared one is attached in the worker);
            empty when the build reads users from a sharded cohort (``Shared.source``).
    """

    index: int
    user_ids: tuple[str, ...]
    contexts: tuple[UserContext, ...] = ()


@dataclass(frozen=True)
class Shared:
    """What every task of a build needs, shipped to each worker once (``map_shared``).

    ``pool_users``: the users whose windows enter the pool's means and slopes (``None``: all).
    """

    types: tuple[QuestionType, ...]
    seed: int
    resolver: ReferenceResolver | None
    pool: CohortPool | None = None
    source: CohortShards | None = None
    pool_users: frozenset[str] | None = None


@dataclass(frozen=True)
class NullTask:
    """The null test of one question type on one group of users (stage 2)."""

    users: Users
    type_index: int


@dataclass
class NullPart:
    """One group's null results: family → ``{"null", "observed", "fdr", counts}``."""

    group: int
    families: dict[str, dict[str, float]] = field(default_factory=dict)


@dataclass
class ChunkResult:
    """Packed items, drop reasons and stored contexts (gzip JSON bytes) of one chunk."""

    items: list[Packed] = field(default_factory=list)
    drops: Counter[str] = field(default_factory=Counter)
    contexts: dict[str, bytes] = field(default_factory=dict)


#: The tables a chunk takes its users' rows from.
_TABLES = ("daily", "demographics", "blood")


@dataclass(frozen=True)
class _Read:
    """A shard as read and checked, with each table's row positions per user."""

    cohort: Cohort
    rows: dict[str, dict[str, np.ndarray]]


#: This worker process's last shards read, ``(folder, content hash, shard) -> shard``.
_SHARDS: dict[tuple[str, str, int], _Read] = {}
#: Shards a worker keeps (consecutive chunks mostly share one).
_KEEP_SHARDS = 2


def _shard(source: CohortShards, k: int) -> _Read:
    key = (str(source.path), source.content_hash, k)
    if key not in _SHARDS:
        while len(_SHARDS) >= _KEEP_SHARDS:
            _SHARDS.pop(next(iter(_SHARDS)))
        cohort = source.load_users(source.shard_users[k])
        rows = {t: dict(getattr(cohort, t).groupby("user_id", sort=False).indices) for t in _TABLES}
        _SHARDS[key] = _Read(cohort, rows)
    return _SHARDS[key]


def read_users(source: CohortShards, users: Sequence[str]) -> Cohort:
    """These users of a cohort folder, each shard read (and checked) once per worker process.

    A chunk's rows are taken from the cached shard by position, in the shard's row order.
    """
    firsts = [s[0] if s else "" for s in source.shard_users]
    shards = sorted({bisect.bisect_right(firsts, u) - 1 for u in users})
    if not shards or shards[0] < 0:
        return source.load_users(users)  # raises, naming the unknown user
    parts = [_shard(source, k) for k in shards]
    wanted = sorted(set(users))

    def cut(name: str) -> pd.DataFrame:
        pieces: list[pd.DataFrame] = []
        for part in parts:
            at = [part.rows[name][u] for u in wanted if u in part.rows[name]]
            if at:
                pieces.append(getattr(part.cohort, name).take(np.sort(np.concatenate(at))))
        empty: pd.DataFrame = getattr(parts[0].cohort, name).iloc[0:0]
        return pd.concat(pieces, ignore_index=True) if pieces else empty.reset_index(drop=True)

    known = {u for p in parts for u in p.rows["demographics"]} | {u for p in parts for u in p.rows["daily"]}
    if not set(wanted) <= known:
        return source.load_users(users)  # raises, naming the unknown user
    return Cohort(
        daily=cut("daily"),
        demographics=cut("demographics"),
        blood=cut("blood"),
        reference=parts[0].cohort.reference,
        source=parts[0].cohort.source,
    )


def contexts_of(shared: Shared, users: Users) -> list[UserContext]:
    """The chunk's contexts, each with the build's shared resolver."""
    if users.contexts:
        return [replace(c, resolver=shared.resolver) for c in users.contexts]
    if shared.source is None:
        raise ValueError(f"chunk {users.index} has neither contexts nor a source")
    cohort = read_users(shared.source, users.user_ids)
    return list(contexts_from_cohort(cohort, resolver=shared.resolver).values())


def null_rng(seed: int, type_name: str, group: int) -> np.random.Generator:
    """The null test's stream for one type and group (group 0: the whole-cohort stream)."""
    keys = ("null-test", type_name) if group == 0 else ("null-test", type_name, f"group-{group}")
    return stable_rng(seed, *keys)


def scan(shared: Shared, users: Users) -> PoolPart:
    """Stage 1 of a build: a chunk's pool part."""
    with threadpool_limits(limits=1):
        return pool_part(contexts_of(shared, users), types=shared.types, window_users=shared.pool_users)


def null_part(shared: Shared, task: NullTask) -> NullPart:
    """The null results of one question type on one group of users (one BLAS thread)."""
    with threadpool_limits(limits=1):
        return _null_part(shared, task)


def _null_part(shared: Shared, task: NullTask) -> NullPart:
    contexts = contexts_of(shared, task.users)
    part = NullPart(task.users.index)
    qt = shared.types[task.type_index]  # a population-grounded type without null statistics raises
    for family, v in qt.null_statistics(contexts, null_rng(shared.seed, qt.name, task.users.index)).items():
        part.families[family] = {k: float(x) for k, x in v.items()}
    return part


def null_types(types: Sequence[QuestionType]) -> list[int]:
    """Positions of the types with a null test (population-grounded, or defining the hook)."""
    base = QuestionType.null_statistics
    return [
        i
        for i, qt in enumerate(types)
        if qt.labels.grounding == "population" or type(qt).null_statistics is not base
    ]


def generate(shared: Shared, task: Users) -> ChunkResult:
    """Stage 2 of a build: every type on every user of a chunk.

    One BLAS/OpenMP thread per task: the executor already runs a task per core, the arrays are
    small, and a thread pool per worker on a busy machine made small products 20x slower.
    """
    with threadpool_limits(limits=1):
        return _generate(shared, task)


def _generate(shared: Shared, task: Users) -> ChunkResult:
    if shared.pool is None:
        raise ValueError("generation needs the merged pool")
    out = ChunkResult()
    for ctx in contexts_of(shared, task):
        result = generate_user(UserTask(ctx, shared.types, shared.seed, shared.pool))
        out.items += [pack(p) for p in result.items]
        out.drops.update(result.drops)
        out.contexts[ctx.user_id] = ctx.dump()
    return out


def pooled_null(parts: Sequence[NullPart]) -> dict[str, dict[str, float]]:
    """Family → ``{"null", "observed", "fdr"}`` pooled over the null groups.

    ``observed`` = passes / windows and ``null`` = (hits + 1) / (tested + 1) over the summed
    counts; one group's values are taken as they are.

    Raises:
        WearbenchError: A family of several groups has no counts (a type's own null hook).
    """
    by_family: dict[str, list[Mapping[str, float]]] = {}
    for part in sorted(parts, key=lambda p: p.group):
        for family, v in part.families.items():
            by_family.setdefault(family, []).append(v)
    out: dict[str, dict[str, float]] = {}
    for family, values in by_family.items():
        if len(values) == 1:
            observed, null = float(values[0]["observed"]), float(values[0]["null"])
        elif all(all(k in v for k in _COUNTS) for v in values):
            n = {k: sum(int(v[k]) for v in values) for k in _COUNTS}
            observed = n["passes"] / max(n["windows"], 1)
            null = (n["hits"] + 1) / (n["tested"] + 1)
        else:
            raise WearbenchError(
                f"pattern family {family}: null results without counts {_COUNTS} cannot be pooled over "
                f"{len(values)} groups of {NULL_GROUP_USERS} users"
            )
        out[family] = {
            "null": null,
            "observed": observed,
            "fdr": null / observed if observed > 0 else float("inf"),
        }
    return out


def pool_sample(user_ids: Sequence[str], size: int, seed: int) -> frozenset[str] | None:
    """The users whose windows make the pool: ``size`` of them drawn (seeded), or all (``None``).

    The pool only supplies distractor magnitudes (its quantiles), so a sample of users keeps
    what each worker receives, and each item's work on it, from growing with the cohort.
    """
    if size < 1:
        raise ValueError(f"pool_users must be >= 1, got {size}")
    if len(user_ids) <= size:
        return None
    picked = stable_rng(seed, "pool-users").choice(len(user_ids), size=size, replace=False)
    return frozenset(user_ids[int(i)] for i in picked)


def chunks(user_ids: Sequence[str], size: int) -> list[tuple[str, ...]]:
    """Consecutive runs of ``size`` users (the last may be shorter)."""
    return [tuple(user_ids[i : i + size]) for i in range(0, len(user_ids), size)]
