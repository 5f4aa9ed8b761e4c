"""`wearbench cgm build`: a simulated or imported CGM folder → HealthLoopQA benchmark artifact.

Every registered template of the chosen families (registry kind ``cgm_template``, iterated by
family, so a newly registered template is built without a change here) is asked about the
patients its level draws (:mod:`wearbench.cgmqa._sample`), on each patient's benchmark window
(:mod:`wearbench.cgmqa._context`). A (template, patient) pair without an answer is dropped and
counted with its reason: the record lacks what the template needs (``needs exercise``, ``needs
fault labels``, …) or the truth function found no answer (``no answer on this record``).

When the folder is a simulation with faults, AD is asked about the folder and PM and PD about its
fault-free twin (the seed's released sets; :mod:`wearbench.cgmqa._source`, ``pm_pd_run``); the
twin's context files go to ``contexts/twin/`` and the manifest's ``runs`` says which run each
family came from. When a chosen template needs a counterfactual (the PD "what if" ones) and the
folder is simulated, its run (the twin, or the folder re-simulated from its manifest and checked
bit for bit) runs every counterfactual the drawn patients will be asked about first, in shared
batches (:func:`~wearbench.cgmqa.pd.prefetch_counterfactuals`); the manifest records it under
``counterfactuals``. A prediction item is shown only the past: its context ends at "now"
(:meth:`Template.context_end`, :class:`~wearbench.cgmqa._context.Window`'s ``until``).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench._folder import check_target
from wearbench._version import __version__
from wearbench.cgmqa._artifact import KIND, MANIFEST, render_cgm_datasheet, write_cgm_artifact
from wearbench.cgmqa._context import (
    COMPLETE_DAY_READINGS,
    WINDOW_DAYS,
    Window,
    context_files,
    context_ref,
    day_readings,
    item_window,
    record_window,
)
from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._sample import LevelDraw, check_sampling, draw_patients, item_rng
from wearbench.cgmqa._source import (
    FOLDER,
    TWIN,
    DataSource,
    Note,
    RunRecords,
    counterfactual_entry,
    family_runs,
    load_runs,
    needs_rerun,
    prefetch_with_notes,
    read_data_source,
    twin_entry,
)
from wearbench.cgmqa._template import FAMILIES, LEVELS, Template, templates

#: How a drop reason names a missing need.
NEED_WORDS: dict[str, str] = {
    "faults": "fault labels",
    "exercise": "exercise",
    "meals": "meals",
    "boluses": "boluses",
    "insulin": "insulin per sample",
    "counterfactual": "a counterfactual re-simulation",
}
NO_ANSWER = "no answer on this record"
#: Families left out of a benchmark on real data, and why.
REAL_LEFT_OUT: dict[str, str] = {"ad": "real data has no fault labels"}
#: Why each run answers the families it does (the manifest's ``runs``, the datasheet).
RUN_WHY: dict[str, str] = {
    FOLDER: "the data folder as given",
    TWIN: "the data folder's fault-free twin (its simulation re-run with faults none), as the seed "
    "builds PM and PD from a normal run of the same patients and scenario",
}


def parse_families(families: Sequence[str] | str | None, kind: str) -> tuple[list[str], dict[str, str]]:
    """The families to build (in ``ad, pm, pd`` order) and those left out with the reason.

    Default: every family; on real data AD is left out (:data:`REAL_LEFT_OUT`), asked for or not.

    Raises:
        WearbenchError: For an unknown family, naming the valid ones.
    """
    asked = families.split(",") if isinstance(families, str) else families
    names = [f.strip() for f in asked or FAMILIES if f.strip()]
    bad = [f for f in names if f not in FAMILIES]
    if bad or not names:
        raise WearbenchError(f"families {bad or '(none)'}: unknown; valid: {', '.join(FAMILIES)}")
    left = REAL_LEFT_OUT if kind == "real" else {}
    return [f for f in FAMILIES if f in names and f not in left], {
        f: w for f, w in left.items() if f in names
    }


def drop_reason(t: Template, record: PatientRecord) -> str | None:
    """Why ``t`` cannot be asked about ``record`` at all (``needs …``), or None when it can."""
    if t.applicable(record):
        return None
    for need in t.needs:
        if not replace(t, needs=(need,)).applicable(record):
            return f"needs {NEED_WORDS.get(need, need)}"
    return "needs " + ", ".join(NEED_WORDS.get(n, n) for n in t.needs)


def _item(
    t: Template, window: Window, params: Mapping[str, Any], answer: Any, contexts: str
) -> dict[str, Any]:
    return {
        "id": f"{t.id}-{window.subject}",
        "family": t.family,
        "template": t.id,
        "level": t.level,
        "abilities": list(t.abilities),
        "answer_type": t.answer_type,
        "metric": t.metric,
        "unit": t.unit,
        "categories": list(t.categories),
        "in_headline": t.in_headline,
        "patient": window.subject,
        "params": dict(params),
        "question": t.text(params),
        "instruction": t.answer_instruction(),
        "answer": answer,
        "context": context_ref(window, contexts),
    }


@dataclass
class _Plan:
    """What the build gathers: items, drop counts, context windows (with their run) and draws."""

    items: list[dict[str, Any]]
    drops: dict[str, Counter[str]]
    windows: dict[str, tuple[RunRecords, Window]]
    draws: dict[str, LevelDraw]


def _draws(by_family: Mapping[str, RunRecords], sampling: str, seed: int) -> dict[str, LevelDraw]:
    out = {}
    for fam, run in by_family.items():
        for level in LEVELS:
            level_ts = templates(fam, level)
            if not level_ts:
                continue
            eligible = [
                s for s, r in run.cut.items() if sampling == "full" or any(t.applicable(r) for t in level_ts)
            ]
            out[f"{fam}/{level}"] = draw_patients(fam, level, eligible, check_sampling(sampling), seed)
    return out


def _plan(
    by_family: Mapping[str, RunRecords],
    draws: Mapping[str, LevelDraw],
    seed: int,
    progress: Callable[[int, int], None] | None,
) -> _Plan:
    plan = _Plan([], defaultdict(Counter), {}, dict(draws))
    asked = [(set(d.chosen), by_family[d.family], templates(d.family, d.level)) for d in draws.values()]
    subjects = sorted({s for run in by_family.values() for s in run.cut})
    for done, subject in enumerate(subjects, start=1):
        for who, run, level_ts in asked:
            for t in level_ts if subject in who else ():
                _ask(plan, t, run, subject, seed)
        if progress:
            progress(done, len(subjects))
    return plan


def _ask(plan: _Plan, t: Template, run: RunRecords, subject: str, seed: int) -> None:
    """Draw ``t``'s item on one patient's window of ``run``, or count why it is dropped."""
    record, base = run.cut[subject], run.bases[subject]
    window = item_window(base, t)
    rec = record if window == base else record.window(window.first_day - base.first_day + 1, window.days)
    why = drop_reason(t, rec)
    found = None if why else t.draw(rec, item_rng(seed, t.id, base.subject))
    if found is None:
        plan.drops[t.id][why or NO_ANSWER] += 1
        return
    params, answer = found
    window = window.ending(t.context_end(params))
    plan.items.append(_item(t, window, params, json.loads(json.dumps(answer)), run.contexts))
    plan.windows[f"{run.contexts}/{window.key}"] = (run, window)


def one_answer_templates(items: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Templates of two items or more whose items all have the same answer, with it and the count.

    A population prior (the answer most items have) scores 100 on them: a warning, not a drop.
    """
    answers: dict[str, list[str]] = defaultdict(list)
    for item in items:
        answers[str(item["template"])].append(json.dumps(item["answer"], sort_keys=True))
    return {
        tid: {"items": len(a), "answer": json.loads(a[0])}
        for tid, a in answers.items()
        if len(a) > 1 and len(set(a)) == 1
    }


