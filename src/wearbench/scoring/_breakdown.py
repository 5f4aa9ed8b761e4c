"""Score one evaluation run: accuracy with intervals, label breakdowns, failures, bias and cost."""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench._stats import Accuracy, accuracy
from wearbench.bench import read_items
from wearbench.questions import LETTERS, Item
from wearbench.runner import ResultRow, RunInfo, RunStore, select_items
from wearbench.scoring._bootstrap import cluster_bootstrap_ci
from wearbench.scoring._cgm import CGMRunScore, is_cgm_run, score_cgm
from wearbench.scoring._cgm_judge import stored_judgements

#: Item attributes the accuracy is broken down by (``pair_kind`` skips items without one).
LABEL_FAMILIES: tuple[str, ...] = ("reasoning", "signals", "grounding", "dependency", "type", "pair_kind")


@dataclass(frozen=True)
class PositionBias:
    """Which option letters a model picks, beside where the right answers are.

    Attributes:
        chosen: Letter (A–J) → times chosen, over parsed answers.
        gold: Letter → times it was the right answer, over the same items.
        top_letter: Most-chosen letter (first in A–J order on ties), None without parsed answers.
        top_share: Its share of parsed answers (0.1 is no bias with ten options).
        chi2_p: Chi-square goodness-of-fit p-value of ``chosen`` against uniform over A–J.
    """

    chosen: Mapping[str, int]
    gold: Mapping[str, int]
    top_letter: str | None
    top_share: float | None
    chi2_p: float | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


