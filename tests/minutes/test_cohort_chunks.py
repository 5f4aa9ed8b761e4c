"""Reading a minute user in day chunks: row groups of 32 days, chunks equal the whole user."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from wearbench import WearbenchError
from wearbench.minutes import (
    DAYS_PER_ROW_GROUP,
    MinuteUser,
    iter_minute_user_chunks,
    read_minute_user,
    user_file,
    write_minute_cohort,
)


def _user(n_days: int, seed: int = 0) -> MinuteUser:
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n_days, 19, 1440)).astype(np.float32)
    values[rng.random(values.shape) < 0.1] = np.nan
    dates = np.datetime64("2024-01-01") + np.arange(n_days) * 2  # gaps: every other day
    return MinuteUser("u1", dates, values, rng.random((n_days, 1440)) < 0.3)


def test_file_has_32_day_row_groups(tmp_path: Path) -> None:
    write_minute_cohort([_user(70)], tmp_path / "m")
    meta = pq.ParquetFile(user_file(tmp_path / "m", "u1")).metadata
    assert DAYS_PER_ROW_GROUP == 32
    assert [meta.row_group(i).num_rows for i in range(meta.num_row_groups)] == [32, 32, 6]


@pytest.mark.parametrize(
    ("max_days", "sizes"), [(32, [32, 32, 6]), (10, [10, 10, 10, 2] * 2 + [6]), (50, [32, 32, 6])]
)
def test_chunks_concatenate_to_the_user(tmp_path: Path, max_days: int, sizes: list[int]) -> None:
    user = _user(70)
    write_minute_cohort([user], tmp_path / "m")
    chunks = list(iter_minute_user_chunks(tmp_path / "m", "u1", max_days=max_days))
    assert [c.dates.size for c in chunks] == sizes
    assert all(c.user_id == "u1" for c in chunks)
    assert np.concatenate([c.values for c in chunks]).tobytes() == user.values.tobytes()
    np.testing.assert_array_equal(np.concatenate([c.non_wear for c in chunks]), user.non_wear)
    np.testing.assert_array_equal(np.concatenate([c.dates for c in chunks]), user.dates)
    whole = read_minute_user(tmp_path / "m", "u1")
    assert whole.values.tobytes() == user.values.tobytes()
    np.testing.assert_array_equal(whole.dates, user.dates)


def test_one_row_group_file_reads_in_chunks(tmp_path: Path) -> None:
    """A file from the earlier writer (one row group for the whole user) reads the same."""
    user = _user(40)
    write_minute_cohort([user], tmp_path / "m")
    file = user_file(tmp_path / "m", "u1")
    pq.write_table(pq.read_table(file), file, row_group_size=1 << 20)
    assert pq.ParquetFile(file).metadata.num_row_groups == 1
    chunks = list(iter_minute_user_chunks(tmp_path / "m", "u1", max_days=16))
    assert [c.dates.size for c in chunks] == [16, 16, 8]
    assert np.concatenate([c.values for c in chunks]).tobytes() == user.values.tobytes()
    assert read_minute_user(tmp_path / "m", "u1").values.tobytes() == user.values.tobytes()


def test_zero_day_user_and_bad_arguments(tmp_path: Path) -> None:
    empty = MinuteUser(
        "u1", np.zeros(0, "datetime64[D]"), np.zeros((0, 19, 1440), np.float32), np.zeros((0, 1440), bool)
    )
    write_minute_cohort([empty], tmp_path / "m")
    assert list(iter_minute_user_chunks(tmp_path / "m", "u1")) == []
    assert read_minute_user(tmp_path / "m", "u1").values.shape == (0, 19, 1440)
    with pytest.raises(WearbenchError, match="max_days"):
        next(iter_minute_user_chunks(tmp_path / "m", "u1", max_days=0))
    with pytest.raises(WearbenchError, match="no minute data"):
        next(iter_minute_user_chunks(tmp_path / "m", "u9"))
