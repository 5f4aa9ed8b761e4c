"""Health readings audit: planted truth per reading, the permuted cohort, and the pinned table."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from wearbench._errors import WearbenchError
from wearbench.audit import (
    MAX_NOISE_RATIO,
    MIN_PPV,
    TRUTH,
    PlantedDays,
    ReadingRow,
    claimed_readings,
    permute_cohort,
    readings_table,
)
from wearbench.sources.synthetic import synthesize

DOC = Path(__file__).resolve().parents[2] / "docs" / "health-readings.md"
#: The small fixed cohort the table test regenerates (about 25 s on 2 cores).
SMALL = {"n_users": 60, "n_days": 300, "seed": 0, "reference_users": 300, "reference_days": 30}


def planted(n: int = 60, **episodes: tuple[int, int]) -> PlantedDays:
    """Masks over ``n`` days with one episode per named kind (inclusive day indices)."""
    masks = {k: np.zeros(n, dtype=bool) for k in ("illness", "stress", "travel", "injury")}
    for kind, (a, b) in episodes.items():
        masks[kind][a : b + 1] = True
    return PlantedDays(masks, np.zeros(n, dtype=bool), np.zeros(n))


def judge(key: str, p: PlantedDays, end: int, claim: dict[str, object] | None = None) -> bool | None:
    return TRUTH[key][1](p, end, claim or {})


def test_illness_reading_is_true_when_a_planted_illness_overlaps_the_focus() -> None:
    p = planted(illness=(40, 45))
    assert judge("acute_strain:illness", p, 40)  # focus 38-40 touches day 40
    assert judge("acute_strain:illness", p, 47)  # focus 45-47 touches day 45
    assert not judge("acute_strain:illness", p, 39)  # focus 37-39
    assert not judge("acute_strain:illness", p, 48)
    assert not judge("acute_strain:stress", p, 42)
    assert not judge("acute_strain:isolated_rhr", p, 42)
    assert judge("acute_strain:isolated_rhr", p, 30)


def test_sleep_loss_truth_is_stress_or_travel() -> None:
    assert judge("differential_rhr:sleep_loss", planted(travel=(10, 12)), 12)
    assert judge("differential_rhr:sleep_loss", planted(stress=(10, 30)), 20)
    assert not judge("differential_rhr:sleep_loss", planted(illness=(10, 12)), 12)
    assert judge("differential_rhr:circadian", planted(travel=(10, 12)), 11)
    assert judge("differential_rhr:inactivity", planted(injury=(10, 30)), 20)


def test_fitness_needs_a_planted_adaptation_fall_of_one_bpm() -> None:
    base = planted(100)
    rhr = np.zeros(100)
    rhr[60:] = -1.2  # 1.2 bpm lower from day 60 on
    p = PlantedDays(base.episodes, base.training, rhr)
    assert judge("acute_strain:fitness", p, 62)  # focus 60-62 vs days 32-59
    rhr[60:] = -0.8
    assert not judge("acute_strain:fitness", PlantedDays(base.episodes, base.training, rhr), 62)


def test_blood_reading_is_judged_on_the_other_draw() -> None:
    normal = {"fasting_glucose": 90.0, "hba1c": 5.2, "insulin": 5.0, "triglycerides": 100.0, "hdl": 60.0}
    pre = normal | {"fasting_glucose": 110.0, "hba1c": 5.9}
    base = planted(400)
    draws = ({"_day": 50} | pre, {"_day": 300} | normal)
    p = PlantedDays(base.episodes, base.training, base.adaptation_rhr, draws, "F")
    claim: dict[str, object] = {"glycaemia": "prediabetes"}
    assert judge("blood_state:glycaemia=prediabetes", p, 100, claim) is False  # other draw normal
    one = PlantedDays(base.episodes, base.training, base.adaptation_rhr, draws[:1], "F")
    assert judge("blood_state:glycaemia=prediabetes", one, 100, claim) is None  # no second draw


def test_row_rules() -> None:
    assert ReadingRow("k", "t", 10, 10, 8, 2).holds  # PPV 0.8, noise 0.2
    assert not ReadingRow("k", "t", 10, 10, 7, 0).holds  # PPV 0.7
    assert not ReadingRow("k", "t", 10, 10, 10, 3).holds  # noise 0.3
    assert np.isnan(ReadingRow("k", "", 10, 0, 0, 3).ppv)  # a description has no PPV
    assert (MIN_PPV, MAX_NOISE_RATIO) == (0.8, 0.25)


def test_permuted_cohort_shuffles_each_metric_across_users() -> None:
    c = synthesize(6, 60, seed=2, reference_users=0)
    p = permute_cohort(c, seed=1)
    assert p.truth is None
    assert len(p.daily) == len(c.daily)
    by_user = {u: g["resting_hr"].to_numpy() for u, g in c.daily.groupby("user_id")}
    moved = 0
    for u, g in p.daily.groupby("user_id"):
        series = g["resting_hr"].to_numpy()
        assert any(np.array_equal(series, s, equal_nan=True) for s in by_user.values())
        moved += not np.array_equal(series, by_user[u], equal_nan=True)
    assert moved >= 3
    with pytest.raises(WearbenchError, match="same calendar"):
        permute_cohort(type(c)(c.daily.iloc[1:], c.demographics, c.blood, c.reference))


@pytest.mark.slow
def test_small_cohort_table_is_pinned() -> None:
    """Regenerated on a fixed small cohort: the claims in use hold, noise gives few of them."""
    table = readings_table(synthesize(**SMALL))
    rows = {r.key: r for r in table.rows}
    got = {k: (rows[k].n, rows[k].judged, rows[k].hits, rows[k].n_noise) for k in PINNED}
    assert got == PINNED
    for key in claimed_readings():
        if rows[key].judged >= 5:
            assert rows[key].holds, key


#: Small-cohort numbers (items, judged, planted truth holds, items on the permuted cohort).
PINNED = {
    "acute_strain:illness": (27, 27, 27, 0),
    "acute_strain:fitness": (20, 20, 0, 10),
    "acute_strain:isolated_rhr": (11, 11, 8, 13),
    "differential_rhr:illness_full": (5, 5, 5, 0),
    "differential_rhr:illness_hrv_steps": (7, 7, 7, 0),
    "differential_rhr:stress": (4, 4, 2, 1),
    "blood_state:glycaemia=prediabetes": (13, 5, 5, 16),
}


def test_doc_table_keeps_only_claims_that_hold() -> None:
    """The committed default-cohort table: every label in use has PPV ≥ 0.8 and noise ≤ 1/4."""
    text = DOC.read_text(encoding="utf-8")
    block = text.split("<!-- readings-table:begin -->")[1].split("<!-- readings-table:end -->")[0]
    rows = {}
    for line in block.splitlines():
        m = re.match(r"\| `([^`]+)` \| [^|]+ \| (\d+) \| ([^|]+) \| (\d+) \| ([^|]+) \| ([^|]+) \|", line)
        if m:
            rows[m.group(1)] = m.groups()[1:]
    assert set(claimed_readings()) <= set(rows)
    for key in claimed_readings():
        _, ppv, _, noise, verdict = rows[key]
        assert verdict.strip() == "claim kept", key
        assert float(ppv.split()[0]) >= MIN_PPV
        assert float(noise) <= MAX_NOISE_RATIO
    assert not any("FAILS" in v[-1] for v in rows.values())
