"""Outcome track: windows, labels, Linear features and heads, and run_predict + track score end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from wearbench._errors import WearbenchError
from wearbench.cli import cli
from wearbench.sources import synthesize, synthesize_minutes
from wearbench.tracks import (
    PLANNED_OUTCOME_MODELS,
    SYNTHETIC_TASKS,
    OutcomeTask,
    cohort_labels,
    fit_predict,
    linear_features,
    read_outcome_results,
    run_predict,
    segment_summary,
    synthetic_labels,
    window_mask,
)


def test_window_mask_bounds_inclusive() -> None:
    dates = np.arange(np.datetime64("2024-01-01"), np.datetime64("2024-01-11"))
    t = np.datetime64("2024-01-05")
    task = OutcomeTask("x", "Medical", "binary", "x", before=2, after=1)
    assert window_mask(dates, t, task).nonzero()[0].tolist() == [2, 3, 4, 5]
    whole = OutcomeTask("x", "Medical", "binary", "x")
    assert window_mask(dates, t, whole).nonzero()[0].tolist() == [0, 1, 2, 3, 4]


def test_segment_summary_by_hand() -> None:
    day = np.full((1, 19, 1440), np.nan, dtype=np.float32)
    day[0, 0, :60] = 1.0  # hour 0: 60 steps; hour 1: 120 steps; the rest unobserved
    day[0, 0, 60:120] = 2.0
    s = segment_summary(day)
    assert s.shape == (1, 38)
    assert s[0, 0] == pytest.approx(90.0)
    assert s[0, 19] == pytest.approx(30.0)
    assert np.isnan(s[0, 1])
    assert np.isnan(s[0, 20])
    assert linear_features(np.array([[1.0, np.nan], [3.0, np.nan]])).tolist()[0] == 2.0


def test_heads_recover_signal() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3))
    y_reg = 2 * x[:, 0] - x[:, 1]
    pred = fit_predict("regression", x[:150], y_reg[:150], x[150:])
    assert np.corrcoef(pred, y_reg[150:])[0, 1] > 0.99
    y_bin = (x[:, 0] > 0).astype(float)
    p = fit_predict("binary", x[:150], y_bin[:150], x[150:])
    assert ((p > 0.5) == (y_bin[150:] > 0.5)).mean() > 0.9
    y_cls = np.digitize(x[:, 0], [-0.5, 0.5]).astype(float)
    c = fit_predict("multiclass", x[:150], y_cls[:150], x[150:])
    assert set(np.unique(c)) <= {0.0, 1.0, 2.0}
    assert (c == y_cls[150:]).mean() > 0.7


def test_synthetic_labels_follow_the_cohort() -> None:
    cohort = synthesize(6, 5, 1, reference_users=0)
    labels = synthetic_labels(cohort)
    assert set(labels["task"]) == set(SYNTHETIC_TASKS)
    sex = labels[labels["task"] == "sex"].set_index("user_id")["value"]
    demo = cohort.demographics.set_index("user_id")
    assert sex.to_dict() == {u: float(demo.loc[u, "sex"] == "M") for u in demo.index}
    ldl = labels[labels["task"] == "high_ldl"].set_index("user_id")["value"]
    first = cohort.blood.sort_values("draw_date").drop_duplicates("user_id").set_index("user_id")["ldl"]
    assert ldl.to_dict() == {u: float(v >= 130) for u, v in first.items()}


@pytest.fixture(scope="module")
def cohort_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("outcome") / "minutes"
    synthesize_minutes(12, 8, 0, out)
    return out


def test_run_predict_and_score_end_to_end(cohort_dir: Path, tmp_path: Path) -> None:
    res = tmp_path / "res"
    r = CliRunner().invoke(cli, ["track", "predict", "--data", str(cohort_dir), "--methods", "linear",
                                  "--out", str(res), "-q"])  # fmt: skip
    assert r.exit_code == 0, r.output
    manifest, preds = read_outcome_results(res)
    assert manifest["kind"] == "wearbench-outcome-results"
    assert manifest["labels"]["kind"] == "synthetic"
    assert manifest["split"]["n_test"] == 2
    assert manifest["fallback"]["linear"] == {"n": 0, "rate": 0.0}
    assert {p.task for p in preds} == set(SYNTHETIC_TASKS)
    n_test = {t: v["n_test"] for t, v in manifest["tasks"].items()}
    assert len(preds) == sum(n_test.values())
    r = CliRunner().invoke(cli, ["track", "score", str(res), "--format", "json", "--n-boot", "50"])
    assert r.exit_code == 0, r.output
    scored = json.loads(r.output)
    assert scored["track"] == "outcome"
    assert scored["baseline"] == "linear"
    assert scored["scopes"][0] == "Overall"
    assert all(c["skill"] == 0.0 for c in scored["methods"]["linear"].values())
    again = run_predict(cohort_dir, ["linear"], tmp_path / "again")
    assert again["results"]["sha256"] == manifest["results"]["sha256"]


def test_labels_file_and_refusals(cohort_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(PLANNED_OUTCOME_MODELS, "future", "not yet")
    with pytest.raises(WearbenchError, match="not built yet"):
        run_predict(cohort_dir, ["future"], tmp_path / "x")
    folder = tmp_path / "copy"
    folder.mkdir()
    for f in cohort_dir.rglob("*"):
        if f.is_file():
            (folder / f.relative_to(cohort_dir)).parent.mkdir(parents=True, exist_ok=True)
            (folder / f.relative_to(cohort_dir)).write_bytes(f.read_bytes())
    ids = [f"u{i:04d}" for i in range(1, 13)]
    pd.DataFrame({"user_id": ids, "task": "sex", "value": [i % 2 for i in range(12)],
                  "date": "2024-01-08"}).to_csv(folder / "labels.csv", index=False)  # fmt: skip
    labels, origin = cohort_labels(folder)
    assert origin["kind"] == "file"
    assert labels["value"].sum() == 6
    m = run_predict(folder, ["linear"], tmp_path / "r")
    assert list(m["tasks"]) == ["sex"]
    assert m["tasks"]["sex"]["n_train"] + m["tasks"]["sex"]["n_test"] <= 12
