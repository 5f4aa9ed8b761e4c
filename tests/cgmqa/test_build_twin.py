"""PM and PD from the fault-free twin of a faulted simulated run (``cgm build --pm-pd-run``).

Two folders of the same settings (2 patients x 3 days, healthloopqa, hcl-mpc, seed 42) are
written by ``wearbench cgm simulate``: ``faulted`` (``--faults random``) and ``normal``
(``--faults none``), the latter as an independent check of the twin the build simulates itself.
Three benchmarks (full sampling, seed 5): ``twin`` (the faulted folder, default
``--pm-pd-run normal``), ``same`` (the faulted folder, ``--pm-pd-run same``) and ``plain`` (the
normal folder, PM and PD).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("simglucose")

from wearbench import WearbenchError
from wearbench.cgmqa import build_cgm_benchmark, read_cgm_items, verify_cgm_benchmark
from wearbench.cgmqa._build import one_answer_templates
from wearbench.cli import main

from ._pdrun import simulate_folder


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("twin")
    simulate_folder(root / "faulted", faults="random")
    simulate_folder(root / "normal", faults="none")
    for name, data, extra in (
        ("twin", "faulted", []),
        ("same", "faulted", ["--pm-pd-run", "same"]),
        ("plain", "normal", ["--families", "pm,pd"]),
    ):
        args = ["cgm", "build", "--data", str(root / data), "--out", str(root / name), "--seed", "5"]
        main([*args, "--sampling", "full", "-q", *extra])
    return root


def _manifest(bench: Path) -> dict[str, Any]:
    return dict(json.loads((bench / "manifest.json").read_text(encoding="utf-8")))


def _by_id(bench: Path, families: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    return {i["id"]: i for i in read_cgm_items(bench) if i["family"] in families}


def _readings(folder: Path) -> dict[str, np.ndarray]:
    """Each subject's glucose column straight from ``readings.parquet`` (every grid point)."""
    df = pd.read_parquet(folder / "readings.parquet").sort_values(["subject_id", "time"])
    return {str(s): g["glucose"].to_numpy(dtype=np.float64) for s, g in df.groupby("subject_id")}


def test_pm_pd_items_equal_those_of_a_separate_fault_free_simulation(root: Path) -> None:
    """Bit for bit: every PM/PD item and context file of the twin build is that of the normal folder."""
    twin, plain = _by_id(root / "twin", ("pm", "pd")), _by_id(root / "plain", ("pm", "pd"))
    assert len(twin) > 50
    assert twin.keys() == plain.keys()
    for key, item in twin.items():
        other = plain[key]
        for which in ("readings", "events"):
            assert item["context"][which] == other["context"][which].replace("contexts/", "contexts/twin/", 1)
            a = (root / "twin" / item["context"][which]).read_bytes()
            assert a == (root / "plain" / other["context"][which]).read_bytes(), key
        strip = {k: v for k, v in item.items() if k != "context"}
        assert strip == {k: v for k, v in other.items() if k != "context"}, key


def test_the_manifest_records_the_twin_and_its_readings_hash(root: Path) -> None:
    m = _manifest(root / "twin")
    assert m["pm_pd_run"] == "normal"
    assert m["runs"] == {"ad": "folder", "pm": "twin", "pd": "twin"}
    assert m["data"]["faults"] == "random"
    assert m["counterfactuals"]["run"] == "twin"
    h = hashlib.sha256()
    for subject, bg in sorted(_readings(root / "normal").items()):
        h.update(subject.encode("utf-8") + b"\0" + bg.astype("<f8").tobytes())
    assert m["twin"]["readings_sha256"] == h.hexdigest()
    assert m["twin"]["faults"] == "none"
    sheet = (root / "twin" / "datasheet.md").read_text(encoding="utf-8")
    assert "| PM | the data folder's fault-free twin |" in sheet
    assert "| AD | the data folder |" in sheet
    assert m["twin"]["readings_sha256"] in sheet


def test_pm_2_minimum_is_the_faulted_zero_only_with_same(root: Path) -> None:
    """pm_2 (lowest reading): 0.0 on the faulted folder (a zero_reading fault), the twin's otherwise."""
    faulted, normal = _readings(root / "faulted"), _readings(root / "normal")
    labels = pd.read_parquet(root / "faulted" / "labels.parquet")
    assert set(labels.loc[labels["fault_label"] == "zero_reading", "subject_id"]) == set(faulted)
    for bench, readings in (("same", faulted), ("twin", normal)):
        got = {i["patient"]: i["answer"] for i in read_cgm_items(root / bench) if i["template"] == "pm_2"}
        assert got == {s: round(float(np.nanmin(bg)), 1) for s, bg in readings.items()}
        assert all((a == 0.0) == (bench == "same") for a in got.values())


