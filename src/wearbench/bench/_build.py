"""`wearbench build`: cohort → WearableQA-style benchmark artifact."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench._folder import check_target
from wearbench._version import __version__
from wearbench.bench._artifact import MANIFEST, write_artifact
from wearbench.bench._assemble import assemble
from wearbench.bench._balance import balance, order_key
from wearbench.bench._datasheet import build_stats, render_datasheet
from wearbench.bench._generate import Pending, UserResult, UserTask, generate_user, stable_rng, type_instances
from wearbench.bench._official_mix import match_official as official_mix
from wearbench.bench._pool import build_pool
from wearbench.bench._prior import prior_audit
from wearbench.bench._shortcut import shortcut_audit
from wearbench.cohort import Cohort, content_hash, load_cohort
from wearbench.executors import Executor, LocalExecutor
from wearbench.questions import QuestionType, UserContext, contexts_from_cohort

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
    types: Sequence[QuestionType], contexts: Sequence[UserContext], seed: int
) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for qt in types:  # a population-grounded type without null statistics raises here
        for family, v in qt.null_statistics(contexts, stable_rng(seed, "null-test", qt.name)).items():
            observed, null = float(v["observed"]), float(v["null"])
            fdr = null / observed if observed > 0 else float("inf")
            out[family] = {"null": null, "observed": observed, "fdr": fdr}
    return out


def _cap(pending: list[Pending], max_per_type: int | None, seed: int) -> list[Pending]:
    if max_per_type is None:
        return pending
    by_type: dict[str, list[Pending]] = defaultdict(list)
    for p in pending:
        by_type[p.type].append(p)
    return [p for ps in by_type.values() for p in sorted(ps, key=lambda p: order_key(seed, p))[:max_per_type]]


def _generate(
    contexts: Mapping[str, UserContext],
    types: tuple[QuestionType, ...],
    seed: int,
    executor: Executor,
    progress: Callable[[int, int], None] | None,
) -> tuple[list[Pending], Counter[str]]:
    pool = build_pool(list(contexts.values()), types=types)
    tasks = [UserTask(ctx, types, seed, pool) for ctx in contexts.values()]
    pending: list[Pending] = []
    drops: Counter[str] = Counter()
    result: UserResult
    for done, result in enumerate(executor.map(generate_user, tasks), start=1):
        pending += result.items
        drops.update(result.drops)
        if progress:
            progress(done, len(tasks))
    return pending, drops


def _why(stats: Mapping[str, Any]) -> str:
    """The top drop reason of each type with 0 items, ``"; "``-joined (one line)."""
    zero = stats["zero_items"]
    return "; ".join(f"{t}: {r[0][0]} ({r[0][1]:,})" for t, r in zero.items()) or "no question type requested"


def _manifest(
    cohort: Cohort,
    types: Sequence[QuestionType],
    seed: int,
    max_per_type: int | None,
    stats: Mapping[str, Any],
) -> dict[str, Any]:
    manifest: dict[str, Any] = {
        "wearbench_version": __version__,
        "seed": seed,
        "cohort_hash": content_hash(cohort),
        "cohort_source": dict(cohort.source),
        "types": {qt.name: qt.version for qt in types},
        "max_per_type": max_per_type,
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
        progress: Optional ``(users_done, users_total)`` callback.
        match_official: Subsample the balanced items (seeded) to the official label proportions
            (data/health, single/cross, literature/population; see
            :func:`wearbench.bench._official_mix.match_official`); the achieved shares are in
            ``stats["match_official"]`` and the datasheet.

    Raises:
        WearbenchError: No item survived; the message gives each type's top drop reason (e.g.
            ``TYPE: user has N days, fewer than the M the type needs``) and nothing is written.
    """
    check_target(Path(out), "benchmark", MANIFEST)  # refuse a foreign folder before any work
    if not isinstance(cohort, Cohort):
        cohort = load_cohort(cohort)
    qts = type_instances(types)
    names = tuple(qt.name for qt in qts)
    contexts = contexts_from_cohort(cohort)
    pending, drops = _generate(contexts, qts, seed, executor or LocalExecutor(workers), progress)
    null_fdr = _null_fdr(qts, list(contexts.values()), seed)
    rejected = {fam for fam, v in null_fdr.items() if v["fdr"] > MAX_FDR}
    for p in pending:
        if p.grounding_ref in rejected:
            drops[f"{p.type}: pattern family {p.grounding_ref} failed the null test"] += 1
    pending = [p for p in pending if p.grounding_ref not in rejected]
    pending = _cap(balance(pending, seed, drops), max_per_type, seed)
    mix = None
    if match_official:
        pending, mix = official_mix(pending, seed)
    items = assemble(pending, seed)
    stats = build_stats(items, drops, null_fdr, names)
    if not items:
        raise WearbenchError(f"0 items from {len(contexts)} users, nothing written to {out}: " + _why(stats))
    if mix is not None:
        stats["match_official"] = mix
    stats["shortcut_audit"] = shortcut_audit(items, seed=seed).to_dict()
    stats["prior_audit"] = prior_audit(items, seed=seed).to_dict()
    manifest = _manifest(cohort, qts, seed, max_per_type, stats)
    write_artifact(Path(out), items, contexts, manifest, render_datasheet(stats, manifest))
    return BuildResult(Path(out), len(items), stats, manifest)
