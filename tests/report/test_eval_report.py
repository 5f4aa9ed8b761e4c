import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest
from tests.report.eval_fakes import fake_runs

from wearbench._errors import WearbenchError
from wearbench.report import report_runs, write_eval_report
from wearbench.runner import RunStore
from wearbench.scoring import compare_runs, score_run, score_store


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def _tags(text: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(text)
    return parser.tags


def _rows_of(text: str, table_id: str) -> list[list[str]]:
    body = re.search(rf'<table id="{table_id}">.*?<tbody>(.*?)</tbody>', text, re.S)
    assert body is not None
    return [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r"<tr>(.*?)</tr>", body.group(1))]


def test_leaderboard_matches_scores(eval_report, eval_runs, eval_items):
    text = eval_report.read_text(encoding="utf-8")
    board = {row[0]: row for row in _rows_of(text, "leaderboard-table")}
    assert set(board) == {"R1", "R2", "R3"}
    for tag, (info, rows) in zip(("R1", "R2", "R3"), eval_runs, strict=True):
        s = score_run(rows, eval_items, n_boot=300)
        a = s.overall
        assert board[tag][1] == info.model
        assert board[tag][3] == f"{a.n}/{len(eval_items)}"
        assert board[tag][4] == f"{a.value:.3f} [{a.lo:.3f}–{a.hi:.3f}]"
        assert board[tag][5] == f"{s.boot_lo:.3f}–{s.boot_hi:.3f}"
        assert board[tag][6].startswith(f"{s.parse_failures} (")
    accuracies = [float(row[4].split()[0]) for row in _rows_of(text, "leaderboard-table")]
    assert accuracies == sorted(accuracies, reverse=True)
    assert board["R2"][7] == "1"  # the one errored row
    assert board["R2"][9].startswith("A 6")  # the letter-A fan's bias is visible (about 60%)
    assert board["R2"][11] == "unknown"


def test_comparisons_match_compare_runs(eval_report, eval_runs, eval_items):
    rows = _rows_of(eval_report.read_text(encoding="utf-8"), "comparison-table")
    assert len(rows) == 3
    c = compare_runs(eval_runs[0][1], eval_runs[2][1], eval_items, n_boot=300)
    assert rows[1][2:6] == [str(c.n), f"{c.acc_a:.3f}", f"{c.acc_b:.3f}", f"{c.diff:+.3f}"]
    assert rows[1][6] == f"{c.ci_low:+.3f} to {c.ci_high:+.3f}"
    assert rows[1][9] == (f"p = {c.mcnemar_p:.2g}" if c.mcnemar_p >= 1e-6 else "p &lt; 1e-6")


def test_self_contained(eval_report):
    text = eval_report.read_text(encoding="utf-8")
    tags = _tags(text)
    assert not [t for t, _ in tags if t in ("script", "link", "iframe", "object", "embed")]
    urls = [v or "" for _, attrs in tags for k, v in attrs.items() if k in ("src", "href")]
    assert urls
    assert all(u.startswith(("data:image/png;base64,", "#")) for u in urls)
    assert "http://" not in text
    assert "https://" not in text
    assert "url(" not in text
    images = [a for t, a in tags if t == "img"]
    assert len(images) >= 8  # 6 label families + position bias + series


def test_responses_are_escaped(eval_report):
    text = eval_report.read_text(encoding="utf-8")
    assert "<script>" not in text
    assert "alert(1)</script>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&lt;/pre&gt;&lt;b&gt;bold?&lt;/b&gt; &amp; so on." in text
    assert text.count("<pre") == text.count("</pre>")  # no response closed its <pre> early
    assert [t for t, _ in _tags(text)].count("b") == text.count("<b>")


def test_examples_show_item_gold_and_picks(eval_report, eval_items):
    text = eval_report.read_text(encoding="utf-8")
    shown = re.findall(r'<article class="example" id="ex-([^"]+)">', text)
    assert len(shown) == 6
    by_id = {i.id: i for i in eval_items}
    types = [by_id[i].type for i in shown]
    assert len(set(types)) == len(types)  # round-robin over types
    block = text.split(f'id="ex-{shown[0]}"')[1].split("</article>")[0]
    gold = by_id[shown[0]].answer
    assert re.search(rf'<li class="gold"><b>{gold}\.</b> [^<]*<span class="tag gold">gold</span>', block)
    assert block.count('<img alt="series of') == 1