def test_ad_items_still_come_from_the_faulted_folder(root: Path) -> None:
    twin, same = _by_id(root / "twin", ("ad",)), _by_id(root / "same", ("ad",))
    assert twin
    assert twin == same
    for item in twin.values():
        assert item["context"]["readings"].startswith("contexts/")
        assert "/twin/" not in item["context"]["readings"]
        for which in ("readings", "events"):
            path = item["context"][which]
            assert (root / "twin" / path).read_bytes() == (root / "same" / path).read_bytes()


def test_same_reads_every_family_from_the_folder(root: Path) -> None:
    m = _manifest(root / "same")
    assert m["pm_pd_run"] == "same"
    assert m["runs"] == {"ad": "folder", "pm": "folder", "pd": "folder"}
    assert "twin" not in m
    assert m["counterfactuals"]["run"] == "folder"
    assert not (root / "same" / "contexts" / "twin").exists()
    assert "built with `--pm-pd-run same`" in (root / "same" / "datasheet.md").read_text(encoding="utf-8")
    # a fault-free folder has no twin, whatever --pm-pd-run says
    plain = _manifest(root / "plain")
    assert plain["runs"] == {"pm": "folder", "pd": "folder"}
    assert "twin" not in plain


def test_verify_re_simulates_the_twin_and_checks_its_hash(root: Path, tmp_path: Path) -> None:
    report = verify_cgm_benchmark(root / "twin")
    assert report.ok
    assert report.n_items == len(read_cgm_items(root / "twin"))
    bad = tmp_path / "bad"
    shutil.copytree(root / "twin", bad)
    m = _manifest(bad)
    m["twin"]["readings_sha256"] = "0" * 64
    (bad / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    with pytest.raises(WearbenchError, match=r"fault-free twin re-simulated to other readings"):
        verify_cgm_benchmark(bad)
    # a PM answer tampered with is recomputed from the twin, not from the folder
    bad2 = tmp_path / "bad2"
    shutil.copytree(root / "twin", bad2)
    lines = (bad2 / "items.jsonl").read_text(encoding="utf-8").splitlines()
    k = next(n for n, line in enumerate(lines) if json.loads(line)["template"] == "pm_2")
    item = json.loads(lines[k])
    item["answer"] = 0.0
    lines[k] = json.dumps(item)
    (bad2 / "items.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert [i for i, _ in verify_cgm_benchmark(bad2).failures] == [item["id"]]


def test_one_answer_templates_by_hand() -> None:
    items = [
        {"template": "pm_13", "answer": "yes"},
        {"template": "pm_13", "answer": "yes"},
        {"template": "pm_14", "answer": "yes"},  # one item: not listed
        {"template": "ad_2", "answer": [{"start": 0, "end": 5}]},
        {"template": "ad_2", "answer": [{"end": 5, "start": 0}]},  # same JSON value
        {"template": "pm_1", "answer": 120.0},
        {"template": "pm_1", "answer": 121.0},
    ]
    assert one_answer_templates(items) == {
        "pm_13": {"items": 2, "answer": "yes"},
        "ad_2": {"items": 2, "answer": [{"end": 5, "start": 0}]},
    }


def test_the_datasheet_lists_the_one_answer_templates(root: Path) -> None:
    items = read_cgm_items(root / "twin")
    one = one_answer_templates(items)
    assert one  # 2 patients: several templates agree
    sheet = (root / "twin" / "datasheet.md").read_text(encoding="utf-8")
    section = sheet.split("## Templates with one answer", 1)[1].split("## Per template", 1)[0]
    rows = [r for r in section.splitlines() if r.startswith("| ") and not r.startswith("| template")]
    assert [r.split(" | ")[0][2:] for r in rows] == list(one)
    for tid, entry in one.items():
        answers = [i["answer"] for i in items if i["template"] == tid]
        assert len(answers) == entry["items"]
        assert all(a == entry["answer"] for a in answers)


def test_a_twin_that_differs_from_the_folder_is_refused(root: Path, tmp_path: Path) -> None:
    data = tmp_path / "run"
    shutil.copytree(root / "faulted", data)
    manifest = json.loads((data / "manifest.json").read_text(encoding="utf-8"))
    manifest["params"]["seed"] = 8  # another scenario than the folder's
    (data / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(WearbenchError, match=r"fault-free twin differs from it: subject .*--pm-pd-run same"):
        build_cgm_benchmark(data, tmp_path / "b", families="pm")
    assert not (tmp_path / "b").exists()
