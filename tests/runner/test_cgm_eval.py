"""`wearbench eval` / `score` on a HealthLoopQA benchmark (3 patients x 3 days, full sampling).

The expectations are computed here from ``items.jsonl`` and the context files with the metric
formulas written out (sMAPE item score ``100 * (1 - |p - e| / (|p| + |e|))``, Jaccard for day
lists, the closed form of affiliation for one interval over the whole range), not with the
scoring code under test.
"""

from __future__ import annotations

import csv
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("simglucose")

from tests.fake_openai import fake_openai_server

from wearbench import WearbenchError
from wearbench.cgmqa import open_context
from wearbench.cli import main
from wearbench.models import GenerateConfig
from wearbench.prompts import cgm_messages
from wearbench.report import report_runs
from wearbench.runner import ResultRow, RunStore, Setting, evaluate
from wearbench.scoring import score_cgm, score_runs

PATIENTS = ("adolescent#002", "adult#003", "child#001")


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A full-sampling HealthLoopQA benchmark of a 3-patient x 3-day profile run (~10 s)."""
    root = tmp_path_factory.mktemp("cgmeval")
    main(
        ["cgm", "simulate", "--profile", "healthloopqa", "--days", "3", "--patients", ",".join(PATIENTS),
         "--controller", "hcl-mpc", "--faults", "random", "--seed", "7", "--out", str(root / "run")]
    )  # fmt: skip
    main(["cgm", "build", "--data", str(root / "run"), "--out", str(root / "bench"), "--seed", "5",
          "--sampling", "full", "-q"])  # fmt: skip
    return root / "bench"


@pytest.fixture(scope="module")
def items(bench: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (bench / "items.jsonl").read_text(encoding="utf-8").splitlines()]


def _by_template(items: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        out[item["template"]].append(item)
    return out


def _run(bench: Path, out: Path, baseline: str) -> dict[str, Any]:
    summary = evaluate(bench, f"baseline:{baseline}", out)
    (score,) = score_runs(out, summary.info.run_id, n_boot=200)
    return score.to_dict()


def _smape_score(p: float, e: float) -> float:
    return 100.0 if p == e == 0 else 100 * (1 - abs(p - e) / (abs(p) + abs(e)))


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def _jaccard(p: set[int], e: set[int]) -> float:
    return 1.0 if not p and not e else len(p & e) / len(p | e)


def _f1(p: set[int], e: set[int]) -> float:
    if not p and not e:
        return 1.0
    hits = len(p & e)
    return 0.0 if not hits else 2 * hits / (len(p) + len(e))


def test_oracle_scores_exactly_100_with_no_parse_failure(bench: Path, items: list[dict[str, Any]],
                                                         tmp_path: Path) -> None:  # fmt: skip
    res = _run(bench, tmp_path / "r", "oracle")
    assert (res["kind"], res["score"], res["parse_failures"]) == ("healthloopqa", 100.0, 0)
    assert res["n"] == len(items)
    assert (res["ci_low"], res["ci_high"], res["errors"], res["missing"]) == (100.0, 100.0, 0, 0)
    assert set(res["by_family"]) == {"ad", "pm", "pd"}
    assert all(g["score"] == 100.0 for g in res["by_template"].values())
    with RunStore(tmp_path / "r") as store:
        (row, *_) = store.rows(store.runs()[0].run_id)
    assert row.response.startswith('{"answer": ')
    assert row.letter is None
    assert row.extra["kind"] == "healthloopqa"


def test_naive_mean_and_majority_match_the_formulas(bench: Path, items: list[dict[str, Any]],
                                                    tmp_path: Path) -> None:  # fmt: skip
    by = _by_template(items)
    mean = _run(bench, tmp_path / "m", "naive-mean")["by_template"]
    for tid in ("pm_0", "pm_2", "pm_4", "ad_29"):  # number mg/dL, number hours, integer minutes
        answers = [float(i["answer"]) for i in by[tid]]
        guess = _mean(answers)
        if by[tid][0]["answer_type"] == "integer":
            guess = round(guess)
        assert mean[tid]["score"] == pytest.approx(_mean([_smape_score(guess, e) for e in answers]), abs=1e-4)
    assert {i["answer"] for i in by["ad_1"]} == {3.12}  # the same share of missing readings for all 3
    assert mean["ad_1"]["score"] == 100.0  # every truth 3.12: the mean is the truth, perfect
    majority = _run(bench, tmp_path / "j", "naive-majority")["by_template"]
    for tid in ("pd_12", "pm_23", "pd_15"):  # yes/no and category: share of the modal answer
        counts = Counter(i["answer"] for i in by[tid])
        assert majority[tid]["score"] == pytest.approx(100 * max(counts.values()) / len(by[tid]))
    for tid in ("pm_15", "ad_38"):  # day lists: set F1 (pm_15) or Jaccard (ad_38) with the modal list
        lists = [tuple(i["answer"]) for i in by[tid]]
        mode = set(Counter(lists).most_common(1)[0][0])
        fit = _f1 if by[tid][0]["metric"] == "f1" else _jaccard
        assert majority[tid]["score"] == pytest.approx(100 * _mean([fit(mode, set(t)) for t in lists]))
    assert not {"pm_0", "ad_3"} & set(majority)  # a run holds only the items its baseline covers


def _last_glucose(path: Path) -> float:
    return [float(r["glucose_mgdl"]) for r in csv.DictReader(open_context(path)) if r["glucose_mgdl"]][-1]


def test_naive_last_is_the_last_reading_of_the_context(bench: Path, items: list[dict[str, Any]],
                                                       tmp_path: Path) -> None:  # fmt: skip
    by = _by_template(items)
    res = _run(bench, tmp_path / "l", "naive-last")
    for tid in ("pm_0", "pd_1"):  # mean glucose; a forecast from a context that ends at "now"
        scores = [
            _smape_score(_last_glucose(bench / i["context"]["readings"]), float(i["answer"])) for i in by[tid]
        ]
        assert res["by_template"][tid]["score"] == pytest.approx(_mean(scores), abs=1e-4)
    assert "pm_4" not in res["by_template"]  # hours, not mg/dL: not covered
    assert res["n"] == sum(i["answer_type"] in ("number", "integer") and i["unit"] == "mg/dL" for i in items)


def test_interval_baselines_match_the_formulas(
    bench: Path, items: list[dict[str, Any]], tmp_path: Path
) -> None:
    by = _by_template(items)
    empty = _run(bench, tmp_path / "e", "naive-empty")
    assert empty["n"] == sum(i["answer_type"] in ("intervals", "day_value_list") for i in items)
    assert empty["by_template"]["ad_3"]["score"] == 0.0  # every truth here is non-empty
    assert empty["by_template"]["ad_17"]["score"] == 0.0
    allday = _run(bench, tmp_path / "a", "naive-allday")["by_template"]
    for tid in ("ad_17", "ad_44"):  # one true event [a, b] per item; prediction [0, T] = the whole range
        fs = []
        for item in by[tid]:
            ((a, b),) = [(e["start"], e["end"]) for e in item["answer"]]
            p0 = (b - a) / (1440 * item["context"]["days"] - 5)  # share of the range inside the event
            precision = p0 + (1 - p0) ** 2 / 2  # recall is 1: every true point is predicted
            fs.append(2 * precision / (1 + precision))
        assert allday[tid]["score"] == pytest.approx(100 * _mean(fs), abs=1e-9)


def test_a_malformed_answer_is_a_parse_failure_scored_0(bench: Path, items: list[dict[str, Any]],
                                                        tmp_path: Path) -> None:  # fmt: skip
    summary = evaluate(bench, "baseline:oracle", tmp_path / "r")
    with RunStore(tmp_path / "r") as store:
        rows = store.rows(summary.info.run_id)
    target = next(i for i in items if i["template"] == "pm_0")
    bad = [
        ResultRow(**{**r.to_dict(), "response": "somewhere around a hundred and fifty"})
        if r.item_id == target["id"] else r
        for r in rows
    ]  # fmt: skip
    res = score_cgm(summary.info, bad, n_boot=100).to_dict()
    assert (res["n"], res["parse_failures"]) == (len(items), 1)
    assert res["score"] == pytest.approx(100 * (len(items) - 1) / len(items))
    assert res["by_template"]["pm_0"]["parse_failures"] == 1
    assert res["by_template"]["pm_0"]["score"] == pytest.approx(100 * 2 / 3)
    assert res["score_parsed_only"] == 100.0


def test_cli_json_schema_and_table(bench: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    main(["eval", "--bench", str(bench), "--model", "baseline:naive-majority", "--out", str(tmp_path), "-q"])
    assert "score " in capsys.readouterr().out
    main(["score", str(tmp_path), "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert {"kind", "score", "ci_low", "ci_high", "n", "parse_failures", "by_family", "by_level",
            "by_family_level", "by_template", "template_metrics"} <= set(data)  # fmt: skip
    assert data["kind"] == "healthloopqa"
    assert set(data["by_family"]) <= {"pm", "ad", "pd"}
    assert {"score", "ci_low", "ci_high", "n", "parse_failures"} <= set(data["by_family"]["pd"])
    page = report_runs([tmp_path], tmp_path / "report.html", n_boot=100).read_text(encoding="utf-8")
    assert 'id="hlqa-table2"' in page
    assert "baseline:naive-majority" in page
    main(["score", str(tmp_path)])
    text = capsys.readouterr().out.splitlines()
    assert text[3].split() == ["family", "descriptive", "memory", "pattern", "all"]
    assert [line.split()[0] for line in text[4:8]] == ["PM", "AD", "PD", "overall"]
    assert any(line.startswith("pd_12 ") for line in text)


def test_wearableqa_baselines_refuse_cgm_items(bench: Path, tmp_path: Path) -> None:
    with pytest.raises(
        WearbenchError, match=r"answers WearableQA .* only; HealthLoopQA baselines: oracle, naive-"
    ):
        evaluate(bench, "baseline:random", tmp_path / "x")
    with pytest.raises(WearbenchError, match="direct and agent only"):
        evaluate(bench, "openai:m@http://127.0.0.1:9", tmp_path / "y", setting=Setting(mode="cot"))
    with pytest.raises(WearbenchError, match="expected one of"):
        evaluate(bench, "openai:m@http://127.0.0.1:9", tmp_path / "y", context_days=3)
    assert not (tmp_path / "x").exists()
    assert not (tmp_path / "y").exists()


# --- the structured prompt and a chat model over HTTP (the FAKE OpenAI-compatible server) -------


def _reading_rows(text: str) -> list[list[str]]:
    table = text.split("## CGM readings")[1].split("## Events")[0].strip().split("\n\n")[-1]
    return [line.split(",") for line in table.splitlines()[1:]]


def test_structured_prompt_has_readings_then_events_then_the_question(
    bench: Path, items: list[dict[str, Any]]
) -> None:
    item = next(i for i in items if i["template"] == "pm_0")
    system, user = cgm_messages(item, bench)
    assert system.role == "system"
    text = str(user.content)
    heads = ["## CGM readings", "## Events", "### Meals", "### Insulin boluses", "### Exercise",
             "### Hypoglycaemia treatments", "## Question"]  # fmt: skip
    assert [text.index(h) for h in heads] == sorted(text.index(h) for h in heads)
    assert text.endswith(item["question"] + "\n\n" + item["instruction"])
    rows = _reading_rows(text)
    assert len(rows) == 3 * 288  # the whole 3-day context
    assert (rows[0][0], rows[-1][0]) == ("0", str(3 * 1440 - 5))
    stored = [r["glucose_mgdl"] for r in csv.DictReader(open_context(bench / item["context"]["readings"]))]
    shown = [r[3] for r in rows]
    assert all(
        s == "" if g == "" else abs(float(s) - float(g)) <= 0.05 + 1e-9
        for s, g in zip(shown, stored, strict=True)
    )
    assert max(len(s.partition(".")[2]) for s in shown) == 1  # glucose to 0.1 mg/dL
    assert len(_reading_rows(str(cgm_messages(item, bench, 7)[1].content))) == 3 * 288  # 7 > 3 days
    one = _reading_rows(str(cgm_messages(item, bench, 1)[1].content))
    assert len(one) == 288
    assert {r[1] for r in one} == {"3"}  # the last day only


def test_a_prediction_prompt_ends_at_now(bench: Path, items: list[dict[str, Any]]) -> None:
    item = next(i for i in items if "until_minute" in i["context"])
    now = item["context"]["until_minute"]
    text = str(cgm_messages(item, bench, 1)[1].content)
    rows = _reading_rows(text)
    assert len(rows) == 288
    assert (int(rows[0][0]), int(rows[-1][0])) == (now - 1440 + 5, now)
    events = text.split("## Events")[1].split("## Question")[0]
    minutes = [int(line.split(",")[0]) for line in events.splitlines() if line[:1].isdigit()]
    assert all(now - 1440 < m < now for m in minutes)


def test_a_chat_model_answers_with_the_structured_prompt(bench: Path, items: list[dict[str, Any]],
                                                         tmp_path: Path) -> None:  # fmt: skip
    config = GenerateConfig(max_tokens=64, max_retries=1, backoff_s=0.0, timeout_s=20)
    with fake_openai_server() as (url, state):
        run = evaluate(bench, f"openai:fake@{url}", tmp_path, limit=8, config=config, context_days=1)
        assert state.requests == 8
        body = json.loads(state.seen[0][1])
    assert run.kind == "healthloopqa"
    assert run.info.params["context_days"] == 1
    assert "## CGM readings" in body["messages"][1]["content"]
    with RunStore(tmp_path) as store:
        rows = store.rows(run.info.run_id)
    assert len(rows) == 8
    assert all(r.error is None and r.response.startswith("Reasoning omitted. Answer: ") for r in rows)
    assert "[structured prompt from contexts/" in json.loads(rows[0].transcript)[1]["content"]
    res = score_cgm(run.info, rows, n_boot=100).to_dict()
    # The fake replies "Answer: <letter A-J>": never a number, yes/no, day list or interval list
    # (parse failures; a non-list interval answer is a failure, docs/cgm-scoring.md); read as a
    # category it is none of the categories.
    by_id = {i["id"]: i for i in items}
    unreadable = sum(by_id[r.item_id]["answer_type"] != "category" for r in rows)
    assert (res["n"], res["score"], res["parse_failures"]) == (8, 0.0, unreadable)
