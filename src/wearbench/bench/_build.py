"""`wearbench build`: cohort → WearableQA-style benchmark artifact."""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wearbench._version import __version__
from wearbench.bench._artifact import write_artifact
from wearbench.bench._assemble import assemble
from wearbench.bench._datasheet import build_stats, render_datasheet
from wearbench.bench._executor import Executor, LocalExecutor
from wearbench.bench._generate import Pending, UserResult, UserTask, generate_user, stable_rng, type_names
from wearbench.bench._pool import build_pool
from wearbench.bench._shortcut import shortcut_audit
from wearbench.cohort import Cohort, content_hash, load_cohort
from wearbench.questions import UserContext, contexts_from_cohort, question_type

__all__ = ["MAX_ANSWER_SHARE", "MAX_FDR", "BuildResult", "build_benchmark", "class_cap"]

#: Largest share of a type's items that may have the same correct claim.
MAX_ANSWER_SHARE = 0.20
#: Largest empirical FDR (null / observed prevalence) a population pattern family may have.
MAX_FDR = 0.20


@dataclass(frozen=True)
class BuildResult:
    """What :func:`build_benchmark` wrote: folder, item count, statistics and manifest."""

    out: Path
    n_items: int
    stats: Mapping[str, Any]
    manifest: Mapping[str, Any]


def _null_fdr(
    names: Sequence[str], contexts: Sequence[UserContext], seed: int
) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name in names:
        qt = question_type(name)()
        for family, v in qt.null_statistics(contexts, stable_rng(seed, "null-test", name)).items():
            observed, null = float(v["observed"]), float(v["null"])
            fdr = null / observed if observed > 0 else float("inf")
            out[family] = {"null": null, "observed": observed, "fdr": fdr}
    return out


def _order_key(seed: int, p: Pending) -> str:
    """A seeded pseudo-random order of items, independent of generation order."""
    return hashlib.sha256(f"{seed}|{p.id}".encode()).hexdigest()


def class_cap(counts: Sequence[int], max_share: float) -> int:
    """Largest per-class cap ``c`` with ``c <= max_share * sum(min(n, c))`` over the classes.

    Capping every class at ``c`` then leaves no class above ``max_share`` of what remains.
    With fewer than ``1 / max_share`` classes no cap satisfies that, and the classes are made
    equal (cap = the smallest class).
    """
    for c in range(max(counts, default=0), 0, -1):
        if c <= max_share * sum(min(n, c) for n in counts):
            return c
    return min(counts, default=0)


def _balance_answers(
    pending: list[Pending], seed: int, max_share: float, drops: Counter[str]
) -> list[Pending]:
    """Cap each correct-answer class so that none exceeds ``max_share`` of its type's items.

    A type whose correct answers pile onto one claim (e.g. "no clear trend") teaches a
    text-only model the prior; capping every class keeps the answer distribution near flat.
    Which items are kept is a seeded choice independent of generation order.
    """
    by_type: dict[str, dict[str, list[Pending]]] = defaultdict(lambda: defaultdict(list))
    for p in pending:
        by_type[p.type][json.dumps(p.correct[1], sort_keys=True)].append(p)
    kept: list[Pending] = []
    for type_name, classes in sorted(by_type.items()):
        cap = class_cap([len(m) for m in classes.values()], max_share)
        for _, members in sorted(classes.items()):
            ordered = sorted(members, key=lambda p: _order_key(seed, p))
            kept += ordered[:cap]
            if len(ordered) > cap:
                drops[f"{type_name}: answer class over-represented (balancing)"] += len(ordered) - cap
    return kept


def _cap(pending: list[Pending], max_per_type: int | None, seed: int) -> list[Pending]:
    if max_per_type is None:
        return pending
    by_type: dict[str, list[Pending]] = defaultdict(list)
    for p in pending:
        by_type[p.type].append(p)
    return [
        p for ps in by_type.values() for p in sorted(ps, key=lambda p: _order_key(seed, p))[:max_per_type]
    ]


def _generate(
    contexts: Mapping[str, UserContext],
    names: tuple[str, ...],
    seed: int,
    executor: Executor,
    progress: Callable[[int, int], None] | None,
) -> tuple[list[Pending], Counter[str]]:
    pool = build_pool(list(contexts.values()), types=names)
    tasks = [UserTask(ctx, names, seed, pool) for ctx in contexts.values()]
    pending: list[Pending] = []
    drops: Counter[str] = Counter()
    result: UserResult
    for done, result in enumerate(executor.map(generate_user, tasks), start=1):
        pending += result.items
        drops.update(result.drops)
        if progress:
            progress(done, len(tasks))
    return pending, drops


def build_benchmark(
    cohort: Cohort | str | Path,
    out: str | Path,
    *,
    types: Sequence[str] | None = None,
    max_per_type: int | None = None,
    seed: int = 0,
    workers: int = 1,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> BuildResult:
    """Generate, gate, letter and write a benchmark from a cohort.

    Args:
        cohort: A cohort or its folder.
        out: Benchmark folder to write.
        types: Question types to build (default: every registered type).
        max_per_type: Keep at most this many items per type (a seeded, user-spread selection).
        seed: Seed; with the same cohort it fixes every output byte.
        workers: Local worker processes (ignored when ``executor`` is given).
        executor: Where per-user work runs (default: :class:`LocalExecutor`).
        progress: Optional ``(users_done, users_total)`` callback.
    """
    if not isinstance(cohort, Cohort):
        cohort = load_cohort(cohort)
    names = type_names(types)
    contexts = contexts_from_cohort(cohort)
    pending, drops = _generate(contexts, names, seed, executor or LocalExecutor(workers), progress)
    null_fdr = _null_fdr(names, list(contexts.values()), seed)
    rejected = {fam for fam, v in null_fdr.items() if v["fdr"] > MAX_FDR}
    for p in pending:
        if p.grounding_ref in rejected:
            drops[f"{p.type}: pattern family {p.grounding_ref} failed the null test"] += 1
    pending = [p for p in pending if p.grounding_ref not in rejected]
    pending = _cap(_balance_answers(pending, seed, MAX_ANSWER_SHARE, drops), max_per_type, seed)
    items = assemble(pending, seed)
    stats = build_stats(items, drops, null_fdr)
    stats["shortcut_audit"] = shortcut_audit(items, seed=seed).to_dict()
    manifest: dict[str, Any] = {
        "wearbench_version": __version__,
        "seed": seed,
        "cohort_hash": content_hash(cohort),
        "cohort_source": dict(cohort.source),
        "types": {n: question_type(n).version for n in names},
        "max_per_type": max_per_type,
        "counts": {k: stats[k] for k in ("n_items", "n_users", "by_type", "by_label")},
    }
    write_artifact(Path(out), items, contexts, manifest, render_datasheet(stats, manifest))
    return BuildResult(Path(out), len(items), stats, manifest)
