"""The AD label-set interval templates on a hand-labelled 30-day record."""

from __future__ import annotations

import numpy as np
from tests.cgmqa._records import record

from wearbench.cgmqa import PatientRecord, get_template, templates


def _labelled() -> PatientRecord:
    """30 days at 100 mg/dL; labels set by hand (point i = minute 5 i):

    - points 10-11 negative_spike (day 1, 00:50-00:55), 100 mg/dL displayed as 40 and 60;
    - point 3744 positive_spike (day 14, 00:00; 3744 = 13 x 288);
    - points 8352+80 .. 8352+81 positive_spike (day 30, 06:40-06:45);
    - points 100-135 repeated_reading (36 points = 3 h), 200-210 repeated_reading (11 points);
    - points 300-302 missing_signal with NaN readings;
    - points 400-404 positive_basal, 405-409 negative_basal (one run of 10 points).
    """
    bg = np.full(30 * 288, 100.0)
    fault = np.full(30 * 288, "", dtype=object)
    fault[10:12] = "negative_spike"
    bg[10:12] = [40, 60]
    fault[3744] = "positive_spike"
    fault[8432:8434] = "positive_spike"
    fault[100:136] = "repeated_reading"
    fault[200:211] = "repeated_reading"
    fault[300:303] = "missing_signal"
    bg[300:303] = np.nan
    fault[400:405] = "positive_basal"
    fault[405:410] = "negative_basal"
    return record(bg, fault=fault)


def test_label_set_answers() -> None:
    r = _labelled()
    ans = {
        t: get_template(t).answer(r, {}) for t in ("ad_3", "ad_4", "ad_6", "ad_7", "ad_10", "ad_16", "ad_48")
    }
    assert ans["ad_3"] == [{"start": 1500, "end": 1510}]  # NaN points 300-302
    assert ans["ad_4"] == [{"start": 50, "end": 55}]
    assert ans["ad_6"] == [{"start": 500, "end": 675}, {"start": 1000, "end": 1050}]
    assert ans["ad_7"] == [{"start": 500, "end": 675}]  # only the 36-point run
    # spikes: points 10-11, the one-point spike at 3744 widened by 1 minute, 8432-8433
    assert ans["ad_10"] == [
        {"start": 50, "end": 55},
        {"start": 18720, "end": 18721},
        {"start": 42160, "end": 42165},
    ]
    assert ans["ad_16"] == [{"start": 42160, "end": 42165}]  # day 30, 06:40-06:45
    # bias_basal = positive_basal + negative_basal: one contiguous run 400-409
    assert ans["ad_48"] == [{"start": 2000, "end": 2045}]


def test_windows_and_bounds() -> None:
    r = _labelled()
    assert get_template("ad_14").answer(r, {}) is None  # day 14 has a positive, not a negative spike
    assert get_template("ad_15").answer(r, {}) == [{"start": 50, "end": 55}]  # days 1-7
    # the repeated readings lie at 08:20-11:15 and 16:40-17:30: none between 00:00 and 06:00
    assert get_template("ad_40").answer(r, {}) is None
    # ad_42: labelled and displayed below 80: points 10-11 (40 and 60 mg/dL); the others show 100
    assert get_template("ad_42").answer(r, {}) == [{"start": 50, "end": 55}]
    assert get_template("ad_59").answer(r, {}) is None  # no unknown_stop: dropped
    assert get_template("ad_4").answer(record(np.full(288, 100.0)), {}) is None  # no labels (real data)


def test_label_templates_are_pattern_intervals_except_the_descriptive_two() -> None:
    ad = [t for t in templates("ad") if t.truth.__qualname__.startswith("label_intervals_")]
    assert len(ad) == 37
    assert all(t.answer_type == "intervals" and t.metric == "affiliation" for t in ad)
    assert {t.id for t in ad if t.level == "descriptive"} == {"ad_3", "ad_4"}
