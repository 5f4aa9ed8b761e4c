"""Parameter validation: clear ValueErrors naming the parameter."""

import datetime as dt
from typing import Any

import pytest

from wearbench.sources import synthesize


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_users": 0}, "n_users must be >= 1, got 0"),
        ({"n_users": True}, "n_users must be an integer"),
        ({"n_users": 2.0}, "n_users must be an integer"),
        ({"n_days": 0}, "n_days must be >= 1"),
        ({"seed": -1}, "seed must be >= 0"),
        ({"reference_users": -5}, "reference_users must be >= 0"),
        ({"reference_users": 5, "reference_days": 13}, "reference_days must be >= 14"),
        ({"start": "2024-13-01"}, "start must be an ISO date"),
        ({"start": "2024-01-01T08:00"}, "no time"),
        ({"start": dt.datetime(2024, 1, 1)}, "not a datetime"),
        ({"start": 20240101}, "start must be an ISO date string"),
        ({"progress": "yes"}, "progress must be a callable"),
    ],
)
def test_bad_parameters_raise(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"n_users": 2, "n_days": 20, "reference_users": 0} | kwargs
    with pytest.raises(ValueError, match=message):
        synthesize(**args)


def test_tiny_and_date_inputs_work() -> None:
    one = synthesize(1, 1, reference_users=0)
    assert one.daily.shape == (1, 18)
    assert one.reference.empty
    assert one.blood.shape[0] == 1
    leap = synthesize(2, 3, reference_users=0, start=dt.date(2024, 2, 28))
    assert [str(d.date()) for d in leap.daily["date"].iloc[:3]] == ["2024-02-28", "2024-02-29", "2024-03-01"]
    assert synthesize(1, 20, reference_users=0, reference_days=1).n_users == 1