@dataclass(frozen=True)
class RunScore:
    """Scores of one run against its benchmark items.

    Attributes:
        overall: Accuracy over scored items (items with a row), Wilson 95% interval.
        boot_lo: Lower end of the per-user bootstrap 95% interval of the overall accuracy.
        boot_hi: Upper end of that interval.
        n_users: Users among the scored items.
        by_label: Family (:data:`LABEL_FAMILIES`) → label → accuracy.
        n_items: Items given.
        missing: Ids of items without a row (not scored), sorted.
        parse_failures: Rows whose response could not be parsed to one letter.
        errors: Rows that carry an error (scored as wrong).
        position: Letter bias.
        prompt_tokens: Total prompt tokens over rows that report them (None if none do).
        completion_tokens: Total completion tokens likewise.
        prompt_tokens_mean: Mean prompt tokens per reporting row.
        completion_tokens_mean: Mean completion tokens per reporting row.
        cost_usd: Total cost, None if any row's cost is unknown.
        mean_latency_s: Mean wall time per row.
        seed: Bootstrap seed; ``n_boot`` its replicates.
        n_boot: Bootstrap replicates.
        run_id: Run of the rows (None without rows); ``model`` and ``setting`` likewise.
        model: Model spec of the rows.
        setting: Setting key of the rows.
        error_messages: The most common error messages (up to 3) with their counts.
        label_parse_failures: Family → label → parse failures among that label's scored items.
    """

    overall: Accuracy
    boot_lo: float
    boot_hi: float
    n_users: int
    by_label: Mapping[str, Mapping[str, Accuracy]]
    n_items: int
    missing: tuple[str, ...]
    parse_failures: int
    errors: int
    position: PositionBias
    prompt_tokens: int | None
    completion_tokens: int | None
    prompt_tokens_mean: float | None
    completion_tokens_mean: float | None
    cost_usd: float | None
    mean_latency_s: float | None
    seed: int
    n_boot: int
    run_id: str | None = None
    model: str | None = None
    setting: str | None = None
    error_messages: tuple[tuple[str, int], ...] = ()
    label_parse_failures: Mapping[str, Mapping[str, int]] = field(default_factory=dict)

    @property
    def parse_failure_rate(self) -> float | None:
        """Parse failures over scored items (None without items)."""
        return self.parse_failures / self.overall.n if self.overall.n else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form in the one score schema (:data:`SCORE_JSON_SCHEMA`), kind ``wearableqa``.

        ``score`` is the accuracy in percent (0–100) and ``ci_low``/``ci_high`` its Wilson 95%
        interval in percent (``ci_method`` ``wilson``); ``accuracy`` keeps the 0–1 value, and
        ``by_label`` and ``bootstrap`` keep their 0–1 forms. ``breakdowns`` holds ``by_<family>``
        per label family, each label as ``{"score", "ci_low", "ci_high", "n", "k",
        "parse_failures"}`` in percent.
        """
        a = self.overall
        return {
            "kind": "wearableqa",
            "run_id": self.run_id,
            "model": self.model,
            "setting": self.setting,
            "score": 100 * a.k / a.n if a.n else None,
            "ci_low": 100 * a.lo if a.n else None,
            "ci_high": 100 * a.hi if a.n else None,
            "ci_method": "wilson",
            "accuracy": a.value if a.n else None,
            "n": a.n,
            "k": a.k,
            "parse_failures": self.parse_failures,
            "parse_failure_rate": self.parse_failure_rate,
            "errors": self.errors,
            "error_messages": [{"message": m, "count": n} for m, n in self.error_messages],
            "n_items": self.n_items,
            "missing": len(self.missing),
            "missing_ids": list(self.missing),
            "bootstrap": {
                "ci_low": _finite(self.boot_lo),
                "ci_high": _finite(self.boot_hi),
                "n_users": self.n_users,
                "n_boot": self.n_boot,
                "seed": self.seed,
            },
            "breakdowns": self._breakdowns(),
            "by_label": {f: {k: a.to_dict() for k, a in d.items()} for f, d in self.by_label.items()},
            "position_bias": self.position.to_dict(),
            "tokens": {
                "prompt_total": self.prompt_tokens,
                "completion_total": self.completion_tokens,
                "prompt_mean": self.prompt_tokens_mean,
                "completion_mean": self.completion_tokens_mean,
            },
            "cost_usd": self.cost_usd,
            "mean_latency_s": self.mean_latency_s,
        }

    def _breakdowns(self) -> dict[str, dict[str, dict[str, Any]]]:
        out: dict[str, dict[str, dict[str, Any]]] = {}
        for family, accs in self.by_label.items():
            failures = self.label_parse_failures.get(family, {})
            out[f"by_{family}"] = {
                label: {
                    "score": 100 * a.k / a.n if a.n else None,
                    "ci_low": 100 * a.lo if a.n else None,
                    "ci_high": 100 * a.hi if a.n else None,
                    "n": a.n,
                    "k": a.k,
                    "parse_failures": failures.get(label, 0),
                }
                for label, a in accs.items()
            }
        return out

    def summary_line(self) -> str:
        """One line: accuracy with both intervals, parse failures, errors, missing items.

        A run with errored items says so first; a run without a single answer shows no
        accuracy ("n/a"), never 0.000.
        """
        if not self.overall.n:
            return (
                f"accuracy n/a: no answers ({self.errors} item(s) errored, "
                f"{len(self.missing)} missing); re-run eval to retry them"
            )
        boot = "n/a" if not math.isfinite(self.boot_lo) else f"{self.boot_lo:.3f}-{self.boot_hi:.3f}"
        rate = self.parse_failure_rate or 0.0
        warn = f"INCOMPLETE: {self.errors} item(s) errored (scored as wrong); " if self.errors else ""
        return (
            f"{warn}accuracy {self.overall}; per-user bootstrap 95% CI {boot}; parse failures "
            f"{self.parse_failures} ({rate:.1%}); errors {self.errors}; missing {len(self.missing)}"
        )

    def to_text(self) -> str:
        """Multi-line text: who, the summary line, then accuracy per label, bias, tokens and cost."""
        lines = [f"{self.run_id or 'run'}: {self.model or '?'} [{self.setting or '?'}]", self.summary_line()]
        lines += [f"  error ×{n}: {message}" for message, n in self.error_messages]
        for family, accs in self.by_label.items():
            lines += [f"  {family}:"] + [f"    {lab:<24} {acc}" for lab, acc in accs.items()]
        pos = self.position
        if pos.top_letter is not None:
            p = pos.chi2_p
            p_text = "p n/a" if p is None else "p < 1e-6" if p < 1e-6 else f"p = {p:.3g}"
            lines.append(
                f"  position bias: top letter {pos.top_letter} {pos.top_share:.0%} of parsed answers; "
                f"chi-square vs uniform {p_text}"
            )
        if self.prompt_tokens_mean is None and self.completion_tokens_mean is None:
            tokens = "tokens/item – (no model calls)"
        else:
            prompt, completion = self.prompt_tokens_mean or 0, self.completion_tokens_mean or 0
            tokens = f"tokens/item {prompt:,.0f} prompt + {completion:,.0f} completion"
        cost = "unknown" if self.cost_usd is None else f"${self.cost_usd:,.4f}"
        latency = f"{self.mean_latency_s or 0:.2f}"
        lines.append(f"  {tokens}; cost {cost}; mean latency {latency} s")
        return "\n".join(lines)


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def align_rows(rows: Iterable[ResultRow], items: Mapping[str, Item]) -> dict[str, ResultRow]:
    """Rows by item id, checked against the benchmark.

    Raises:
        WearbenchError: If a row names an item the benchmark lacks, or two rows share an item.
    """
    out: dict[str, ResultRow] = {}
    for row in rows:
        if row.item_id not in items:
            raise WearbenchError(f"row for item {row.item_id!r}, which is not in the benchmark")
        if row.item_id in out:
            raise WearbenchError(f"two rows for item {row.item_id!r} in run {row.run_id!r}")
        out[row.item_id] = row
    return out


def is_correct(row: ResultRow, item: Item) -> bool:
    """Whether the row's parsed letter is the item's answer."""
    return row.letter is not None and row.letter == item.answer


def position_bias(chosen: Sequence[str], gold: Sequence[str]) -> PositionBias:
    """Histogram of chosen letters beside the gold letters, with a chi-square test against uniform."""
    c, g = Counter(chosen), Counter(gold)
    hist = {x: c.get(x, 0) for x in LETTERS}
    n = len(chosen)
    if not n:
        return PositionBias(hist, {x: g.get(x, 0) for x in LETTERS}, None, None, None)
    top = max(LETTERS, key=lambda x: (hist[x], -LETTERS.index(x)))
    expected = n / len(LETTERS)
    stat = sum((hist[x] - expected) ** 2 / expected for x in LETTERS)
    p = chi2_sf(stat, len(LETTERS) - 1)
    return PositionBias(hist, {x: g.get(x, 0) for x in LETTERS}, top, hist[top] / n, p)


def chi2_sf(x: float, df: int) -> float:
    """Survival function P(X >= x) of the chi-square law with integer ``df`` >= 1 degrees of freedom.

    Closed form for integer ``df`` (so scoring needs no ``scipy.stats``, over 1 s to import):
    even ``df`` = 2m: ``exp(-x/2) * sum_{j<m} (x/2)^j / j!``; odd ``df`` = 2m+1:
    ``erfc(sqrt(x/2)) + sqrt(2x/pi) exp(-x/2) * sum_{j=1..m} x^(j-1) / (1*3*...*(2j-1))``.
    """
    if x <= 0.0:
        return 1.0
    half = x / 2.0
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for j in range(1, df // 2):
            term *= half / j
            total += term
        return min(1.0, math.exp(-half) * total)
    term, total = 1.0, 0.0
    for j in range(1, (df - 1) // 2 + 1):
        term = 1.0 if j == 1 else term * x / (2 * j - 1)
        total += term
    return min(1.0, math.erfc(math.sqrt(half)) + math.sqrt(2.0 * x / math.pi) * math.exp(-half) * total)


def _by_label(pairs: Sequence[tuple[Item, bool]]) -> dict[str, dict[str, Accuracy]]:
    out: dict[str, dict[str, Accuracy]] = {}
    for family in LABEL_FAMILIES:
        tally: dict[str, list[int]] = {}
        for item, ok in pairs:
            label = getattr(item, family)
            if label is None:
                continue
            t = tally.setdefault(str(label), [0, 0])
            t[0] += ok
            t[1] += 1
        out[family] = {label: accuracy(k, n) for label, (k, n) in sorted(tally.items())}
    return out


def _label_failures(scored: Sequence[tuple[Item, ResultRow]]) -> dict[str, dict[str, int]]:
    """Family → label → parse failures, over the given rows (labels with none are left out)."""
    out: dict[str, dict[str, int]] = {}
    for family in LABEL_FAMILIES:
        tally = Counter(str(getattr(item, family)) for item, r in scored
                        if r.parse_failed and getattr(item, family) is not None)  # fmt: skip
        out[family] = dict(sorted(tally.items()))
    return out


def _mean(xs: Sequence[float]) -> float | None:
    return math.fsum(xs) / len(xs) if xs else None


def score_run(
    rows: Iterable[ResultRow],
    items: Sequence[Item] | Mapping[str, Item],
    *,
    seed: int = 0,
    n_boot: int = 2000,
) -> RunScore:
    """Score a run's rows against the benchmark's items.

    Args:
        rows: The run's rows (at most one per item).
        items: The benchmark's items (or id → item); those without a row are reported as
            missing, not scored.
        seed: Seed of the per-user bootstrap.
        n_boot: Bootstrap replicates.

    Returns:
        The :class:`RunScore`. Errored and unparsed rows count as wrong.

    Raises:
        WearbenchError: If a row names an unknown item or two rows share an item.
    """
    by_id = dict(items) if isinstance(items, Mapping) else {i.id: i for i in items}
    aligned = align_rows(rows, by_id)
    scored = [(by_id[i], r) for i, r in sorted(aligned.items())]
    # No answer at all: no accuracy, never 0.000.
    scored_ok = [] if all(r.error is not None for _, r in scored) else scored
    pairs = [(item, is_correct(r, item)) for item, r in scored_ok]
    k = sum(ok for _, ok in pairs)
    lo, hi = cluster_bootstrap_ci(
        [item.user_id for item, _ in pairs], [float(ok) for _, ok in pairs], seed=seed, n_boot=n_boot
    )
    parsed = [(item, r.letter) for item, r in scored if r.letter is not None]
    prompt = [r.prompt_tokens for _, r in scored if r.prompt_tokens is not None]
    completion = [r.completion_tokens for _, r in scored if r.completion_tokens is not None]
    costs = [r.cost_usd for _, r in scored]
    return RunScore(
        overall=accuracy(k, len(pairs)),
        boot_lo=lo,
        boot_hi=hi,
        n_users=len({item.user_id for item, _ in pairs}),
        by_label=_by_label(pairs),
        n_items=len(by_id),
        missing=tuple(sorted(set(by_id) - set(aligned))),
        parse_failures=sum(r.parse_failed for _, r in scored),
        errors=sum(r.error is not None for _, r in scored),
        position=position_bias([x for _, x in parsed], [item.answer for item, _ in parsed]),
        prompt_tokens=sum(prompt) if prompt else None,
        completion_tokens=sum(completion) if completion else None,
        prompt_tokens_mean=_mean(prompt),
        completion_tokens_mean=_mean(completion),
        cost_usd=None if any(c is None for c in costs) else math.fsum(c for c in costs if c is not None),
        mean_latency_s=_mean([r.latency_s for _, r in scored]),
        seed=seed,
        n_boot=n_boot,
        run_id=scored[0][1].run_id if scored else None,
        model=scored[0][1].model if scored else None,
        setting=scored[0][1].setting if scored else None,
        error_messages=tuple(Counter(r.error[:200] for _, r in scored if r.error).most_common(3)),
        label_parse_failures=_label_failures(scored_ok),
    )


def covered_items(info: RunInfo, items: Sequence[Item]) -> list[Item]:
    """The items a run covers: all of the benchmark, or the seeded subset a ``limit`` picked.

    The subset is rebuilt with the runner's own selection from the run's ``limit`` and ``seed``
    parameters; if that does not give ``info.n_items`` items, all items are used.
    """
    limit, seed = info.params.get("limit"), info.params.get("seed")
    if limit is None or info.n_items >= len(items):
        return list(items)
    chosen = select_items(items, int(limit), seed=int(seed or 0))
    return chosen if len(chosen) == info.n_items else list(items)


def score_store(
    rundir: Path, run_id: str | None = None, *, seed: int = 0, n_boot: int = 2000
) -> list[RunScore]:
    """Score the WearableQA runs of a run folder against their benchmarks' items.

    Args:
        rundir: Run folder (``runs.sqlite``).
        run_id: One run by id or unique prefix; default every run, in creation order.
        seed: Bootstrap seed.
        n_boot: Bootstrap replicates.

    Raises:
        WearbenchError: If the folder has no runs, a run's benchmark is unreadable, or its
            ``items.jsonl`` changed since the run, or a run is a HealthLoopQA one (see
            :func:`score_runs`).
    """
    runs = _stored_runs(rundir, run_id)
    out = []
    for info, rows in runs:
        if is_cgm_run(info):
            raise WearbenchError(f"run {info.run_id} is a HealthLoopQA run: score it with score_runs")
        check_bench(info)
        items = covered_items(info, read_items(Path(info.bench)))
        out.append(score_run(rows, items, seed=seed, n_boot=n_boot))
    return out


def _stored_runs(rundir: Path, run_id: str | None) -> list[tuple[RunInfo, list[ResultRow]]]:
    if not (Path(rundir) / "runs.sqlite").is_file():
        raise WearbenchError(f"{rundir}: no run store (runs.sqlite)")
    with RunStore(rundir) as store:
        infos = [store.run(run_id)] if run_id else store.runs()
        runs = [(info, store.rows(info.run_id)) for info in infos]
    if not runs:
        raise WearbenchError(f"{rundir}: no runs")
    return runs


def score_runs(
    rundir: Path, run_id: str | None = None, *, seed: int = 0, n_boot: int = 2000
) -> list[RunScore | CGMRunScore]:
    """Score every run of a run folder, WearableQA or HealthLoopQA, each with its own metrics.

    A WearableQA run gets a :class:`RunScore` (as :func:`score_store`), a HealthLoopQA run a
    :class:`CGMRunScore` (:func:`score_cgm`); both have ``to_dict``, ``to_text`` and
    ``summary_line``, and ``to_dict`` follows the one schema :data:`SCORE_JSON_SCHEMA` (``kind``,
    ``score`` on 0–100, ``ci_low``, ``ci_high``, ``ci_method``, ``n``, ``parse_failures``,
    ``breakdowns`` …), each kind with its own keys beside. A HealthLoopQA run's stored LLM-judge
    grades (``wearbench cgm judge``) become its ``judges`` blocks.

    Raises:
        WearbenchError: As :func:`score_store`, or :func:`score_cgm` for a HealthLoopQA run.
    """
    out: list[RunScore | CGMRunScore] = []
    for info, rows in _stored_runs(rundir, run_id):
        if is_cgm_run(info):
            judged = stored_judgements(rundir, info.run_id)
            out.append(score_cgm(info, rows, judgements=judged, seed=seed, n_boot=n_boot))
            continue
        check_bench(info)
        items = covered_items(info, read_items(Path(info.bench)))
        out.append(score_run(rows, items, seed=seed, n_boot=n_boot))
    return out


def check_bench(info: RunInfo) -> None:
    """Make sure the run's benchmark folder still holds the ``items.jsonl`` it was run on.

    Raises:
        WearbenchError: If the file is missing or its sha256 differs from ``info.bench_hash``.
    """
    path = Path(info.bench) / "items.jsonl"
    if not path.is_file():
        raise WearbenchError(f"run {info.run_id}: benchmark {info.bench} not found (no items.jsonl)")
    if hashlib.sha256(path.read_bytes()).hexdigest() != info.bench_hash:
        raise WearbenchError(f"run {info.run_id}: {path} changed since the run (hash differs)")
