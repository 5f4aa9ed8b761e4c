"""Derivations every sleep or activity source shares: local days, wake-date nights, bedtime SD."""

from __future__ import annotations

import numpy as np
import pandas as pd


def onset_minutes(onset: pd.Series) -> pd.Series:
    """Sleep onset as minutes after the preceding noon (local time), so a night does not wrap.

    22:30 → 630, 00:15 → 735, 02:00 → 840. ``onset`` holds local wall-clock timestamps.
    """
    t = pd.to_datetime(onset)
    minutes = t.dt.hour * 60 + t.dt.minute + t.dt.second / 60
    return ((minutes - 12 * 60) % (24 * 60)).astype("float64")


def bedtime_regularity(
    dates: pd.Series, onsets: pd.Series, window: int = 7, min_nights: int = 3
) -> pd.Series:
    """``bedtime_regularity`` (min): SD (ddof 1) of sleep onsets over the trailing ``window`` days.

    Args:
        dates: Wake dates (one per night; the night's sleep belongs to the day it ends).
        onsets: Onset in minutes after the preceding noon (:func:`onset_minutes`), same length.
        window: Trailing calendar days, the current one included.
        min_nights: Fewest nights with an onset in the window; fewer → NaN.

    Returns:
        One value per row of ``dates``, aligned with it (calendar gaps count as missing nights).
    """
    frame = pd.DataFrame({"date": pd.to_datetime(dates).dt.normalize(), "onset": onsets.to_numpy()})
    per_day = frame.groupby("date")["onset"].first()
    if per_day.empty:
        return pd.Series(np.nan, index=dates.index)
    full = per_day.reindex(pd.date_range(per_day.index.min(), per_day.index.max(), freq="D"))
    sd = full.rolling(window, min_periods=min_nights).std(ddof=1)
    return pd.Series(sd.reindex(frame["date"]).to_numpy(), index=dates.index)
