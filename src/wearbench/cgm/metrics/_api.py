"""Thin API over :mod:`wearbench.cgm.metrics._kernels`: one subject, a whole dataset, the AGP."""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.cgm._record import DROP_COLUMNS, CGMData
from wearbench.cgm.metrics import _kernels as k

#: Percentiles of the Ambulatory Glucose Profile (Battelino et al. 2019, Danne et al. 2017).
AGP_PERCENTILES: tuple[int, ...] = (5, 25, 50, 75, 95)


#: Unit of each :class:`CGMMetrics` field ("" for counts, flags and unitless indices; "%" of
#: readings for the time-in-range shares, % for CV and GMI).
METRIC_UNITS: dict[str, str] = {
    "n_readings": "",
    "days": "days",
    "interval_minutes": "min",
    "sufficiency": "0-1",
    "sufficient": "",
    "mean": "mg/dL",
    "sd": "mg/dL",
    "cv": "%",
    "gmi": "%",
    "tir_70_180": "%",
    "tbr_70": "%",
    "tbr_54": "%",
    "tar_180": "%",
    "tar_250": "%",
    "mage": "mg/dL",
    "modd": "mg/dL",
    "conga": "mg/dL",
    "lbgi": "",
    "hbgi": "",
    "gri": "0-100",
    "conga_hours": "h",
}


@dataclass(frozen=True)
class CGMMetrics:
    """Consensus CGM metrics of one subject (see ``docs/cgm-metrics.md``).

    Percentages are shares of readings (not time-weighted), as in iglu. NaN marks a metric
    that the readings do not define (e.g. SD of one reading, MODD over less than a day).

    Attributes:
        n_readings: Number of readings used.
        days: Days spanned, ``(last − first) / 1440 minutes``.
        interval_minutes: Inferred sampling interval (median gap, whole minutes).
        sufficiency: Share (0–1) of the expected readings on the inferred grid that are present
            (iglu ``active_percent`` / 100).
        sufficient: ``sufficiency ≥ min_sufficiency``; metrics are computed either way.
        mean: Mean glucose, mg/dL.
        sd: Standard deviation (ddof = 1), mg/dL.
        cv: Coefficient of variation, %.
        gmi: Glucose Management Indicator, % (HbA1c-equivalent).
        tir_70_180: Time in range 70–180 mg/dL inclusive, % of readings.
        tbr_70: Time below 70 mg/dL, % of readings (includes < 54).
        tbr_54: Time below 54 mg/dL, % of readings.
        tar_180: Time above 180 mg/dL, % of readings (includes > 250).
        tar_250: Time above 250 mg/dL, % of readings.
        mage: Mean amplitude of glycemic excursions (moving-average algorithm), mg/dL.
        modd: Mean of daily differences, mg/dL.
        conga: CONGA-n with ``conga_hours`` (default 1 h), mg/dL.
        lbgi: Low Blood Glucose Index (unitless).
        hbgi: High Blood Glucose Index (unitless).
        gri: Glycemia Risk Index, 0–100.
        conga_hours: The n of CONGA-n, hours.
    """

    n_readings: int
    days: float
    interval_minutes: float
    sufficiency: float
    sufficient: bool
    mean: float
    sd: float
    cv: float
    gmi: float
    tir_70_180: float
    tbr_70: float
    tbr_54: float
    tar_180: float
    tar_250: float
    mage: float
    modd: float
    conga: float
    lbgi: float
    hbgi: float
    gri: float
    conga_hours: int = 1

    def to_dict(self) -> dict[str, Any]:
        """All fields as a plain ``dict`` (field order)."""
        return asdict(self)


