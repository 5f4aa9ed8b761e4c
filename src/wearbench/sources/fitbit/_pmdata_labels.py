"""PMData's real outcome labels: ``participant-overview.xlsx`` and the PMSys ``wellness.csv`` questionnaire.

Rows of the label table (``user_id, task, value, date``; tasks in
:data:`~wearbench.tracks.REAL_TASKS` / ``SYNTHETIC_TASKS``):

- ``sex`` (M = 1), ``age`` (years), ``age_band`` (the seed's bands), ``height`` (cm): from the
  overview, dated on the person's last minute day (demographics do not change in 5 months);
- ``wellness_<item>`` for fatigue, mood, readiness, sleep_quality, stress: the mean of the
  person's answers (PMSys scales: 1–5, readiness 0–10) in the :data:`WELLNESS_DAYS` days up to
  and including the last answer, dated on that answer's UTC day (PMSys stamps are UTC).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from wearbench.cohort import AGE_BANDS
from wearbench.sources._report import ImportLog
from wearbench.sources.fitbit._overview import _overview_table, pmdata_demographics

#: Wellness items turned into tasks (``wellness_<item>``).
WELLNESS_ITEMS: tuple[str, ...] = ("fatigue", "mood", "readiness", "sleep_quality", "stress")
#: Days of answers averaged into one wellness label (the label date and the 27 days before).
WELLNESS_DAYS = 28


def _age_band(age: float) -> float:
    for i, (_, lo, hi) in enumerate(AGE_BANDS):
        if lo <= age < hi:
            return float(i)
    return float("nan")


def _wellness(folder: Path) -> list[tuple[str, float, str]]:
    file = folder / "pmsys" / "wellness.csv"
    if not file.is_file():
        return []
    raw = pd.read_csv(file, dtype=str)
    if "effective_time_frame" not in raw:
        return []
    day = (
        pd.to_datetime(raw["effective_time_frame"], errors="coerce", utc=True)
        .dt.tz_localize(None)
        .dt.normalize()
    )
    ok = day.notna()
    if not ok.any():
        return []
    last = day[ok].max()
    recent = ok & (day > last - pd.Timedelta(days=WELLNESS_DAYS))
    out = []
    for item in WELLNESS_ITEMS:
        if item in raw:
            mean = float(pd.to_numeric(raw.loc[recent, item], errors="coerce").mean())
            if np.isfinite(mean):
                out.append((f"wellness_{item}", mean, last.strftime("%Y-%m-%d")))
    return out


def pmdata_labels(root: Path, last_days: Mapping[str, str]) -> pd.DataFrame:
    """The label table of the PMData participants in ``last_days``.

    Args:
        root: The PMData folder (``participant-overview.xlsx`` and ``pNN/pmsys/wellness.csv``).
        last_days: Participant → ISO date of its last minute day (the demographic label date).

    Returns:
        ``user_id, task, value, date`` rows (missing values left out), sorted by task and user.
    """
    people = [root / u for u in last_days]
    demo, _ = pmdata_demographics(root, people, ImportLog())
    rows: list[tuple[str, str, float, str]] = []
    if demo is not None:
        demo = demo[demo["user_id"].isin(list(last_days))]
        ages = demo["age"].to_numpy(dtype=float)
        for uid, sex_code, age in zip(
            demo["user_id"].astype(str), demo["sex"].astype(str), ages, strict=True
        ):
            date = last_days[uid]
            sex = {"M": 1.0, "F": 0.0}.get(sex_code, float("nan"))
            rows += [(uid, "sex", sex, date), (uid, "age", float(age), date)]
            rows.append((uid, "age_band", _age_band(float(age)), date))
    heights = _heights(root)
    rows += [(u, "height", heights.get(u, float("nan")), d) for u, d in last_days.items()]
    for folder in people:
        rows += [(folder.name, task, value, date) for task, value, date in _wellness(folder)]
    frame = pd.DataFrame(rows, columns=["user_id", "task", "value", "date"])
    frame = frame[np.isfinite(frame["value"].to_numpy(dtype=float))]
    return pd.DataFrame(frame.sort_values(["task", "user_id"]).reset_index(drop=True))


def _heights(root: Path) -> dict[str, float]:
    """Height (cm) per participant from the overview (empty without one)."""
    table = _overview_table(root)
    if table is None or "Height" not in table:
        return {}
    height = pd.to_numeric(table["Height"], errors="coerce").astype(float)
    return dict(zip(table["Participant ID"].str.strip(), height, strict=True))
