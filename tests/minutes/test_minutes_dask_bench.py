"""``benchmarks/minutes_dask.py``: the Dask DataFrame kernel gives the tasks' day table, exactly."""

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd
import pytest

from wearbench.minutes import minute_user_ids, user_file
from wearbench.sources import synthesize_minutes

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "minutes_dask.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("minutes_dask_bench", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def cohort(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3 users x 40 days: two row groups (32 + 8 days) per user file."""
    return Path(synthesize_minutes(3, 40, 0, tmp_path_factory.mktemp("m") / "minutes"))


def test_partition_kernel_per_file_and_row_group_equals_tasks(cohort: Path) -> None:
    bench = _bench()
    uids = minute_user_ids(cohort)
    want = bench.users_table((str(cohort), tuple(uids)))
    assert len(want) == 120
    assert want["retained"].any()
    assert not want["retained"].all()
    per_file, per_group = [], []
    for i, uid in enumerate(uids):
        part = pd.read_parquet(user_file(cohort, uid), dtype_backend="pyarrow")
        per_file.append(bench.partition_table(part, uids, partition_info={"number": i}))
        per_group += [
            bench.partition_table(part.iloc[a:b].reset_index(drop=True), [uid], partition_info={"number": 0})
            for a, b in ((0, 32), (32, 40))
        ]
    pd.testing.assert_frame_equal(pd.concat(per_file, ignore_index=True), want, check_exact=True)
    pd.testing.assert_frame_equal(pd.concat(per_group, ignore_index=True), want, check_exact=True)
    dropped = want.loc[~want["retained"], bench.SEGMENT_COLUMNS].to_numpy()
    assert np.isnan(dropped).all()


def test_dask_dataframe_pipeline_in_process(cohort: Path) -> None:
    dd = pytest.importorskip("dask.dataframe")
    bench = _bench()
    uids = minute_user_ids(cohort)
    files = [str(user_file(cohort, uid)) for uid in uids]
    ddf = dd.read_parquet(files, dtype_backend="pyarrow", split_row_groups=False)
    assert ddf.npartitions == len(uids)
    meta = bench.partition_table(pd.read_parquet(files[0], dtype_backend="pyarrow").iloc[:0], uids)
    got = ddf.map_partitions(bench.partition_table, uids, meta=meta, enforce_metadata=False)
    table = got.compute(scheduler="sync").reset_index(drop=True)
    pd.testing.assert_frame_equal(table, bench.users_table((str(cohort), tuple(uids))), check_exact=True)
