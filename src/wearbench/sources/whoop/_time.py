"""WHOOP timestamps: local wall-clock times with a per-row UTC offset (``Cycle timezone``)."""

from __future__ import annotations

import re
from datetime import UTC, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pandas as pd

_OFFSET = re.compile(r"^(?:UTC|GMT)?\s*(?:(Z)|([+-])(\d{1,2})(?::?(\d{2}))?)?$", re.IGNORECASE)


def parse_zone(text: str) -> tzinfo | None:
    """The zone of a ``Cycle timezone`` cell, or None when it cannot be read.

    Accepts WHOOP's ``UTC-05:00`` and ``UTCZ`` as well as ``GMT-5``, ``-05:00``, ``+0100``,
    ``UTC`` and IANA names (``Europe/London``).
    """
    text = text.strip()
    match = _OFFSET.match(text)
    if match and text:
        _, sign, hours, minutes = match.groups()
        if sign is None:
            return UTC
        delta = timedelta(hours=int(hours), minutes=int(minutes or 0))
        if delta > timedelta(hours=14):
            return None
        return timezone(-delta if sign == "-" else delta)
    try:
        return ZoneInfo(text) if "/" in text else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


def read_times(cells: pd.Series) -> pd.Series:
    """Wall-clock timestamps (naive, local) from ``YYYY-MM-DD HH:MM:SS`` cells; NaT when unreadable."""
    return pd.to_datetime(cells, format="%Y-%m-%d %H:%M:%S", errors="coerce")


def wake_dates(wake: pd.Series, start: pd.Series) -> pd.Series:
    """The local calendar day a cycle belongs to: the date its sleep ended (wake onset).

    Without a wake onset, the day that follows the noon before the cycle start (a cycle that
    starts at 23:10 belongs to the next day, one that starts at 01:30 to the same day), the rule
    :func:`wearbench.sources.onset_minutes` uses for nights.
    """
    fallback = (start - pd.Timedelta(hours=12)).dt.normalize() + pd.Timedelta(days=1)
    days: pd.Series = wake.dt.normalize().where(wake.notna(), fallback)
    return days
