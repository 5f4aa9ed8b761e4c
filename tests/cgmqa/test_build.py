"""`wearbench cgm build` and `wearbench verify` on a small simulated run (3 patients x 4 days).

The run is written by ``wearbench cgm simulate --profile healthloopqa --faults random`` and the
benchmarks by the CLI, so this covers the command-line contract end to end.
"""

from __future__ import annotations

import csv
import json
import lzma
import shutil
from pathlib import Path

import pytest

pytest.importorskip("simglucose")

from wearbench import WearbenchError
from wearbench.cgmqa import (
    CONTEXT_SUFFIX,
    LEVELS,
    build_cgm_benchmark,
    get_template,
    open_context,
    read_cgm_items,
    read_context_bytes,
    templates,
    verify_cgm_benchmark,
)
from wearbench.cli import main

PATIENTS = ("adolescent#002", "adult#003", "child#001")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``root/run`` (the simulation) and ``root/full``, ``root/full2``, ``root/seed`` (benchmarks)."""
    root = tmp_path_factory.mktemp("cgmbuild")
    main(
        [
            "cgm",
            "simulate",
            "--profile",
            "healthloopqa",
            "--days",
            "4",
            "--patients",
            ",".join(PATIENTS),
            "--controller",
            "hcl-mpc",
            "--faults",
            "random",
            "--seed",
            "7",
            "--out",
            str(root / "run"),
        ]
    )
    for name, sampling in (("full", "full"), ("full2", "full"), ("seed", "seed")):
        main(
            [
                "cgm",
                "build",
                "--data",
                str(root / "run"),
                "--out",
                str(root / name),
                "--seed",
                "5",
                "--sampling",
                sampling,
                "-q",
            ]
        )
    return root


def _manifest(bench: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((bench / "manifest.json").read_text(encoding="utf-8"))


def test_items_carry_the_contract_fields(built: Path) -> None:
    items = read_cgm_items(built / "full")
    assert items
    for item in items:
        assert item["family"] in ("ad", "pm", "pd")
        assert item["template"].startswith(item["family"] + "_")
        assert item["level"] in LEVELS
        assert item["patient"] in PATIENTS
        assert item["id"] == f"{item['template']}-{item['patient']}"
        assert item["context"]["first_day"] == 1
        assert item["context"]["days"] == 4
        assert (built / "full" / item["context"]["readings"]).is_file()
        for key in ("abilities", "answer_type", "metric", "in_headline", "params", "question", "instruction"):
            assert key in item
    assert len({i["id"] for i in items}) == len(items)


def test_full_counts_every_pair_per_family_and_level(built: Path) -> None:
    m = _manifest(built / "full")
    counts, drops = m["counts"], m["drops"]
    assert m["kind"] == "healthloopqa"
    assert m["sampling"] == "full"
    assert m["seed"] == 5
    for fam in ("ad", "pm", "pd"):
        for level in LEVELS:
            ts = templates(fam, level)
            got = counts["by_family_level"][fam].get(level, 0)
            dropped = sum(sum(drops.get(t.id, {}).values()) for t in ts)
            assert got + dropped == 3 * len(ts), (fam, level)
    assert counts["n_items"] == sum(counts["by_family"].values())
    assert counts["n_items"] == len(read_cgm_items(built / "full"))
    # a 4-day run: ad_16 asks about day 30, pm_38 about weeks 2 and 3
    assert drops["ad_16"] == {"no answer on this record": 3}
    assert drops["pm_38"] == {"no answer on this record": 3}
    assert m["data"]["kind"] == "simulated"
    assert m["data"]["path"] == str((built / "run").resolve())


def test_seed_sampling_on_three_patients_takes_all_and_says_so(built: Path) -> None:
    m = _manifest(built / "seed")
    assert m["draws"]["pm/descriptive"]["note"] == "only 3 eligible, fewer than the 8 asked for: took all"
    assert m["draws"]["ad/descriptive"]["chosen"] == list(PATIENTS)
    # every patient drawn for every level: the same items as the full build (params draws per item)
    assert (built / "seed" / "items.jsonl").read_bytes() == (built / "full" / "items.jsonl").read_bytes()
    sheet = (built / "seed" / "datasheet.md").read_text(encoding="utf-8")
    assert "| PM |" in sheet
    assert "| 369 |" in sheet  # the seed's PM count beside ours
    assert "only 3 eligible, fewer than the 10 asked for: took all" in sheet


def test_rebuild_is_byte_identical(built: Path) -> None:
    a, b = built / "full", built / "full2"
    files = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    windows = {i["context"]["readings"] for i in read_cgm_items(a)}
    # items, manifest, datasheet; 2 context files per window: one whole window per patient and run
    # (the faulted folder for AD, its fault-free twin for PM), and one per "now" of the prediction
    # items (the twin's)
    assert len([w for w in windows if "_until" not in w]) == 6
    assert all(w.startswith("contexts/twin/") for w in windows if "_until" in w)
    assert len(files) == 3 + 2 * len(windows)
    for f in files:
        assert (a / f).read_bytes() == (b / f).read_bytes(), f


def test_verify_passes_and_detects_a_tampered_answer(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = verify_cgm_benchmark(built / "full")
    assert report.ok
    assert report.n_verified == report.n_items == len(read_cgm_items(built / "full"))
    main(["verify", str(built / "full"), "-q"])
    assert f"verified {report.n_items}/{report.n_items} (1.000), 0 mismatch(es)" in capsys.readouterr().out
    bad = tmp_path / "bad"
    shutil.copytree(built / "full", bad)
    lines = (bad / "items.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["answer"] = (
        [] if isinstance(first["answer"], list) and first["answer"] else [{"start": 0, "end": 5}]
    )
    lines[0] = json.dumps(first)
    (bad / "items.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = verify_cgm_benchmark(bad)
    assert [i for i, _ in report.failures] == [first["id"]]
    assert "recomputed answer" in report.failures[0][1]
    assert report.file_failures == (("items.jsonl", "sha256 differs from the manifest"),)
    with pytest.raises(SystemExit) as exit_info:
        main(["verify", str(bad), "-q"])
    assert exit_info.value.code == 1
    assert f"FAILED {first['id']}: recomputed answer" in capsys.readouterr().out


def test_verify_refuses_changed_data(built: Path, tmp_path: Path) -> None:
    data = tmp_path / "run"
    shutil.copytree(built / "run", data)
    main(["cgm", "build", "--data", str(data), "--out", str(tmp_path / "b"), "--families", "pm", "-q"])
    with (data / "readings.parquet").open("ab") as f:
        f.write(b"\0")
    with pytest.raises(WearbenchError, match=r"readings\.parquet: missing, or its sha256 differs"):
        verify_cgm_benchmark(tmp_path / "b")


def test_cli_bad_input_is_one_line(built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for args, message in (
        (["--data", str(tmp_path)], "not a CGM folder"),
        (
            ["--data", str(built / "run"), "--families", "ad,xyz"],
            "families ['xyz']: unknown; valid: ad, pm, pd",
        ),
    ):
        with pytest.raises(SystemExit) as exit_info:
            main(["cgm", "build", *args, "--out", str(tmp_path / "out"), "-q"])
        assert exit_info.value.code == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert message in err
    assert not (tmp_path / "out").exists()


def test_pd_items_come_from_the_rerun_and_the_manifest_says_so(built: Path) -> None:
    m = _manifest(built / "full")
    items = read_cgm_items(built / "full")
    whatif = {t.id for t in templates("pd") if "counterfactual" in t.needs}
    assert len(whatif) == 12
    got = {i["template"] for i in items if i["template"] in whatif}
    assert got  # answered from the re-simulation, not dropped as "needs a counterfactual"
    assert all("needs a counterfactual re-simulation" not in d for d in m["drops"].values())
    cf = m["counterfactuals"]
    assert cf["engine"] in ("numpy", "numba")
    assert cf["wearbench_version"] == m["wearbench_version"]
    assert cf["checkpoint_every_min"] == 60
    assert cf["items"] == sum(1 for i in items if i["template"] in whatif)


def _rows(path: Path) -> list[list[str]]:
    return [r.split(",") for r in lzma.decompress(path.read_bytes()).decode("utf-8").splitlines()]


def test_pd_contexts_end_at_now(built: Path) -> None:
    """No reading after now, no insulin sample reaching past now, no event at or after now."""
    items = [i for i in read_cgm_items(built / "full") if i["family"] == "pd"]
    assert items
    for item in items:
        ctx = item["context"]
        now = get_template(item["template"]).context_end(item["params"])
        assert now is not None
        assert ctx["until_minute"] == now
        header, *body = _rows(built / "full" / ctx["readings"])
        minutes = [int(r[0]) for r in body]
        assert minutes == list(range(0, now + 1, 5))  # every point up to now, nothing later
        assert header[-1] == "insulin_mu_per_min"  # the simulator writes insulin per sample
        # a sample is the mean over [t, t + 5): the one at now reaches past it and is left empty
        assert [r[4] == "" for r in body] == [m + 5 > now for m in minutes]
        events = _rows(built / "full" / ctx["events"])[1:]
        assert all(float(e[0]) < now for e in events)
    whole = [i for i in read_cgm_items(built / "full") if i["family"] != "pd"]
    assert all("until_minute" not in i["context"] for i in whole)


@pytest.mark.parametrize("bench", ["full", "seed"])
def test_no_context_file_an_item_reads_holds_its_future(built: Path, bench: str) -> None:
    """Property over every item of both samplings: its files end by its now (or its window's end).

    The files are read the way every consumer reads them (``open_context``), and items that share
    a (run, patient, window, now) share the files (the run: the faulted folder for AD, its
    fault-free twin, under ``contexts/twin/``, for PM and PD).
    """
    items = read_cgm_items(built / bench)
    for item in items:
        ctx = item["context"]
        end = ctx.get("until_minute", 1440 * ctx["days"])  # now, or the window's end
        for which in ("readings", "events"):
            path = built / bench / ctx[which]
            assert path.name.endswith(CONTEXT_SUFFIX)
            rows = list(csv.DictReader(open_context(path)))
            assert rows or which == "events"
            assert all(float(r["minute"]) <= end for r in rows), item["id"]
    shared: dict[tuple[bool, str, int, int, int | None], str] = {}
    for item in items:
        ctx = item["context"]
        assert ctx["readings"].startswith("contexts/twin/") == (item["family"] != "ad")
        key = (
            item["family"] == "ad",
            item["patient"],
            ctx["first_day"],
            ctx["days"],
            ctx.get("until_minute"),
        )
        assert shared.setdefault(key, ctx["readings"]) == ctx["readings"]
    assert len(shared) < len(items)  # several items per file


def test_context_files_are_compressed_and_rounded(built: Path) -> None:
    """xz at least 3x smaller than the CSV; glucose kept to 0.1 mg/dL, insulin to 0.01 mU/min."""
    paths = sorted(p for p in (built / "full" / "contexts").rglob("*") if p.is_file())
    packed = sum(p.stat().st_size for p in paths)
    plain = sum(len(read_context_bytes(p)) for p in paths)
    assert plain > 3 * packed
    for p in paths:
        if p.name.endswith(".readings.csv.xz"):
            for r in csv.DictReader(open_context(p)):
                assert len(r["glucose_mgdl"].partition(".")[2]) <= 1
                assert len(r["insulin_mu_per_min"].partition(".")[2]) <= 2


def test_verify_recomputes_counterfactual_answers(built: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(built / "full", bad)
    lines = (bad / "items.jsonl").read_text(encoding="utf-8").splitlines()
    k = next(n for n, line in enumerate(lines) if json.loads(line)["template"] == "pd_19")
    item = json.loads(lines[k])
    item["answer"] = item["answer"] + 1.0
    lines[k] = json.dumps(item)
    (bad / "items.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = verify_cgm_benchmark(bad)
    assert [i for i, _ in report.failures] == [item["id"]]


def test_a_folder_that_cannot_rerun_fails_with_a_hint(built: Path, tmp_path: Path) -> None:
    data = tmp_path / "run"
    shutil.copytree(built / "run", data)
    manifest = json.loads((data / "manifest.json").read_text(encoding="utf-8"))
    manifest["params"]["seed"] = 8  # another run than the readings: the re-run differs
    (data / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(WearbenchError, match=r"cannot be re-simulated: .*Hint: .*--families ad,pm"):
        build_cgm_benchmark(data, tmp_path / "b", families="pd", pm_pd_run="same")
    assert not (tmp_path / "b").exists()
    # without the counterfactual templates nothing is re-simulated
    main(["cgm", "build", "--data", str(data), "--out", str(tmp_path / "b"), "--families", "pm",
          "--pm-pd-run", "same", "-q"])  # fmt: skip
