"""Same cohort + seed → byte-identical artifact; letters balanced; solvers behave."""

from collections import Counter
from pathlib import Path

import pytest

import wearbench
from wearbench.bench import build_benchmark, read_items, verify_benchmark
from wearbench.cohort import Cohort
from wearbench.scoring import solve_benchmark


@pytest.fixture(scope="module")
def cohort() -> Cohort:
    return wearbench.synth(10, 200, seed=11, reference_users=200)


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_same_bytes_even_with_workers(cohort: Cohort, tmp_path: Path) -> None:
    build_benchmark(cohort, tmp_path / "a", seed=1)
    build_benchmark(cohort, tmp_path / "b", seed=1, workers=2)
    a, b = files(tmp_path / "a"), files(tmp_path / "b")
    assert a.keys() == b.keys()
    assert {"items.jsonl", "manifest.json", "datasheet.md"} <= a.keys()
    for name in a:
        assert a[name] == b[name], name


def test_other_seed_moves_answer_letters(cohort: Cohort, tmp_path: Path) -> None:
    build_benchmark(cohort, tmp_path / "a", seed=1)
    build_benchmark(cohort, tmp_path / "c", seed=2)
    a = {i.id: i.answer for i in read_items(tmp_path / "a")}
    c = {i.id: i.answer for i in read_items(tmp_path / "c")}
    common = a.keys() & c.keys()  # the seed also picks metrics and windows
    assert len(common) >= len(a) // 3
    assert any(a[k] != c[k] for k in common)  # the same questions lettered differently


def test_letters_are_balanced_within_each_reasoning_group(cohort: Cohort, tmp_path: Path) -> None:
    build_benchmark(cohort, tmp_path / "a", seed=1)
    items = read_items(tmp_path / "a")
    for group in {i.reasoning for i in items}:
        counts = Counter(i.answer for i in items if i.reasoning == group)
        n = sum(counts.values())
        assert max(counts.values()) - min(counts.get(k, 0) for k in "ABCDEFGHIJ") <= 1, (group, n, counts)


def test_oracle_is_perfect_and_tampering_is_caught(cohort: Cohort, tmp_path: Path) -> None:
    out = tmp_path / "a"
    build_benchmark(cohort, out, seed=1)
    items = read_items(out)
    oracle = solve_benchmark(out, "oracle")
    assert (oracle.overall.k, oracle.overall.n) == (len(items), len(items))
    lines = (out / "items.jsonl").read_text().splitlines()
    first = items[0]
    wrong = next(k for k in "ABCDEFGHIJ" if k != first.answer)
    lines[0] = lines[0].replace(f'"answer":"{first.answer}"', f'"answer":"{wrong}"')
    (out / "items.jsonl").write_text("\n".join(lines) + "\n")
    report = verify_benchmark(out)
    assert [fid for fid, _ in report.failures] == [first.id]
    assert report.agreement == pytest.approx(1 - 1 / len(items))
