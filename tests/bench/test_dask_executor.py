"""Executor specs, the Dask extra's error, and a dask-local:2 build byte-identical to a serial one."""

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import wearbench
from wearbench._errors import WearbenchError
from wearbench.bench import build_benchmark
from wearbench.cli import cli
from wearbench.cohort import Cohort
from wearbench.executors import DaskExecutor, LocalExecutor, executor_from_spec


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize(
    ("spec", "kind", "where"),
    [
        ("serial", LocalExecutor, 1),
        ("processes:1", LocalExecutor, 1),
        ("processes:3", LocalExecutor, 3),
        (" processes:12 ", LocalExecutor, 12),
        ("dask-local:2", DaskExecutor, 2),
        ("dask://127.0.0.1:8786", DaskExecutor, "tcp://127.0.0.1:8786"),
        ("dask://scheduler.example:1", DaskExecutor, "tcp://scheduler.example:1"),
        ("dask://[::1]:8786", DaskExecutor, "tcp://[::1]:8786"),
    ],
)
def test_spec_parses(spec: str, kind: type, where: object) -> None:
    ex = executor_from_spec(spec)
    assert type(ex) is kind
    if isinstance(ex, LocalExecutor):
        assert ex.workers == where
    elif spec.startswith("dask-local"):
        assert (ex.address, ex.n_workers) == (None, where)
    else:
        assert ex.address == where


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("threads:2", "unknown executor 'threads:2'; expected one of: serial, processes:N"),
        ("", "unknown executor ''"),
        ("processes", "unknown executor 'processes'"),
        ("processes:0", "N must be a whole number >= 1, got '0'"),
        ("processes:-2", "N must be a whole number >= 1, got '-2'"),
        ("dask-local:two", "N must be a whole number >= 1, got 'two'"),
        ("dask://127.0.0.1", "expected dask://HOST:PORT"),
        ("dask://:8786", "expected dask://HOST:PORT"),
        ("dask://host:70000", "expected dask://HOST:PORT with a port 1-65535"),
    ],
)
def test_bad_spec_is_a_clear_error(spec: str, message: str) -> None:
    with pytest.raises(WearbenchError, match="executor") as e:
        executor_from_spec(spec)
    assert message in str(e.value)


def test_constructors_connect_to_nothing() -> None:
    ex = executor_from_spec("dask://127.0.0.1:9")  # nothing listens there; not contacted yet
    assert repr(ex) == "DaskExecutor(tcp://127.0.0.1:9)"
    assert repr(executor_from_spec("dask-local:4")) == "DaskExecutor(dask-local:4)"
    assert repr(executor_from_spec("processes:2")) == "LocalExecutor(processes:2)"


def test_without_the_dask_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(WearbenchError, match=r"pip install 'wearbench\[dask\]'"):
        executor_from_spec("dask-local:1").open()


def test_no_scheduler_at_the_address_is_a_clear_error() -> None:
    pytest.importorskip("distributed")
    ex = DaskExecutor("tcp://127.0.0.1:9", timeout_s=0.5)  # port 9 (discard): nothing listens
    with pytest.raises(WearbenchError, match=r"no Dask scheduler answered at tcp://127\.0\.0\.1:9"):
        ex.open()


def test_local_executor_keeps_task_order() -> None:
    with executor_from_spec("processes:2") as ex:
        assert list(ex.map(abs, [-3, 1, -2, 5])) == [3, 1, 2, 5]


def test_cli_refuses_workers_with_executor(tmp_path: Path) -> None:
    got = CliRunner().invoke(
        cli,
        [
            "build",
            "--cohort",
            str(tmp_path),
            "--out",
            str(tmp_path / "b"),
            "--workers",
            "2",
            "--executor",
            "serial",
        ],
    )
    assert got.exit_code == 2
    assert "give --workers N or --executor SPEC, not both" in got.output


@pytest.fixture(scope="module")
def cohort() -> Cohort:
    return wearbench.synth(10, 200, seed=11, reference_users=200)


def test_dask_local_2_build_equals_serial(cohort: Cohort, tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    build_benchmark(cohort, tmp_path / "serial", seed=1)
    with executor_from_spec("dask-local:2") as ex:
        assert list(ex.map(abs, [-3, 1, -2])) == [3, 1, 2]  # one cluster, two maps
        build_benchmark(cohort, tmp_path / "dask", seed=1, executor=ex)
    a, b = files(tmp_path / "serial"), files(tmp_path / "dask")
    assert a.keys() == b.keys()
    assert {"items.jsonl", "manifest.json", "datasheet.md"} <= a.keys()
    for name in a:
        assert a[name] == b[name], name