def _stats(
    plan: _Plan, families: Sequence[str], folder: RunRecords, left_out: Mapping[str, str]
) -> dict[str, Any]:
    """Counts per family, level and template; drops; draws; windows; families left out.

    Also the templates whose items all have one answer (:func:`one_answer_templates`).
    """
    by_fl: dict[str, dict[str, int]] = {f: {} for f in families}
    for item in plan.items:
        by_fl[item["family"]][item["level"]] = by_fl[item["family"]].get(item["level"], 0) + 1
    reasons: Counter[str] = Counter()
    for c in plan.drops.values():
        reasons.update(c)
    ids = [t.id for f in families for t in templates(f)]
    by_template = Counter(i["template"] for i in plan.items)
    one = one_answer_templates(plan.items)
    return {
        "n_items": len(plan.items),
        "n_patients": len({i["patient"] for i in plan.items}),
        "by_family": {f: sum(v.values()) for f, v in by_fl.items()},
        "by_family_level": {
            f: dict(sorted(v.items(), key=lambda kv: LEVELS.index(kv[0]))) for f, v in by_fl.items()
        },
        "by_template": {tid: by_template[tid] for tid in ids if by_template[tid]},
        "zero_items": [tid for tid in ids if not by_template[tid]],
        "drops": {tid: dict(sorted(plan.drops[tid].items())) for tid in ids if plan.drops.get(tid)},
        "drop_reasons": dict(sorted(reasons.items())),
        "draws": {k: d.to_dict() for k, d in plan.draws.items()},
        "windows": {s: _window_stats(folder.records[s], w) for s, w in folder.bases.items()},
        "left_out": dict(left_out),
        "one_answer": {tid: one[tid] for tid in ids if tid in one},
    }


