"""`wearbench build`: cohort → WearableQA-style benchmark artifact."""

from __future__ import annotations

import contextlib
import logging
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd
from threadpoolctl import threadpool_limits

from wearbench._errors import WearbenchError
from wearbench._folder import check_target
from wearbench._version import __version__
from wearbench.bench._artifact import MANIFEST, write_artifact_lines
from wearbench.bench._assemble import assemble
from wearbench.bench._balance import balance, order_key
from wearbench.bench._datasheet import build_stats, reference_stats_from, render_datasheet
from wearbench.bench._generate import Pending, type_instances
from wearbench.bench._official_mix import match_official as official_mix
from wearbench.bench._packed import OptionInterner, Packed, item_line
from wearbench.bench._pool import merge_pool
from wearbench.bench._prior import prior_audit
from wearbench.bench._shortcut import shortcut_audit
from wearbench.bench._stages import (
    CHUNK_USERS,
    NULL_GROUP_USERS,
    NullTask,
    Shared,
    Users,
    chunks,
    generate,
    null_part,
    null_types,
    pool_sample,
    pooled_null,
    read_users,
    scan,
)
from wearbench.cohort import (
    REFERENCED_METRICS,
    Cohort,
    CohortShards,
    ReferenceResolver,
    UserContext,
    content_hash,
    contexts_from_cohort,
    open_cohort,
)
from wearbench.executors import Executor, LocalExecutor
from wearbench.questions import QuestionType

_log = logging.getLogger(__name__)

#: Users whose windows make the cohort pool (a seeded sample of a larger cohort).
POOL_USERS = 1000
#: Largest empirical FDR (null / observed prevalence) a population pattern family may have.
MAX_FDR = 0.20


@dataclass(frozen=True)
class BuildResult:
    """What :func:`build_benchmark` wrote: folder, item count, statistics and manifest."""

    out: Path
    n_items: int
    stats: Mapping[str, Any]
    manifest: Mapping[str, Any]


def _cap(pending: list[Pending], max_per_type: int | None, seed: int) -> list[Pending]:
    if max_per_type is None:
        return pending
    by_type: dict[str, list[Pending]] = defaultdict(list)
    for p in pending:
        by_type[p.type].append(p)
    return [p for ps in by_type.values() for p in sorted(ps, key=lambda p: order_key(seed, p))[:max_per_type]]


@dataclass(frozen=True)
class _Plan:
    """A build's users cut into chunks and null groups, and what identifies the cohort."""

    chunks: list[Users]
    groups: list[Users]
    resolver: ReferenceResolver
    cohort_hash: str
    cohort_source: Mapping[str, Any]
    source: CohortShards | None = None
    pool_users: int = POOL_USERS


def _strip(ctx: UserContext) -> UserContext:
    return replace(ctx, resolver=None)


def _in_memory(cohort: Cohort, chunk_users: int) -> _Plan:
    contexts = contexts_from_cohort(cohort)
    users = list(contexts)
    resolver = next(iter(contexts.values())).resolver if contexts else None
    if resolver is None:
        resolver = ReferenceResolver.from_cohort(cohort, REFERENCED_METRICS)

    def cut(size: int) -> list[Users]:
        return [
            Users(i, ids, tuple(_strip(contexts[u]) for u in ids))
            for i, ids in enumerate(chunks(users, size))
        ]

    return _Plan(cut(chunk_users), cut(NULL_GROUP_USERS), resolver, content_hash(cohort), dict(cohort.source))


def _from_folder(path: Path, chunk_users: int) -> _Plan:
    """A plan whose tasks read their users from the folder (a single-file folder is one shard)."""
    source = open_cohort(path)
    users = list(source.users)

    def daily_of(ids: Sequence[str]) -> Iterator[pd.DataFrame]:
        for part in chunks(list(ids), NULL_GROUP_USERS):
            yield read_users(source, part).daily

    resolver = ReferenceResolver.from_tables(
        source.source, source.reference, source.demographics(), daily_of, REFERENCED_METRICS
    )

    def cut(size: int) -> list[Users]:
        return [Users(i, ids) for i, ids in enumerate(chunks(users, size))]

    return _Plan(
        cut(chunk_users), cut(NULL_GROUP_USERS), resolver, source.content_hash, dict(source.source), source
    )


