"""The HealthLoopQA benchmark on disk: items.jsonl, contexts/, manifest.json, datasheet.md.

The layout follows WearableQA's artifact (``wearbench.bench``): ``manifest.json`` lists the sha256
of every other file, the whole folder is written to a hidden sibling and swapped in when complete,
and every byte depends only on the inputs and the seed. The manifest's ``kind`` is
``healthloopqa`` (``wearbench verify`` dispatches on it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench._folder import replaced_folder
from wearbench._jsonfile import read_json_object

#: The manifest's ``kind`` of a CGM benchmark.
KIND = "healthloopqa"
ITEMS = "items.jsonl"
MANIFEST = "manifest.json"
DATASHEET = "datasheet.md"
CONTEXTS = "contexts"

#: Items of the seed's released benchmark (``shared/specs/healthloopqa-templates.md``).
SEED_COUNTS: dict[str, dict[str, int]] = {
    "simulated": {"ad": 355, "pm": 369, "pd": 320, "total": 1044},
    "real": {"pm": 367, "pd": 105, "total": 472},
}


def sha256(data: bytes) -> str:
    """Hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def item_line(item: Mapping[str, Any]) -> str:
    """One line of ``items.jsonl`` (fields in their given order, UTF-8, no NaN)."""
    return json.dumps(item, ensure_ascii=False, allow_nan=False)