def _window_stats(record: PatientRecord, w: Window) -> dict[str, Any]:
    """A window for the datasheet: its days, readings, and its last (held-out) day's readings.

    ``densest`` is ``[first day, last day, its readings]`` of the window without the
    complete-last-day rule (:func:`record_window`); ``left_out_days`` lists ``[day, readings]`` of
    its days after this one's end: the partial days a real record's window was moved off.
    """
    per_day = day_readings(record)
    plain = record_window(record)
    return {
        "first_day": w.first_day,
        "days": w.days,
        "record_days": record.days,
        "readings": int(per_day[w.first_day - 1 : w.last_day].sum()),
        "last_day_readings": int(per_day[w.last_day - 1]),
        "left_out_days": [[d, int(per_day[d - 1])] for d in range(w.last_day + 1, plain.last_day + 1)],
        "densest": [plain.first_day, plain.last_day, int(per_day[plain.last_day - 1])],
    }


@dataclass(frozen=True)
class CGMBuildResult:
    """What :func:`build_cgm_benchmark` wrote: folder, item count, statistics and manifest."""

    out: Path
    n_items: int
    stats: Mapping[str, Any]
    manifest: Mapping[str, Any]


def build_cgm_benchmark(
    data: str | Path,
    out: str | Path,
    *,
    seed: int = 0,
    families: Sequence[str] | str | None = None,
    sampling: str = "seed",
    pm_pd_run: str = "normal",
    progress: Callable[[int, int], None] | None = None,
    note: Note | None = None,
) -> CGMBuildResult:
    """Build a HealthLoopQA benchmark from a simulated or imported CGM folder.

    Args:
        data: A folder written by ``wearbench cgm simulate`` (``--profile healthloopqa``) or
            ``wearbench cgm import … --grid 5``.
        out: Benchmark folder to write (replaced as a whole if it holds a benchmark).
        seed: Seed of the patient draws and the params draws; with the same data it fixes every
            output byte.
        families: ``ad``, ``pm``, ``pd`` (a list or a comma-separated string; default: all; AD is
            always left out on real data, which has no fault labels).
        sampling: ``seed`` (the seed's per-level patient counts) or ``full`` (every patient).
        pm_pd_run: ``normal``: on a simulation with faults, PM and PD are asked about its
            fault-free twin (:mod:`wearbench.cgmqa._source`); ``same``: about the folder itself.
            Real data and simulations without faults are the same either way.
        progress: Optional ``(patients_done, patients_total)`` callback.
        note: Optional callback given one line when a slow step starts and ends (the twin or the
            re-simulation, about 8 s for 20 patients x 30 days; the counterfactuals).

    Raises:
        WearbenchError: Not a CGM folder, an unknown family, sampling or ``pm_pd_run``, a foreign
            ``out`` folder, a simulated folder that cannot be re-simulated (or whose twin cannot
            be simulated) while a chosen template needs it (with a hint), or no item at all (with
            the drop reasons); nothing is written then.
    """
    check_target(Path(out), "benchmark", MANIFEST)
    source = read_data_source(data)
    fams, left_out = parse_families(families, source.kind)
    left_out |= {f: "no template of this family is registered" for f in fams if not templates(f)}
    check_sampling(sampling)
    runs = family_runs(source, fams, pm_pd_run)
    rerun = {runs[f] for f in fams if source.kind == "simulated" and needs_rerun(f)}
    loaded = load_runs(source, runs, rerun, note)
    by_family = {f: loaded[runs[f]] for f in fams}
    for run in loaded.values():
        _check_keys(run.bases.values())
    draws = _draws(by_family, sampling, seed)
    if rerun:
        asked = [
            ([by_family[d.family].cut[s] for s in d.chosen], [t.id for t in templates(d.family, d.level)])
            for d in draws.values()
        ]
        prefetch_with_notes(asked, note)
    plan = _plan(by_family, draws, seed, progress)
    stats = _stats(plan, fams, loaded[FOLDER], left_out)
    if not plan.items:
        why = "; ".join(f"{r} ({n})" for r, n in stats["drop_reasons"].items()) or "no family to build"
        raise WearbenchError(
            f"0 items from {len(loaded[FOLDER].records)} patients of {data}, nothing written to {out}: {why}"
        )
    plan.items.sort(
        key=lambda i: (FAMILIES.index(i["family"]), int(i["template"].split("_")[1]), i["patient"])
    )
    contexts: dict[str, bytes] = {}
    for key in sorted(plan.windows):
        run, w = plan.windows[key]
        contexts.update(context_files(run.records[w.subject], w, run.contexts))
    manifest = _manifest(source, fams, seed, sampling, stats)
    manifest |= {"pm_pd_run": pm_pd_run, "runs": {f: runs[f] for f in fams}}
    if TWIN in loaded:
        manifest["twin"] = twin_entry(loaded[TWIN])
    if source.kind == "real":
        manifest["complete_day_readings"] = COMPLETE_DAY_READINGS
    if rerun:
        manifest["counterfactuals"] = counterfactual_entry(loaded[sorted(rerun)[0]], plan.items)
    write_cgm_artifact(
        Path(out), plan.items, contexts, manifest, render_cgm_datasheet(stats, manifest, LEVELS)
    )
    return CGMBuildResult(Path(out), len(plan.items), stats, manifest)


def _check_keys(windows: Iterable[Window]) -> None:
    """Refuse two subjects whose file-safe names collide (``a#1`` and ``a_1``)."""
    seen: dict[str, str] = {}
    for w in windows:
        if seen.setdefault(w.key, w.subject) != w.subject:
            raise WearbenchError(
                f"subjects {seen[w.key]!r} and {w.subject!r} share the context file name {w.key!r}"
            )


def _manifest(source: DataSource, families: Sequence[str], seed: int, sampling: str,
              stats: Mapping[str, Any]) -> dict[str, Any]:  # fmt: skip
    return {
        "kind": KIND,
        "wearbench_version": __version__,
        "seed": seed,
        "sampling": sampling,
        "families": list(families),
        "window_days": WINDOW_DAYS,
        "data": source.to_dict(),
        "counts": {
            k: stats[k] for k in ("n_items", "n_patients", "by_family", "by_family_level", "by_template")
        },
        "drops": stats["drops"],
        "draws": stats["draws"],
        "templates": {t.id: json.loads(json.dumps(t.tags())) for f in families for t in templates(f)},
    }