def _plan(cohort: Cohort | str | Path, chunk_users: int, pool_users: int) -> _Plan:
    for name, value in (("chunk_users", chunk_users), ("pool_users", pool_users)):
        if value < 1:
            raise ValueError(f"{name} must be >= 1, got {value}")
    if isinstance(cohort, Cohort):
        return replace(_in_memory(cohort, chunk_users), pool_users=pool_users)
    return replace(_from_folder(Path(cohort), chunk_users), pool_users=pool_users)


@dataclass
class _Generated:
    pending: list[Packed]
    drops: Counter[str]
    contexts: dict[str, bytes]
    null_fdr: dict[str, dict[str, float]]


def _run(
    plan: _Plan,
    types: tuple[QuestionType, ...],
    seed: int,
    executor: Executor,
    progress: Callable[[int, int], None] | None,
) -> _Generated:
    """The pool parts, the null tests and the generation on the executor.

    The scans are submitted first and the null tests after them, so the workers run the null
    tests while this process merges the pool (strongest_pair's calibration); the generation
    tasks follow as soon as the pool exists. The pool's windows are those of ``plan.pool_users``
    users drawn from the cohort (all of a smaller cohort).
    """
    users = [u for c in plan.chunks for u in c.user_ids]
    sample = pool_sample(users, plan.pool_users, seed)
    shared = Shared(types, seed, plan.resolver, source=plan.source, pool_users=sample)
    t0 = time.perf_counter()
    parts = executor.map_shared(scan, shared, plan.chunks)
    nulls = executor.map_shared(
        null_part, shared, [NullTask(g, t) for g in plan.groups for t in null_types(types)]
    )
    pool = merge_pool(list(parts), types)
    _log.info("pool from %d chunks in %.1f s", len(plan.chunks), time.perf_counter() - t0)
    t0 = time.perf_counter()
    out = _Generated([], Counter(), {}, {})
    total, done = sum(len(c.user_ids) for c in plan.chunks), 0
    intern = OptionInterner()  # one copy of each repeated option text, claim and label set
    for result in executor.map_shared(generate, replace(shared, pool=pool), plan.chunks):
        out.pending += [intern(p) for p in result.items]
        out.drops.update(result.drops)
        out.contexts.update(result.contexts)
        done += len(result.contexts)
        if progress:
            progress(done, total)
    out.null_fdr = pooled_null(list(nulls))
    _log.info(
        "null tests and generation: %d pending items from %d chunks in %.1f s",
        len(out.pending),
        len(plan.chunks),
        time.perf_counter() - t0,
    )
    return out


def _select(
    gen: _Generated, seed: int, max_per_type: int | None, match_official: bool
) -> tuple[list[Pending], dict[str, Any] | None]:
    """The null test's verdicts, balancing, the per-type cap and the official mix; drops counted."""
    rejected = {fam for fam, v in gen.null_fdr.items() if v["fdr"] > MAX_FDR}
    for p in gen.pending:
        if p.grounding_ref in rejected:
            gen.drops[f"{p.type}: pattern family {p.grounding_ref} failed the null test"] += 1
    pending: list[Pending] = [p for p in gen.pending if p.grounding_ref not in rejected]
    pending = _cap(balance(pending, seed, gen.drops), max_per_type, seed)
    if not match_official:
        return pending, None
    return official_mix(pending, seed)


def _finish(
    plan: _Plan,
    gen: _Generated,
    qts: tuple[QuestionType, ...],
    seed: int,
    max_per_type: int | None,
    match_official: bool,
    out: Path,
) -> BuildResult:
    """Select, letter, audit and write the items (in this process: their memory grows with the items)."""
    t0 = time.perf_counter()
    pending, mix = _select(gen, seed, max_per_type, match_official)
    items = assemble(pending, seed)
    packed = {p.id: p for p in pending if isinstance(p, Packed)}
    refs = reference_stats_from([(i.type, packed[i.id].cells) for i in items])
    stats = build_stats(items, gen.drops, gen.null_fdr, tuple(qt.name for qt in qts), references=refs)
    if not items:
        n_users = sum(len(c.user_ids) for c in plan.chunks)
        raise WearbenchError(f"0 items from {n_users} users, nothing written to {out}: " + _why(stats))
    if mix is not None:
        stats["match_official"] = mix
    stats["shortcut_audit"] = shortcut_audit(items, seed=seed).to_dict()
    stats["prior_audit"] = prior_audit(items, seed=seed).to_dict()
    manifest = _manifest(plan, qts, seed, max_per_type, stats)
    users = {i.user_id for i in items}
    write_artifact_lines(
        out,
        (item_line(i, packed[i.id]) for i in items),
        {u: b for u, b in gen.contexts.items() if u in users},
        manifest,
        render_datasheet(stats, manifest),
    )
    _log.info("selection, audits and writing %d items in %.1f s", len(items), time.perf_counter() - t0)
    return BuildResult(out, len(items), stats, manifest)


