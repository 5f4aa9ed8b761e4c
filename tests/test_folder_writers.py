"""Writers into an existing folder: a foreign folder is refused, a failed write leaves the old one."""

from contextlib import AbstractContextManager
from pathlib import Path

import pytest

import wearbench
from wearbench import WearbenchError
from wearbench._folder import rebuilt_folder, replaced_folder, write_text_atomic
from wearbench.cohort import Cohort, load_cohort, save_cohort
from wearbench.sources import import_source


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _siblings(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}."))


def _fail_in(folder: AbstractContextManager[Path], seen: list[str] | None = None) -> None:
    """Write ``report.md`` into the yielded folder, then fail (``seen``: what it held on entry)."""
    with folder as target:
        if seen is not None:
            assert sorted(p.name for p in target.iterdir()) == seen
        (target / "report.md").write_text("half")
        raise RuntimeError("disk full")


@pytest.fixture(scope="module")
def tiny() -> Cohort:
    cohort = wearbench.synth(3, 30, seed=1, reference_users=30)
    assert isinstance(cohort, Cohort)
    return cohort


def test_replaced_folder_swaps_only_on_success(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with replaced_folder(out, "thing", "m.txt") as new:
        (new / "m.txt").write_text("one")
        (new / "stale.txt").write_text("x")
        assert not out.exists()  # nothing at the target until the block ends
    assert _snapshot(out) == {"m.txt": b"one", "stale.txt": b"x"}
    with pytest.raises(RuntimeError):
        _fail_in(replaced_folder(out, "thing", "m.txt"))
    assert _snapshot(out) == {"m.txt": b"one", "stale.txt": b"x"}
    with replaced_folder(out, "thing", "m.txt") as new:
        (new / "m.txt").write_text("three")
    assert _snapshot(out) == {"m.txt": b"three"}  # the stale file of the old folder is gone
    assert _siblings(out) == []


def test_rebuilt_folder_restores_the_previous_content_on_failure(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    (out / "cohort").mkdir(parents=True)
    (out / "cohort" / "cohort.json").write_text("{}")
    (out / "report.md").write_text("old report")
    before = _snapshot(out)
    with pytest.raises(RuntimeError):
        _fail_in(rebuilt_folder(out, "demo", "cohort/cohort.json"), seen=[])
    assert _snapshot(out) == before
    assert _siblings(out) == []


def test_foreign_folder_is_refused_before_writing(tmp_path: Path, tiny: Cohort) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    with pytest.raises(
        WearbenchError, match=r"mine: folder is not empty and holds no cohort \(no cohort.json\)"
    ):
        save_cohort(tiny, out)
    assert _snapshot(out) == {"notes.txt": b"keep me"}
    assert _siblings(out) == []


def test_failed_cohort_save_leaves_the_previous_cohort(
    tmp_path: Path, tiny: Cohort, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = save_cohort(tiny, tmp_path / "cohort")
    before = _snapshot(out)
    real = Path.write_bytes

    def failing(self: Path, data: bytes) -> int:
        if self.name == "cohort.json":
            raise OSError(28, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", failing)
    smaller = wearbench.synth(2, 20, seed=2, reference_users=30)
    assert isinstance(smaller, Cohort)
    with pytest.raises(OSError, match="No space left"):
        save_cohort(smaller, out)
    monkeypatch.undo()
    assert _snapshot(out) == before
    assert _siblings(out) == []
    assert load_cohort(out).daily["user_id"].nunique() == 3


def test_failed_build_leaves_the_previous_benchmark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from wearbench.bench._artifact import write_artifact

    out = tmp_path / "bench"
    write_artifact(out, [], {}, {"seed": 1}, "first\n")
    before = _snapshot(out)
    assert before["datasheet.md"] == b"first\n"
    monkeypatch.setattr("wearbench.bench._artifact.json.dumps", lambda *a, **k: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        write_artifact(out, [], {}, {"seed": 2}, "second\n")
    assert _snapshot(out) == before
    assert _siblings(out) == []


def test_import_into_a_foreign_folder_is_refused_before_loading(tmp_path: Path) -> None:
    out = tmp_path / "data"
    out.mkdir()
    (out / "export.csv").write_text("x")
    # the source path does not even exist: the refusal comes first
    with pytest.raises(WearbenchError, match="holds no cohort"):
        import_source("csv", tmp_path / "missing.csv", out)
    assert _snapshot(out) == {"export.csv": b"x"}


def test_failed_demo_leaves_the_previous_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from wearbench.report import _demo

    out = tmp_path / "demo"
    (out / "cohort").mkdir(parents=True)
    (out / "cohort" / "cohort.json").write_text('{"old": true}')
    (out / "report.md").write_text("previous demo, 50 users")
    before = _snapshot(out)

    def boom(cohort: Cohort) -> None:
        raise WearbenchError("audit failed")

    monkeypatch.setattr(_demo, "audit_planted", boom)
    with pytest.raises(WearbenchError, match="audit failed"):
        _demo.run_demo(out, n_users=3, n_days=30, reference_users=30, local_model=False)
    assert _snapshot(out) == before
    assert _siblings(out) == []


def test_demo_refuses_a_foreign_folder(tmp_path: Path) -> None:
    from wearbench.report import run_demo

    (tmp_path / "thesis.tex").write_text("x")
    with pytest.raises(WearbenchError, match=r"holds no demo \(no cohort/cohort.json\)"):
        run_demo(tmp_path, n_users=3, n_days=30, local_model=False)
    assert _snapshot(tmp_path) == {"thesis.tex": b"x"}


def test_write_text_atomic_keeps_the_old_file_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = write_text_atomic(tmp_path / "r" / "report.html", "old")
    monkeypatch.setattr(Path, "replace", lambda self, target: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        write_text_atomic(page, "new")
    assert page.read_text() == "old"
    assert [p.name for p in page.parent.iterdir()] == ["report.html"]


def test_demo_rerun_with_other_sizes_replaces_the_folder(tmp_path: Path) -> None:
    from wearbench.report import run_demo

    out = tmp_path / "demo"
    run_demo(out, n_users=12, n_days=150, seed=3, reference_users=200, local_model=False)
    (out / "stale.txt").write_text("from the first run")
    again = run_demo(out, n_users=10, n_days=150, seed=3, reference_users=200, local_model=False)
    assert not (out / "stale.txt").exists()
    assert load_cohort(out / "cohort").daily["user_id"].nunique() == 10
    assert again.n_users == 10
    assert (out / "report.md").is_file()
    assert _siblings(out) == []
