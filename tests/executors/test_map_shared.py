"""``map_shared``: the shared object reaches every task, results in task order, any executor."""

import pytest

from wearbench.executors import DaskExecutor, LocalExecutor


def scaled(shared: dict[str, int], x: int) -> int:
    return shared["k"] * x


@pytest.mark.parametrize("workers", [1, 2])
def test_local_map_shared_keeps_order(workers: int) -> None:
    ex = LocalExecutor(workers)
    assert list(ex.map_shared(scaled, {"k": 3}, [4, -1, 0, 7, 2])) == [12, -3, 0, 21, 6]
    assert list(ex.map_shared(scaled, {"k": -1}, [])) == []


def test_dask_map_shared_keeps_order_across_maps() -> None:
    pytest.importorskip("distributed")
    with DaskExecutor(n_workers=2) as ex:
        assert list(ex.map_shared(scaled, {"k": 2}, [5, 1, 3])) == [10, 2, 6]
        assert list(ex.map_shared(scaled, {"k": 10}, [1, 2])) == [10, 20]  # a second object
        assert list(ex.map(abs, [-1, 2])) == [1, 2]