def _why(stats: Mapping[str, Any]) -> str:
    """The top drop reason of each type with 0 items, ``"; "``-joined (one line)."""
    zero = stats["zero_items"]
    return "; ".join(f"{t}: {r[0][0]} ({r[0][1]:,})" for t, r in zero.items()) or "no question type requested"


def _manifest(
    plan: _Plan,
    types: Sequence[QuestionType],
    seed: int,
    max_per_type: int | None,
    stats: Mapping[str, Any],
) -> dict[str, Any]:
    manifest: dict[str, Any] = {
        "wearbench_version": __version__,
        "seed": seed,
        "cohort_hash": plan.cohort_hash,
        "cohort_source": dict(plan.cohort_source),
        "types": {qt.name: qt.version for qt in types},
        "max_per_type": max_per_type,
        "pool_users": plan.pool_users,
        "counts": {k: stats[k] for k in ("n_items", "n_users", "by_type", "by_label")},
    }
    if "match_official" in stats:
        mix = stats["match_official"]
        manifest["match_official"] = {k: mix[k] for k in ("n_before", "n_after", "target", "achieved")}
    manifest["specs"] = {qt.name: qt.spec() for qt in types}  # every constructor parameter's value
    return manifest


def build_benchmark(
    cohort: Cohort | str | Path,
    out: str | Path,
    *,
    types: Sequence[str | QuestionType] | None = None,
    max_per_type: int | None = None,
    seed: int = 0,
    workers: int = 1,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
    match_official: bool = False,
    chunk_users: int = CHUNK_USERS,
    pool_users: int = POOL_USERS,
) -> BuildResult:
    """Generate, gate, letter and write a benchmark from a cohort.

    Args:
        cohort: A cohort or its folder.
        out: Benchmark folder to write.
        types: Question types to build, by name (default parameters) or as configured instances,
            e.g. ``Trend(no_trend_share=0.1)`` (default: every registered type, defaults); the
            manifest's ``specs`` records every type's parameters.
        max_per_type: Keep at most this many items per type (a seeded, user-spread selection).
        seed: Seed; with the same cohort it fixes every output byte.
        workers: Local worker processes (ignored when ``executor`` is given).
        executor: Where per-user work runs (default: :class:`LocalExecutor`).
        progress: Optional ``(users_done, users_total)`` callback, called after each chunk.
        match_official: Subsample the balanced items (seeded) to the official label proportions
            (data/health, single/cross, literature/population; see
            :func:`wearbench.bench._official_mix.match_official`); the achieved shares are in
            ``stats["match_official"]`` and the datasheet.
        chunk_users: Users per generation task (the artifact does not depend on it).
        pool_users: Users (drawn with ``seed``) whose windows make the cohort pool that
            distractor magnitudes come from; a cohort of at most this many users uses all. The
            cap keeps what every worker receives, and each item's work, flat as cohorts grow.

    A cohort *folder* is not loaded by this process: the tasks read their users from it (each
    worker reads and checks a shard once; a single-file folder is one shard), and only the
    chunks' packed items and stored contexts come back. Store a large cohort in shards
    (``save_cohort(..., shard_users=N)``) so that no worker holds all of it (see
    ``docs/scale-out.md``). A ``Cohort`` object is turned into contexts here and shipped.

    Raises:
        WearbenchError: No item survived; the message gives each type's top drop reason (e.g.
            ``TYPE: user has N days, fewer than the M the type needs``) and nothing is written.
    """
    check_target(Path(out), "benchmark", MANIFEST)  # refuse a foreign folder before any work
    plan = _plan(cohort, chunk_users, pool_users)
    qts = type_instances(types)
    with contextlib.ExitStack() as stack:
        ex = executor or LocalExecutor(workers)
        if isinstance(ex, contextlib.AbstractContextManager):
            stack.enter_context(ex)  # one connection / cluster for both stages
        gen = _run(plan, qts, seed, ex, progress)
        with threadpool_limits(limits=1):  # small arrays; see stages.generate()
            return _finish(plan, gen, qts, seed, max_per_type, match_official, Path(out))