def write_cgm_artifact(
    out: Path,
    items: Sequence[Mapping[str, Any]],
    contexts: Mapping[str, bytes],
    manifest: Mapping[str, Any],
    datasheet: str,
) -> dict[str, str]:
    """Write the artifact; returns ``{relative path: sha256}`` of every file but the manifest.

    Raises:
        WearbenchError: ``out`` is a file or a non-empty folder without a manifest (nothing written).
    """
    files: dict[str, bytes] = {ITEMS: "".join(item_line(i) + "\n" for i in items).encode("utf-8")}
    files.update(contexts)
    files[DATASHEET] = datasheet.encode("utf-8")
    hashes = {name: sha256(data) for name, data in sorted(files.items())}
    full = {**manifest, "files": hashes}
    with replaced_folder(out, "benchmark", MANIFEST) as new:
        (new / CONTEXTS).mkdir()
        for name, data in files.items():
            (new / name).parent.mkdir(parents=True, exist_ok=True)
            (new / name).write_bytes(data)
        (new / MANIFEST).write_text(json.dumps(full, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return hashes


def read_cgm_manifest(bench: str | Path) -> dict[str, Any]:
    """The manifest of a HealthLoopQA benchmark.

    Raises:
        WearbenchError: If the folder has no manifest or it is not of kind ``healthloopqa``.
    """
    manifest = read_json_object(Path(bench) / MANIFEST, missing="not a benchmark folder (no manifest)")
    if manifest.get("kind") != KIND:
        raise WearbenchError(f"{bench}: not a {KIND} benchmark (manifest kind {manifest.get('kind')!r})")
    return manifest


def is_cgm_benchmark(bench: str | Path) -> bool:
    """Whether ``bench`` holds a manifest of kind ``healthloopqa`` (False for anything else)."""
    try:
        read_cgm_manifest(bench)
    except WearbenchError:
        return False
    return True


def read_cgm_items(bench: str | Path) -> list[dict[str, Any]]:
    """Every item of a HealthLoopQA benchmark, in file order.

    Raises:
        WearbenchError: Naming the line of a malformed item.
    """
    path = Path(bench) / ITEMS
    if not path.is_file():
        raise WearbenchError(f"{bench}: no {ITEMS}")
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            item = json.loads(line)
        except json.JSONDecodeError as e:
            raise WearbenchError(f"{path}:{n}: malformed item ({e})") from e
        if not isinstance(item, dict) or not {"id", "template", "patient", "params", "answer"} <= set(item):
            raise WearbenchError(f"{path}:{n}: malformed item (needs id, template, patient, params, answer)")
        items.append(item)
    return items


# --- datasheet ---------------------------------------------------------------------------------


def _n(value: int) -> str:
    return f"{value:,}"


def _count_table(
    stats: Mapping[str, Any], levels: Sequence[str], seed_counts: Mapping[str, int]
) -> list[str]:
    by = stats["by_family_level"]
    head = "| family | " + " | ".join(levels) + " | total | seed's release |"
    lines = [head, "|" + "---|" * (len(levels) + 3)]
    for fam, counts in by.items():
        cells = [_n(counts.get(lv, 0)) for lv in levels]
        seed = seed_counts.get(fam)
        lines.append(
            f"| {fam.upper()} | " + " | ".join(cells) + f" | {_n(sum(counts.values()))} | "
            f"{'–' if seed is None else _n(seed)} |"
        )
    totals = [_n(sum(c.get(lv, 0) for c in by.values())) for lv in levels]
    lines.append(f"| total | {' | '.join(totals)} | {_n(stats['n_items'])} | {_n(seed_counts['total'])} |")
    return lines


def _draw_table(stats: Mapping[str, Any]) -> list[str]:
    lines = [
        "| family | level | asked | eligible | drawn | how | patients |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, d in stats["draws"].items():
        fam, level = key.split("/")
        asked = "all" if d["wanted"] is None else str(d["wanted"])
        who = ", ".join(d["chosen"]) or "–"
        lines.append(
            f"| {fam} | {level} | {asked} | {d['eligible']} | {len(d['chosen'])} | {d['note']} | {who} |"
        )
    return lines


def _template_table(stats: Mapping[str, Any], specs: Mapping[str, Mapping[str, Any]]) -> list[str]:
    lines = [
        "| template | level | answer | metric | headline | items | dropped | why dropped |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for tid, spec in specs.items():
        drops = stats["drops"].get(tid, {})
        why = "; ".join(f"{r} ({n})" for r, n in drops.items()) or "–"
        lines.append(
            f"| {tid} | {spec['level']} | {spec['answer_type']} | {spec['metric']} | "
            f"{'yes' if spec['in_headline'] else 'no'} | {stats['by_template'].get(tid, 0)} | "
            f"{sum(drops.values())} | {why} |"
        )
    return lines


def _window_lines(stats: Mapping[str, Any], complete: int | None) -> list[str]:
    if complete is not None:
        return _held_out_lines(stats, complete)
    cut = {s: w for s, w in stats["windows"].items() if w["days"] < w["record_days"]}
    lines = [
        "Records longer than 30 days are cut to the 30 consecutive whole days with the most CGM "
        "readings (the earliest such window on a tie); shorter records are kept whole "
        "(docs/cgm-benchmark.md).",
        "",
    ]
    if not cut:
        return [*lines, "No record was cut."]
    lines += ["| patient | record days | window (days) | readings in window |", "|---|---|---|---|"]
    for s, w in cut.items():
        last = w["first_day"] + w["days"] - 1
        lines.append(f"| {s} | {w['record_days']} | {w['first_day']}–{last} | {_n(w['readings'])} |")
    return lines


def _held_out_lines(stats: Mapping[str, Any], complete: int) -> list[str]:
    """The windows of real data, each with its held-out last day and why it is that day."""
    lines = [
        "On real data the last day of a window is the recorded future the PD templates hold out, so "
        f"it must be complete: at least {complete} of 288 readings (80 %). Each record's window is, "
        "among those of up to 30 days ending on a complete day, the one with the most CGM readings "
        "(the earliest on a tie); a record of 30 days or fewer thus ends on its last complete day "
        "(docs/cgm-benchmark.md).",
        "",
        "| patient | record days | window (days) | readings in window | held-out day (readings) | "
        "why this day |",
        "|---|---|---|---|---|---|",
    ]
    for s, w in stats["windows"].items():
        last = w["first_day"] + w["days"] - 1
        left, (a, b, n) = w["left_out_days"], w.get("densest", (w["first_day"], last, 0))
        if left:
            why = "later day(s) partial or less dense: " + ", ".join(f"{d} ({_n(k)})" for d, k in left)
        elif b != last:
            why = f"the densest window, days {a}–{b}, ends on partial day {b} ({_n(n)})"
        else:
            why = "last day of the densest window, complete"
        lines.append(
            f"| {s} | {w['record_days']} | {w['first_day']}–{last} | {_n(w['readings'])} | "
            f"{last} ({_n(w['last_day_readings'])}) | {why} |"
        )
    return lines


#: What the datasheet says each run is.
_RUN_TEXT = {
    "folder": "the data folder",
    "twin": "the data folder's fault-free twin",
}


def _run_lines(manifest: Mapping[str, Any]) -> list[str]:
    """Which run each family was built from, and why (the seed's design)."""
    runs, data = manifest.get("runs", {}), manifest["data"]
    faults = data.get("faults", "none")
    lines = [
        "| family | built from |",
        "|---|---|",
        *(f"| {f.upper()} | {_RUN_TEXT.get(r, r)} |" for f, r in runs.items()),
        "",
    ]
    seed = (
        "The seed releases AD from a fault-injected 30-day run and PM and PD from a normal run of the "
        "same patients and scenario (PD's counterfactuals regenerated from the saved scenario; "
        "`shared/specs/healthloopqa.md`)."
    )
    twin = manifest.get("twin")
    if twin is not None:
        lines.append(
            f"{seed} So AD asks about the data folder (faults `{faults}`) and PM and PD about its "
            "fault-free twin: the same simulation (profile, patients, days, controller, sensor, meals, "
            "exercise, seed, engine) re-run by the build with faults `none`. The scenario is drawn "
            "apart from the faults, so the twin has the folder's meals and exercise; it was checked "
            "to match them and the folder's readings up to each patient's first fault. Its readings' "
            f"sha256 is `{twin['readings_sha256']}` (`wearbench verify` simulates it again and checks "
            f"it); its context files are under `{twin['contexts']}/`. Without it the faults would leak "
            "into the PM answers (a zero-reading fault makes every minimum 0 mg/dL; a false meal, "
            "announced but not eaten, counts as a meal) and into the PD contexts."
        )
    elif data["kind"] == "simulated" and faults != "none":
        lines.append(
            f"{seed} This benchmark was built with `--pm-pd-run same`: PM and PD ask about the "
            f"faulted folder itself (faults `{faults}`), so their answers and contexts hold the faults."
        )
    else:
        lines.append(f"{seed} This data has no faults, so every family reads it.")
    return lines


def _one_answer_lines(stats: Mapping[str, Any]) -> list[str]:
    """The templates whose items all have the same answer (a warning, not a drop)."""
    one = stats.get("one_answer", {})
    lines = [
        "Templates of two items or more whose items all have the same answer: a population prior "
        "(the answer most items have) scores 100 on them, so they measure little. They are kept.",
        "",
    ]
    if not one:
        return [*lines, "None."]
    lines += ["| template | items | the answer |", "|---|---|---|"]
    for tid, entry in one.items():
        shown = json.dumps(entry["answer"], ensure_ascii=False)
        shown = (shown if len(shown) <= 80 else shown[:79] + "…").replace("|", "\\|")
        lines.append(f"| {tid} | {entry['items']} | `{shown}` |")
    return lines


def render_cgm_datasheet(stats: Mapping[str, Any], manifest: Mapping[str, Any], levels: Sequence[str]) -> str:
    """The human-readable datasheet of a HealthLoopQA benchmark (Markdown)."""
    data = manifest["data"]
    seed_counts = SEED_COUNTS[data["kind"]]
    drops = stats["drop_reasons"]
    lines = [
        "# HealthLoopQA benchmark datasheet",
        "",
        f"Built by wearbench {manifest['wearbench_version']} from `{data['path']}` ({data['kind']} data, "
        f"{data['source']}), seed {manifest['seed']}, sampling `{manifest['sampling']}`, families "
        f"{', '.join(manifest['families'])}: {_n(stats['n_items'])} items over "
        f"{stats['n_patients']} patients.",
        "",
        "## Items per family and level",
        "",
        *_count_table(stats, levels, seed_counts),
        "",
        "The seed's counts are those of its released benchmark (simulated 1,044 = PM 369, AD 355, "
        "PD 320; real 472 = PM 367, PD 105; `shared/specs/healthloopqa.md`), drawn with seed 42 by "
        "`seed` sampling from its own runs (AD 12 eligible patients of a faulty run, PM 16 of a normal "
        "run with running, PD from a normal run).",
        "",
    ]
    for fam, why in stats["left_out"].items():
        lines.append(f"- {fam.upper()} left out: {why}.")
    lines += ["", "## Runs", "", *_run_lines(manifest), ""]
    lines += ["## Patients per family and level", "", *_draw_table(stats), ""]
    lines += ["## Windows", "", *_window_lines(stats, manifest.get("complete_day_readings")), ""]
    lines += ["## Dropped items", ""]
    lines.append(
        "A (template, patient) pair with no answer on the record is dropped and counted, never "
        "approximated: " + ("; ".join(f"{r}: {_n(n)}" for r, n in drops.items()) or "none") + "."
    )
    lines += ["", "## Templates with one answer", "", *_one_answer_lines(stats), ""]
    lines += ["## Per template", "", *_template_table(stats, manifest["templates"]), ""]
    return "\n".join(lines)