def test_deterministic_bytes(eval_runs, eval_bench, tmp_path):
    runs = eval_runs[1:]  # two runs: still a comparison table
    a = write_eval_report(runs, tmp_path / "a.html", bench_dir=eval_bench, n_examples=2, n_boot=200)
    b = write_eval_report(runs, tmp_path / "b.html", bench_dir=eval_bench, n_examples=2, n_boot=200)
    assert a.read_bytes() == b.read_bytes()
    assert "comparison-table" in a.read_text(encoding="utf-8")


def test_generated_stamp_only_when_given(eval_report, eval_runs, eval_items, tmp_path):
    assert "Generated" not in eval_report.read_text(encoding="utf-8")
    out = write_eval_report(eval_runs[:1], tmp_path / "c.html", items=eval_items, n_examples=0, n_boot=10,
                            generated="2026-01-01 00:00 UTC")  # fmt: skip
    assert "Generated 2026-01-01 00:00 UTC" in out.read_text(encoding="utf-8")


def test_without_bench_dir_series_are_skipped(eval_runs, eval_items, tmp_path):
    out = write_eval_report(eval_runs[:1], tmp_path / "r.html", items=eval_items, n_examples=2, n_boot=50)
    text = out.read_text(encoding="utf-8")
    assert text.count("Series not shown (no benchmark folder given)") == 2
    assert 'alt="series of' not in text
    assert "comparison-table" not in text  # a single run has nothing to compare


def test_items_from_the_runs_bench_or_error(eval_runs, eval_bench, tmp_path):
    out = write_eval_report(eval_runs[:1], tmp_path / "r.html", n_examples=1, n_boot=50)
    assert "leaderboard-table" in out.read_text(encoding="utf-8")
    lost = [(replace(info, bench=str(tmp_path / "gone")), rows) for info, rows in eval_runs[:1]]
    with pytest.raises(WearbenchError, match="bench_dir"):
        write_eval_report(lost, tmp_path / "x.html")
    with pytest.raises(WearbenchError, match="no runs"):
        write_eval_report([], tmp_path / "x.html", bench_dir=eval_bench)


def _stored(eval_bench: Path, eval_items, rundir: Path) -> None:
    with RunStore(rundir) as store:
        for info, rows in fake_runs(eval_items, eval_bench)[:2]:
            store.ensure_run(info)
            for row in rows:
                store.add(row)


def test_report_and_score_from_a_run_store(eval_bench, eval_items, eval_runs, tmp_path):
    _stored(eval_bench, eval_items, tmp_path / "runs")
    scores = score_store(tmp_path / "runs", n_boot=100)
    want = [score_run(rows, eval_items, n_boot=100) for _, rows in eval_runs[:2]]
    assert [s.to_dict() for s in scores] == [w.to_dict() for w in want]
    assert scores[0].summary_line().startswith(f"accuracy {want[0].overall}")
    assert "position bias: top letter A" in scores[1].to_text()
    one = score_store(tmp_path / "runs", eval_runs[1][0].run_id[:10], n_boot=100)
    assert [s.run_id for s in one] == [eval_runs[1][0].run_id]
    out = report_runs([tmp_path / "runs"], tmp_path / "report.html", n_examples=2, n_boot=100)
    assert len(_rows_of(out.read_text(encoding="utf-8"), "leaderboard-table")) == 2
    with pytest.raises(WearbenchError, match="no run store"):
        report_runs([tmp_path / "nothing"], tmp_path / "x.html")


def test_changed_benchmark_is_refused(eval_bench, eval_items, tmp_path):
    _stored(eval_bench, eval_items, tmp_path / "runs")
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "items.jsonl").write_text("", encoding="utf-8")
    with RunStore(tmp_path / "runs") as store:
        info = store.runs()[0]
    with RunStore(tmp_path / "runs2") as store:
        store.ensure_run(replace(info, bench=str(bench)))
    with pytest.raises(WearbenchError, match="changed since the run"):
        score_store(tmp_path / "runs2")


def test_local_model_paths_are_shortened_for_display() -> None:
    from wearbench.report._eval_html import model_label

    assert model_label("gguf:/root/.cache/m.gguf?chat_format=gemma") == "gguf:m.gguf?chat_format=gemma"
    assert model_label("gguf:m.gguf") == "gguf:m.gguf"
    assert model_label("openai:gpt-4o@http://127.0.0.1:8000/v1") == "openai:gpt-4o@http://127.0.0.1:8000/v1"
