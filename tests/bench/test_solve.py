"""Reference solvers scored with Wilson intervals; verify counts imported items apart."""

import json
from pathlib import Path

from wearbench.bench import read_items, verify_benchmark
from wearbench.scoring import solve_benchmark
from wearbench.scoring._solve import score_answers


def test_oracle_is_perfect_and_random_is_seeded(trend_bench: Path) -> None:
    n = len(read_items(trend_bench))
    oracle = solve_benchmark(trend_bench, "oracle")
    assert (oracle.overall.k, oracle.overall.n, oracle.n_skipped) == (n, n, 0)
    assert oracle.overall.hi == 1.0
    a, b = solve_benchmark(trend_bench, "random", seed=4), solve_benchmark(trend_bench, "random", seed=4)
    assert a == b
    assert a.overall.lo <= a.overall.value <= a.overall.hi


def test_score_answers_counts_missing_as_wrong(trend_bench: Path) -> None:
    items = read_items(trend_bench)
    answers = {items[0].id: items[0].answer}
    overall, by_type = score_answers(items, answers)
    assert (overall.k, overall.n) == (1, len(items))
    assert by_type["trend"].k == 1


def test_verify_agreement_counts_failures(trend_bench: Path, tmp_path: Path) -> None:
    bench = tmp_path / "b"
    bench.mkdir()
    for p in trend_bench.rglob("*"):
        if p.is_file():
            (bench / p.relative_to(trend_bench)).parent.mkdir(parents=True, exist_ok=True)
            (bench / p.relative_to(trend_bench)).write_bytes(p.read_bytes())
    lines = (bench / "items.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["answer"] = "A" if first["answer"] != "A" else "B"
    lines[0] = json.dumps(first)
    (bench / "items.jsonl").write_text("\n".join(lines) + "\n")
    report = verify_benchmark(bench)
    assert [i for i, _ in report.failures] == [first["id"]]
    assert report.agreement == 1 - 1 / len(lines)
    assert report.imported == ()
