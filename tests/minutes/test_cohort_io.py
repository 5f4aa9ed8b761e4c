"""MinuteCohort storage: bit-exact round trip, one user at a time, errors naming file and user."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from wearbench._errors import WearbenchError
from wearbench.minutes import (
    HR,
    MINUTE_MANIFEST,
    MinuteCohort,
    MinuteUser,
    iter_minute_users,
    load_minute_cohort,
    minute_user_ids,
    read_minute_manifest,
    read_minute_user,
    save_minute_cohort,
    user_file,
    write_minute_cohort,
)


def _user(user_id: str, n_days: int, seed: int) -> MinuteUser:
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(n_days, 19, 1440)).astype(np.float32)
    values[:, 7:, :] = rng.random((n_days, 12, 1440)) < 0.1
    values[:, HR, ::3] = np.nan
    values[:1, 0, 0] = np.float32(-0.0)
    dates = np.datetime64("2024-03-01") + np.arange(n_days).astype("timedelta64[D]")
    return MinuteUser(user_id, dates, values, rng.random((n_days, 1440)) < 0.2)


def _cohort() -> MinuteCohort:
    return MinuteCohort((_user("u0001", 3, 1), _user("u0002", 2, 2), _user("u0003", 0, 3)), {"name": "test"})


def test_round_trip_is_bit_exact(tmp_path: Path) -> None:
    cohort = _cohort()
    save_minute_cohort(cohort, tmp_path / "m")
    back = load_minute_cohort(tmp_path / "m", verify=True)
    assert back.user_ids == ["u0001", "u0002", "u0003"]
    assert back.source == {"name": "test"}
    for a, b in zip(cohort.users, back.users, strict=True):
        assert a.values.tobytes() == b.values.tobytes()  # NaN positions and -0.0 included
        assert np.array_equal(a.non_wear, b.non_wear)
        assert np.array_equal(a.dates, b.dates)
        assert b.values.dtype == np.float32
        assert b.values.shape == a.values.shape
    assert np.isnan(back.users[0].values[:, HR, ::3]).all()
    assert np.signbit(back.users[0].values[0, 0, 0])


def test_one_user_at_a_time(tmp_path: Path) -> None:
    save_minute_cohort(_cohort(), tmp_path / "m")
    assert minute_user_ids(tmp_path / "m") == ["u0001", "u0002", "u0003"]
    assert read_minute_user(tmp_path / "m", "u0002").values.shape == (2, 19, 1440)
    assert [u.user_id for u in iter_minute_users(tmp_path / "m")] == ["u0001", "u0002", "u0003"]
    assert user_file(tmp_path / "m", "u0001").is_file()


def test_same_content_same_bytes_and_hash(tmp_path: Path) -> None:
    save_minute_cohort(_cohort(), tmp_path / "a")
    save_minute_cohort(_cohort(), tmp_path / "b")
    for name in ("manifest.json", "users/u0001.parquet"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    m = read_minute_manifest(tmp_path / "a")
    assert set(m["files"]) == {"users/u0001.parquet", "users/u0002.parquet", "users/u0003.parquet"}
    assert m["users"][0] == {"user_id": "u0001", "days": 3, "first": "2024-03-01", "last": "2024-03-03"}
    changed = _user("u0001", 3, 1)
    changed.values[1, 3, 5] += 1
    write_minute_cohort([changed], tmp_path / "c")
    write_minute_cohort([_user("u0001", 3, 1)], tmp_path / "d")
    assert (
        read_minute_manifest(tmp_path / "c")["content_hash"]
        != read_minute_manifest(tmp_path / "d")["content_hash"]
    )


def test_missing_user_names_file_and_user(tmp_path: Path) -> None:
    save_minute_cohort(_cohort(), tmp_path / "m")
    with pytest.raises(WearbenchError, match=r"u0009\.parquet.*'u0009'"):
        read_minute_user(tmp_path / "m", "u0009")


def test_corrupt_file_names_file_and_user(tmp_path: Path) -> None:
    save_minute_cohort(_cohort(), tmp_path / "m")
    user_file(tmp_path / "m", "u0002").write_bytes(b"not parquet")
    with pytest.raises(WearbenchError, match=r"u0002\.parquet: cannot read minute data of user 'u0002'"):
        read_minute_user(tmp_path / "m", "u0002")


def test_verify_detects_changed_file(tmp_path: Path) -> None:
    save_minute_cohort(_cohort(), tmp_path / "m")
    other = tmp_path / "o"
    write_minute_cohort([_user("u0002", 2, 99)], other)
    user_file(tmp_path / "m", "u0002").write_bytes(user_file(other, "u0002").read_bytes())
    read_minute_user(tmp_path / "m", "u0002")  # readable without verification
    with pytest.raises(WearbenchError, match=r"u0002\.parquet: SHA-256 differs.*'u0002'"):
        read_minute_user(tmp_path / "m", "u0002", verify=True)


def test_bad_shapes_and_ids_are_refused() -> None:
    dates = np.array(["2024-01-01"], dtype="datetime64[D]")
    f64: Any = np.zeros((1, 19, 1440))
    with pytest.raises(WearbenchError, match="'u1': values must be float32"):
        MinuteUser("u1", dates, f64, np.zeros((1, 1440), bool))
    with pytest.raises(WearbenchError, match="'u1': non_wear must be bool"):
        MinuteUser("u1", dates, np.zeros((1, 19, 1440), np.float32), np.zeros((1, 1439), bool))
    with pytest.raises(WearbenchError, match="not usable as a file name"):
        MinuteUser("../x", dates, np.zeros((1, 19, 1440), np.float32), np.zeros((1, 1440), bool))
    two = np.array(["2024-01-02", "2024-01-01"], dtype="datetime64[D]")
    with pytest.raises(WearbenchError, match="'u1': dates are not strictly increasing"):
        MinuteUser("u1", two, np.zeros((2, 19, 1440), np.float32), np.zeros((2, 1440), bool))


def test_duplicate_user_and_foreign_folder(tmp_path: Path) -> None:
    with pytest.raises(WearbenchError, match="'u0001' appears twice"):
        write_minute_cohort([_user("u0001", 1, 1), _user("u0001", 1, 2)], tmp_path / "d")
    assert not (tmp_path / "d").exists()
    (tmp_path / "f").mkdir()
    (tmp_path / "f" / "x.txt").write_text("x")
    with pytest.raises(WearbenchError, match="not empty"):
        write_minute_cohort([], tmp_path / "f")


def test_manifest_checks(tmp_path: Path) -> None:
    with pytest.raises(WearbenchError, match="no minute-cohort manifest"):
        read_minute_manifest(tmp_path)
    (tmp_path / MINUTE_MANIFEST).write_text(json.dumps({"kind": "other"}))
    with pytest.raises(WearbenchError, match="not a minute-cohort manifest"):
        read_minute_manifest(tmp_path)


def test_reading_a_path_like_user_id_is_refused(tmp_path: Path) -> None:
    save_minute_cohort(_cohort(), tmp_path / "m")
    with pytest.raises(WearbenchError, match=r"'\.\./m/users/u0001': not usable as a file name"):
        read_minute_user(tmp_path / "m", "../m/users/u0001")
