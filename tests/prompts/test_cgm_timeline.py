"""The timelined HealthLoopQA prompt on a hand-written item (the expected text written out here).

The context files below hold six readings over two days and five events; every shown value is
rounded by hand: 151.91025… → 151.9, 20.525000…2 → 20.53 (just above the half), 99.96 → 100,
68.04999 → 68, 5.004 → 5, 3.8333… U → 3.83, 120.004 W → 120.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from wearbench import WearbenchError
from wearbench.prompts import CGM_PROMPTS, CGM_SYSTEM, cgm_messages, cgm_prompt, cgm_timeline_messages

READINGS = """minute,day,time,glucose_mgdl,insulin_mu_per_min
0,1,00:00,151.91025810003012,20.525000000000002
5,1,00:05,147.1180222930594,19.441666666666666
10,1,00:10,,0
1435,1,23:55,99.96,
1440,2,00:00,68.04999,5
1445,2,00:05,70,5.004
"""
EVENTS = """minute,day,time,kind,type,amount,unit,duration_min
5,1,00:05,meal,breakfast,46,g,
5,1,00:05,bolus,rapid,3.8333333333333335,U,
7,1,00:07,exercise,running,7.8,km/h,43
1442,2,00:02,treatment,hypo_treatment,15,g,
1445,2,00:05,exercise,cycling,120.004,W,30
"""
LEGEND = (
    "One line per timestamp, in time order: day, time of day and minute from day 1 00:00 (minute 0), "
    "then what was recorded at that minute. Every 5 minutes a reading: glucose, the sensor glucose "
    "in mg/dL (missing: no reading){insulin}. Events at the minute they started: meal (type, "
    "carbohydrate eaten), bolus (insulin delivered), exercise (kind, speed for running or power for "
    "cycling, and how long it was held), hypo treatment (fast carbohydrate taken to treat a low)."
)
INSULIN = "; insulin, the insulin delivered by the pump, mean rate in mU/min over the 5 minutes"
LINES = [
    "day 1 00:00 (minute 0): glucose 151.9, insulin 20.53",
    "day 1 00:05 (minute 5): glucose 147.1, insulin 19.44; meal breakfast 46 g; bolus rapid 3.83 U",
    "day 1 00:07 (minute 7): exercise running 7.8 km/h for 43 min",
    "day 1 00:10 (minute 10): glucose missing, insulin 0",
    "day 1 23:55 (minute 1435): glucose 100",
    "day 2 00:00 (minute 1440): glucose 68, insulin 5",
    "day 2 00:02 (minute 1442): hypo treatment 15 g",
    "day 2 00:05 (minute 1445): glucose 70, insulin 5; exercise cycling 120 W for 30 min",
]


def _text(days: str, legend: str, lines: list[str]) -> str:
    return "\n".join(
        [f"Data of days {days} (day 1 starts at minute 0).", "", "## Timeline", "", legend, "", *lines, "",
         "## Question", "", "How low did I go?", "", 'Reply with JSON only: {"answer": <number>}.']
    )  # fmt: skip


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    (tmp_path / "contexts").mkdir()
    (tmp_path / "contexts" / "p.readings.csv").write_text(READINGS, encoding="utf-8")
    (tmp_path / "contexts" / "p.events.csv").write_text(EVENTS, encoding="utf-8")
    return tmp_path


def _item(**context: Any) -> dict[str, Any]:
    files = {"readings": "contexts/p.readings.csv", "events": "contexts/p.events.csv"}
    return {
        "question": "How low did I go?",
        "instruction": 'Reply with JSON only: {"answer": <number>}.',
        "context": {**files, "first_day": 1, "days": 2, **context},
    }


def test_timeline_puts_each_event_under_its_timestamp(bench: Path) -> None:
    system, user = cgm_timeline_messages(_item(), bench)
    assert (system.role, system.content) == ("system", CGM_SYSTEM)
    assert user.role == "user"
    assert user.content == _text("1-2", LEGEND.format(insulin=INSULIN), LINES)


def test_one_day_variant_shows_the_last_day(bench: Path) -> None:
    _, user = cgm_timeline_messages(_item(), bench, 1)
    assert user.content == _text("2-2", LEGEND.format(insulin=INSULIN), LINES[5:])
    assert cgm_timeline_messages(_item(), bench, 7)[1].content == _text(
        "1-2", LEGEND.format(insulin=INSULIN), LINES
    )


def test_a_prediction_item_is_cut_at_now(bench: Path) -> None:
    # now = minute 1440: shown [1441 - 1440, 1441) = minutes 1 … 1440; the reading at 0 is more
    # than a day back, the hypo treatment at 1442 is after now
    _, user = cgm_timeline_messages(_item(until_minute=1440), bench, 1)
    assert user.content == _text("1-2", LEGEND.format(insulin=INSULIN), LINES[1:6])
    _, whole = cgm_timeline_messages(_item(until_minute=1440), bench)
    assert whole.content == _text("1-2", LEGEND.format(insulin=INSULIN), LINES[:6])


def test_without_an_insulin_column_no_insulin_is_mentioned(bench: Path) -> None:
    no_insulin = "\n".join(",".join(line.split(",")[:4]) for line in READINGS.splitlines()) + "\n"
    (bench / "contexts" / "p.readings.csv").write_text(no_insulin, encoding="utf-8")
    _, user = cgm_timeline_messages(_item(), bench, 1)
    lines = ["day 2 00:00 (minute 1440): glucose 68", "day 2 00:02 (minute 1442): hypo treatment 15 g",
             "day 2 00:05 (minute 1445): glucose 70; exercise cycling 120 W for 30 min"]  # fmt: skip
    assert user.content == _text("2-2", LEGEND.format(insulin=""), lines)


def test_structured_and_timelined_show_the_same_values(bench: Path) -> None:
    structured = str(cgm_messages(_item(), bench)[1].content)
    rows = structured.split("## CGM readings")[1].split("## Events")[0].strip().splitlines()[-6:]
    glucose = [r.split(",")[3] or "missing" for r in rows]
    assert glucose == ["151.9", "147.1", "missing", "100", "68", "70"]
    timeline = str(cgm_timeline_messages(_item(), bench)[1].content)
    assert [line.split("glucose ")[1].split(",")[0].split(";")[0] for line in timeline.splitlines()
            if line.startswith("day ") and " glucose " in line] == glucose  # fmt: skip


def test_a_fractional_event_minute_gets_its_own_line(bench: Path) -> None:
    # real data: an event at 00:07:30 is written at minute 7.5 (the shown window compares numbers)
    (bench / "contexts" / "p.events.csv").write_text(
        EVENTS.replace("7,1,00:07", "7.5,1,00:07"), encoding="utf-8"
    )
    _, user = cgm_timeline_messages(_item(until_minute=10), bench)
    assert "day 1 00:07 (minute 7.5): exercise running 7.8 km/h for 43 min" in str(user.content).splitlines()
    _, structured = cgm_messages(_item(until_minute=10), bench)
    assert "7.5,1,00:07,running,7.8,km/h,43" in str(structured.content).splitlines()


def test_prompts_by_name() -> None:
    assert CGM_PROMPTS == ("structured", "timelined")
    assert cgm_prompt("structured") is cgm_messages
    assert cgm_prompt("timelined") is cgm_timeline_messages
    with pytest.raises(WearbenchError, match="prompt 'timeline': expected one of structured, timelined"):
        cgm_prompt("timeline")


def test_a_missing_context_file_names_it(bench: Path) -> None:
    (bench / "contexts" / "p.events.csv").unlink()
    with pytest.raises(WearbenchError, match=r"p\.events\.csv: cannot read the context"):
        cgm_timeline_messages(_item(), bench)
