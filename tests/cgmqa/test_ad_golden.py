"""Golden answers of the AD templates outside the label table, on a hand-built 30-day record.

Every expected value is worked out by hand in its comment from the values :func:`episodes_record`
documents; none is computed by wearbench code. An AD template outside ``cgmqa/ad/_labels.py``
(tested in ``test_ad_labels.py``) without a row here fails ``test_every_ad_template_has_a_golden_row``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from tests.cgmqa._records import record

from wearbench.cgmqa import Exercise, Meal, PatientRecord, get_template, templates


def P(day: int, point: int = 0) -> int:
    """Point index of ``point`` (0-287) of day ``day`` (1-based)."""
    return 288 * (day - 1) + point


def episodes_record() -> PatientRecord:
    """30 days (8,640 points) at 100 mg/dL, no labels, except (point i = minute 5 i):

    Glucose:
    - day 1, points 24-29 (02:00-02:25) = 60 (hypo), points 30-35 (02:30-02:55) = 200 (hyper);
    - day 2, points 12-35 (01:00-02:55) = 50: a 24-point (2 h) night hypo; absolute 300-323;
    - day 3, points 0-99 NaN: 100 of 288 = 34.7 % missing;
    - day 10 (absolute 2592 + p): 120-131 (10:00-10:55) = 250, 140-145 (11:40-12:05) = 55,
      150-155 (12:30-12:55) = 190; absolute 2712-2723, 2732-2737, 2742-2747;
    - day 25 (6912 + p): 144-191 (12:00-15:55) = 230: a 48-point (4 h) hyper, absolute 7056-7103;
    - day 26 (7200 + p): 72-75 (06:00-06:15) = 65; absolute 7272-7275;
    - day 28 (7776 + p): 200, 201 (16:40, 16:45) = 40, 45; 202 NaN; absolute 7976-7978.

    Labels: day 5 (1152 + p) negative_spike at 75 (06:15), positive_spike at 80 (06:40),
    false_bolus at 88 (07:20), positive_basal 89-98; day 24 (6624 + p) positive_bias 10-12;
    day 27 (7488 + p) positive_spike at 140 (11:40), 146 (12:10), 180 (15:00); day 29 (8064 + p)
    negative_spike at 150 (12:30); day 30 (8352 + p) min_basal 160-161 (13:20-13:25).

    Events: lunch day 27 at 12:30 (minute 26 x 1440 + 750 = 38,190); running day 5 06:00-06:30
    (minutes 6,120-6,150, points 1224-1230).
    """
    bg = np.full(8640, 100.0)
    bg[P(1, 24) : P(1, 30)] = 60
    bg[P(1, 30) : P(1, 36)] = 200
    bg[P(2, 12) : P(2, 36)] = 50
    bg[P(3, 0) : P(3, 100)] = np.nan
    bg[P(10, 120) : P(10, 132)] = 250
    bg[P(10, 140) : P(10, 146)] = 55
    bg[P(10, 150) : P(10, 156)] = 190
    bg[P(25, 144) : P(25, 192)] = 230
    bg[P(26, 72) : P(26, 76)] = 65
    bg[P(28, 200) : P(28, 203)] = [40, 45, np.nan]
    fault = np.full(8640, "", dtype=object)
    fault[P(5, 75)] = "negative_spike"
    fault[P(5, 80)] = "positive_spike"
    fault[P(5, 88)] = "false_bolus"
    fault[P(5, 89) : P(5, 99)] = "positive_basal"
    fault[P(24, 10) : P(24, 13)] = "positive_bias"
    fault[[P(27, 140), P(27, 146), P(27, 180)]] = "positive_spike"
    fault[P(29, 150)] = "negative_spike"
    fault[P(30, 160) : P(30, 162)] = "min_basal"
    meals = (Meal(26 * 1440 + 750, 70, "lunch"),)
    sessions = (Exercise(4 * 1440 + 360, 30, "running", 8.0),)
    return record(bg, fault=fault, meals=meals, exercise=sessions)


def _iv(*pairs: tuple[int, int]) -> list[dict[str, int]]:
    return [{"start": a, "end": b} for a, b in pairs]


R = episodes_record

GOLDEN: list[tuple[str, Callable[[], PatientRecord], Any]] = [
    ("ad_1", R, 1.17),  # NaN: 100 (day 3) + 1 (day 28) = 101 / 8,640 = 1.169 %
    ("ad_2", R, [3]),  # day 3: 100 / 288 = 34.7 % > 30 %; day 28: 1 / 288
    # hypo runs: 24-29, 300-323, 2732-2737, 7272-7275, 7976-7977 (5);
    # hyper runs: 30-35, 2712-2723, 2742-2747, 7056-7103 (4)
    ("ad_17", R, _iv((39880, 39885))),  # last hypo run 7976-7977
    ("ad_18", R, _iv((120, 145), (1500, 1615))),  # 00:00-06:00 only; day 26's 06:00 is outside
    ("ad_19", R, _iv((1500, 1615))),  # only day 2's run has >= 12 points
    ("ad_20", R, _iv((36360, 36375), (39880, 39885))),  # days 24-30: 7272-7275, 7976-7977
    # hypo 24 -> hyper 30 (6 points = 30 min): 24-35; hypo 2732 -> hyper 2742 (50 min): 2732-2747;
    # hypo 300 is followed by hyper 2712 (too late); 7272 and 7976 by none
    ("ad_21", R, _iv((120, 175), (13660, 13735))),
    ("ad_22", R, 2),  # last hypo 7976-7977: 2 readings
    ("ad_23", R, _iv((35280, 35515))),  # day 25: 7056-7103
    ("ad_25", R, 5),
    ("ad_26", R, 2),  # days 24-30: 7272-7275, 7976-7977
    ("ad_27", R, 1),  # days 24-30: 7056-7103
    ("ad_28", R, _iv((35280, 35515))),  # 48 points = 4 h, in days 24-30
    # >= 12-point hyper runs: 2712-2723 back to 100 at 2724 (60 min), 7056-7103 at 7104 (240 min)
    ("ad_29", R, 150),  # (60 + 240) / 2
    ("ad_30", R, 15),  # last hypo starts 7976; 7978 NaN; 7979 = 100: 3 points = 15 min
    # out-of-range readings per day: d1 12, d2 24, d10 24, d25 48, d26 4, d28 2
    ("ad_31", R, 25),
    ("ad_32", R, 240),  # 48 points x 5
    # days 1-7: hypo, hyper (day 1), hypo (day 2) = 3; days 24-30: hyper, hypo, hypo = 3; 3 > 3 is false
    ("ad_34", R, "no"),
    # hypo hours, days 24-30: 6 (06:00), 16 (16:40); days 1-21: 2 (d1), 1-2 (d2), 11-12 (d10)
    ("ad_35", R, [6, 16]),
    # episodes in order: hypo 24, hyper 30, hypo 300, hyper 2712-2723, hypo 2732-2737 (9 points
    # later), hyper 2742-2747 (5 points later) -> 2712-2747; hyper 30 -> hypo 300 is 265 points
    ("ad_37", R, _iv((13560, 13735))),
    ("ad_36", R, _iv((35280, 35395))),  # > 220 in 12:00-14:00: day 25, 7056-7079; day 10's 190 is not
    ("ad_38", R, [1]),  # 01:00-03:00 = day points 12-35: day 1's 200s at 30-35; day 2 is low
    # last week days 24-30: in range 288, 240, 284, 288, 285, 288, 288; the 288s: days 24, 27, 29,
    # 30 with 3, 3, 1, 2 fault points -> day 29 = day 6 of the last week
    ("ad_41", R, 6),
    # day 27 from lunch 38,190 (point 7638) to 18:00 (point 7704): the 15:00 spike, point 7668
    ("ad_24", R, _iv((38340, 38341))),
    # last week 12:00-14:00, any label: day 27 point 7634 (12:10), day 29 point 8214 (12:30),
    # day 30 points 8512-8513 (13:20-13:25); day 27's 11:40 and 15:00 spikes are outside
    ("ad_39", R, _iv((38170, 38171), (41070, 41071), (42560, 42565))),
    # run + 1 h: points 1224 .. floor(6,210 / 5) = 1242: false_bolus 1240 + positive_basal 1241-1242
    ("ad_46", R, _iv((6200, 6210))),
    # during the run (points 1224-1230): the negative spike at 1227; the positive one at 1232 is after
    ("ad_55", R, _iv((6135, 6136))),
]


def _label_ids() -> set[str]:
    return {t.id for t in templates("ad") if t.truth.__qualname__.startswith("label_intervals_")}


@pytest.mark.parametrize(("tid", "build", "expected"), GOLDEN, ids=[g[0] for g in GOLDEN])
def test_golden(tid: str, build: Callable[[], PatientRecord], expected: Any) -> None:
    assert get_template(tid).answer(build(), {}) == expected


def test_every_ad_template_has_a_golden_row() -> None:
    assert len(templates("ad")) == 64
    assert len(_label_ids()) == 37
    assert {t.id for t in templates("ad")} - _label_ids() == {g[0] for g in GOLDEN}


def test_only_ad_18_and_ad_19_are_left_out_of_the_headline() -> None:
    assert {t.id for t in templates("ad") if not t.in_headline} == {"ad_18", "ad_19"}
    assert all(t.in_headline for t in templates("pm"))


def test_lunch_fallback_and_empty_answers() -> None:
    r = episodes_record()
    # without a meal table day 27's window starts at 12:00 (point 7632): + the 12:10 spike (7634)
    assert get_template("ad_24").answer(replace(r, meals=None), {}) == _iv((38170, 38171), (38340, 38341))
    flat = record(np.full(8640, 100.0), fault=np.full(8640, "", dtype=object))
    # no episode: counts and "0 if none" answers are 0, lists empty, intervals and means dropped
    answers = {t: get_template(t).answer(flat, {}) for t in ("ad_1", "ad_2", "ad_22", "ad_25", "ad_30",
                                                             "ad_31", "ad_32", "ad_35", "ad_38", "ad_17",
                                                             "ad_29", "ad_21")}  # fmt: skip
    assert answers == {"ad_1": 0.0, "ad_2": [], "ad_22": 0, "ad_25": 0, "ad_30": 0, "ad_31": 0, "ad_32": 0,
                       "ad_35": [], "ad_38": [], "ad_17": None, "ad_29": None, "ad_21": None}  # fmt: skip
    # a record ending low: the last hypo never recovers (ad_30 dropped); 5 points = 25 minutes
    low_end = np.full(8640, 100.0)
    low_end[-5:] = 50
    assert get_template("ad_30").answer(record(low_end), {}) is None
    assert get_template("ad_22").answer(record(low_end), {}) == 5
    # a hyper run of 12 points that runs to the end never comes back: left out of ad_29's mean
    high_end = np.full(8640, 100.0)
    high_end[-12:] = 250
    assert get_template("ad_29").answer(record(high_end), {}) is None


def test_short_records_decline_the_long_window_templates() -> None:
    r = episodes_record().window(1, 13)  # 13 days
    for tid in ("ad_34", "ad_35", "ad_20", "ad_23", "ad_24"):
        assert get_template(tid).answer(r, {}) is None, tid
    # a 7-day record still has a last week: days 1-7 (in range 288 except days 1-3)
    assert get_template("ad_41").answer(episodes_record().window(1, 7), {}) == 4