def _arrays(times: Any, glucose: Any) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Validated (int64 ns of local wall-clock time, float64 mg/dL) arrays sorted by time."""
    try:
        with warnings.catch_warnings():  # pandas warns while guessing a format for strings
            warnings.simplefilter("ignore")
            idx = pd.DatetimeIndex(
                pd.to_datetime(times if isinstance(times, pd.Series | pd.Index) else np.asarray(times))
            )
        if idx.tz is not None:  # keep the local wall clock, which time-of-day metrics need
            idx = idx.tz_localize(None)
        t = np.asarray(idx.as_unit("ns").asi8, dtype=np.int64)
    except (ValueError, TypeError) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise WearbenchError(f"CGM metrics: times are not datetimes ({first})") from None
    g = np.asarray(glucose, dtype=np.float64)
    if t.ndim != 1 or g.ndim != 1 or t.size != g.size:
        raise WearbenchError(
            f"CGM metrics: times ({t.size}) and glucose ({g.size}) must be 1-D of equal length"
        )
    bad = ~np.isfinite(g) | (g <= 0)
    if bad.any():
        raise WearbenchError(f"CGM metrics: glucose {g[bad][0]} mg/dL is not a positive finite number")
    if t.size and (t == np.iinfo(np.int64).min).any():
        raise WearbenchError("CGM metrics: a reading has a missing time (NaT)")
    order = np.argsort(t, kind="stable")
    return t[order], g[order]


def cgm_metrics(
    times: Any, glucose: Any, *, min_sufficiency: float = 0.7, conga_hours: int = 1
) -> CGMMetrics:
    """Consensus CGM metrics of one subject's readings.

    Args:
        times: Reading times (datetime64 array or anything :func:`pandas.to_datetime` takes),
            naive local wall clock; any order.
        glucose: Glucose, mg/dL, one per time.
        min_sufficiency: Threshold (0–1) on :attr:`CGMMetrics.sufficiency` for
            :attr:`CGMMetrics.sufficient`; Battelino et al. 2019 recommend ≥ 70 % of 14 days.
        conga_hours: The n of CONGA-n, whole hours.

    Returns:
        The metrics; all NaN (``n_readings == 0``, ``sufficient=False``) for no readings.

    Raises:
        WearbenchError: If times are not datetimes, lengths differ, a glucose value is not a
            positive finite number, or an option is out of range.
    """
    if not 0.0 <= min_sufficiency <= 1.0:
        raise WearbenchError(f"min_sufficiency must be in [0, 1], got {min_sufficiency}")
    if int(conga_hours) != conga_hours or conga_hours < 1:
        raise WearbenchError(f"conga_hours must be a whole number of hours ≥ 1, got {conga_hours}")
    t, g = _arrays(times, glucose)
    suff, interval, days = k.sufficiency(t)
    return CGMMetrics(
        n_readings=int(g.size),
        days=days,
        interval_minutes=interval,
        sufficiency=suff,
        sufficient=bool(not math.isnan(suff) and suff >= min_sufficiency),
        mean=k.mean(g),
        sd=k.sd(g),
        cv=k.cv(g),
        gmi=k.gmi(g),
        tir_70_180=k.percent_in_range(g, 70.0, 180.0),
        tbr_70=k.percent_below(g, 70.0),
        tbr_54=k.percent_below(g, 54.0),
        tar_180=k.percent_above(g, 180.0),
        tar_250=k.percent_above(g, 250.0),
        mage=k.mage_ma(t, g) if g.size else math.nan,
        modd=k.modd(t, g) if g.size else math.nan,
        conga=k.conga(t, g, int(conga_hours)) if g.size else math.nan,
        lbgi=k.lbgi(g),
        hbgi=k.hbgi(g),
        gri=k.gri(g),
        conga_hours=int(conga_hours),
    )


def metrics_table(data: CGMData, *, min_sufficiency: float = 0.7, conga_hours: int = 1) -> pd.DataFrame:
    """One row of :func:`cgm_metrics` per subject of ``data``, with the readings dropped when read.

    Columns: ``subject_id``, ``n_readings``, ``dropped_missing`` and ``dropped_out_of_range``
    (from :attr:`CGMData.dropped`, the policy of :func:`~wearbench.cgm.read_cgm`; 0 when nothing
    was screened), then the other fields. A subject whose readings were all dropped has a row with
    ``n_readings == 0`` and NaN metrics.

    Raises:
        WearbenchError: For a reading that is not a positive finite glucose, naming the subject
            (build the data with :func:`~wearbench.cgm.screen_readings` to drop such readings).
    """
    dropped: dict[str, dict[str, int]] = {}
    if data.dropped is not None:
        for row in data.dropped.itertuples(index=False):
            dropped[str(row.subject_id)] = {c: int(getattr(row, c)) for c in DROP_COLUMNS[1:]}
    rows = []
    readings = data.readings
    for subject in sorted(set(data.subjects) | set(dropped)):
        sub = readings[readings["subject_id"].astype(str) == subject]
        try:
            m = cgm_metrics(
                sub["time"].to_numpy(),
                sub["glucose"].to_numpy(),
                min_sufficiency=min_sufficiency,
                conga_hours=conga_hours,
            )
        except WearbenchError as exc:
            raise WearbenchError(f"subject {subject}: {exc}") from None
        counts = {c: dropped.get(subject, {}).get(c, 0) for c in DROP_COLUMNS[1:]}
        rows.append({"subject_id": subject, **m.to_dict(), **counts})
    fields = list(CGMMetrics.__dataclass_fields__)
    columns = ["subject_id", fields[0], *DROP_COLUMNS[1:], *fields[1:]]
    return pd.DataFrame(rows, columns=columns)


def agp_percentiles(times: Any, glucose: Any, bin_minutes: int = 60) -> pd.DataFrame:
    """AGP: glucose percentiles by time of day (Bergenstal et al. 2013, Battelino et al. 2019).

    Readings of all days are pooled into ``bin_minutes`` bins of clock time; in each bin the
    5th, 25th, 50th, 75th and 95th percentiles (linear interpolation, numpy's default) are taken.

    Args:
        times: Reading times, naive local wall clock.
        glucose: Glucose, mg/dL.
        bin_minutes: Bin width in minutes; must divide 1440 (e.g. 15 or 60).

    Returns:
        One row per bin: ``bin_start`` (``"HH:MM"``), ``minute`` (bin start, minutes after
        midnight), ``n`` (readings), ``p5`` … ``p95`` (mg/dL; NaN for an empty bin).

    Raises:
        WearbenchError: For a ``bin_minutes`` that does not divide a day, or bad readings.
    """
    if int(bin_minutes) != bin_minutes or bin_minutes < 1 or 1440 % int(bin_minutes):
        raise WearbenchError(f"bin_minutes must be a whole divisor of 1440, got {bin_minutes}")
    width = int(bin_minutes)
    t, g = _arrays(times, glucose)
    minute = (t % (1440 * 60_000_000_000)) // 60_000_000_000
    bins = (minute // width).astype(np.int64)
    n_bins = 1440 // width
    order = np.argsort(bins, kind="stable")
    edges = np.searchsorted(bins[order], np.arange(n_bins + 1))
    values = np.full((n_bins, len(AGP_PERCENTILES)), np.nan)
    for b in range(n_bins):
        chunk = g[order[edges[b] : edges[b + 1]]]
        if chunk.size:
            values[b] = np.percentile(chunk, AGP_PERCENTILES)
    starts = np.arange(n_bins) * width
    out = pd.DataFrame(
        {
            "bin_start": [f"{s // 60:02d}:{s % 60:02d}" for s in starts],
            "minute": starts,
            "n": np.diff(edges),
        }
    )
    for j, p in enumerate(AGP_PERCENTILES):
        out[f"p{p}"] = values[:, j]
    return out
