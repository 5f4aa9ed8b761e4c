import math

import numpy as np
import pandas as pd
import pytest
from tests.prompts.conftest import make_item

from wearbench._errors import WearbenchError
from wearbench._registry import registry
from wearbench.prompts import agent_frame, context_text, data_view, summary_stats
from wearbench.prompts._format import compact, fmt
from wearbench.prompts._view import Series

HEADER = (
    "## Daily records\n"
    "5 days from 2024-03-01 to 2024-03-05, oldest first; the question window is the last 3 days "
    "(from 2024-03-03). Missing values: {missing}.\n"
    "Not shown (no data in this span): vo2max.\n"
)

GOLDEN = {
    "row": (
        "2024-03-01: resting_hr=60 bpm, hrv=40.5 ms, steps=1000 steps\n"
        "2024-03-02: resting_hr=62 bpm, hrv=41.0 ms, steps=2500 steps\n"
        "2024-03-03: resting_hr=NA, hrv=39.5 ms, steps=3000 steps\n"
        "2024-03-04: resting_hr=61 bpm, hrv=42.0 ms, steps=4000 steps\n"
        "2024-03-05: resting_hr=63 bpm, hrv=43.5 ms, steps=1500 steps"
    ),
    "column": (
        "dates: 2024-03-01, 2024-03-02, 2024-03-03, 2024-03-04, 2024-03-05\n"
        "resting_hr (bpm): 60, 62, NA, 61, 63\n"
        "hrv (ms): 40.5, 41.0, 39.5, 42.0, 43.5\n"
        "steps (steps): 1000, 2500, 3000, 4000, 1500"
    ),
    "csv": (
        "```csv\n"
        "date,resting_hr [bpm],hrv [ms],steps [steps]\n"
        "2024-03-01,60,40.5,1000\n"
        "2024-03-02,62,41.0,2500\n"
        "2024-03-03,,39.5,3000\n"
        "2024-03-04,61,42.0,4000\n"
        "2024-03-05,63,43.5,1500\n"
        "```"
    ),
    "markdown": (
        "| date | resting_hr [bpm] | hrv [ms] | steps [steps] |\n"
        "| --- | ---: | ---: | ---: |\n"
        "| 2024-03-01 | 60 | 40.5 | 1000 |\n"
        "| 2024-03-02 | 62 | 41.0 | 2500 |\n"
        "| 2024-03-03 | NA | 39.5 | 3000 |\n"
        "| 2024-03-04 | 61 | 42.0 | 4000 |\n"
        "| 2024-03-05 | 63 | 43.5 | 1500 |"
    ),
}

# Hand-computed: resting_hr 60,62,61,63 → mean 61.5, SD sqrt(5/3)=1.29; hrv mean 41.3,
# SD sqrt(9.3/4)=1.525 → 1.52; steps mean 2400, SD sqrt(5.7e6/4)=1193.73.
STATS_CSV = (
    "metric,unit,n,missing,mean,sd,min,median,max,mean_last7\n"
    "resting_hr,bpm,4,1,61.5,1.3,60,61.5,63,61.5\n"
    "hrv,ms,5,0,41.30,1.52,39.5,41.00,43.5,41.30\n"
    "steps,steps,5,0,2400.0,1193.7,1000,2500.0,4000,2400.0"
)


def _records(text: str) -> str:
    return text[text.index("## Daily records") :]


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_text(name, item, ctx):
    (part,) = registry.get("representation", name).obj(data_view(item, ctx))
    missing = "empty cell" if name == "csv" else "NA"
    assert _records(part.text) == HEADER.format(missing=missing) + GOLDEN[name]
    assert part.text.startswith(context_text(data_view(item, ctx)))


def test_csv_stats_golden(item, ctx):
    (part,) = registry.get("representation", "csv+stats").obj(data_view(item, ctx))
    assert part.text.endswith("```csv\n" + STATS_CSV + "\n```")
    assert GOLDEN["csv"] in part.text


def test_markdown_stats_block(item, ctx):
    (part,) = registry.get("representation", "markdown+stats").obj(data_view(item, ctx))
    assert part.text.endswith(
        "| hrv | ms | 5 | 0 | 41.30 | 1.52 | 39.5 | 41.00 | 43.5 | 41.30 |\n"
        "| steps | steps | 5 | 0 | 2400.0 | 1193.7 | 1000 | 2500.0 | 4000 | 2400.0 |"
    )
    assert GOLDEN["markdown"] in part.text


def test_stats_last7_and_undefined():
    s = Series("hrv", "ms", "d", (1, 2, 3, 4, 5, 6, 7, 8, math.nan), 0)
    (st,) = summary_stats([s])
    assert (st.n, st.missing, st.mean_last7, st.median, st.min, st.max) == (8, 1, 5.5, 4.5, 1, 8)
    (one,) = summary_stats([Series("hrv", "ms", "d", (math.nan, 4.0), 1)])
    assert one.cells() == ["hrv", "ms", "1", "1", "4.00", "NA", "4.0", "4.00", "4.0", "4.00"]


def test_context_text(item, ctx):
    text = context_text(data_view(item, ctx))
    assert text.startswith("## User profile\nAge 34 years, sex F, BMI 22.5 kg/m2, ethnicity asian.\n\n")
    assert "Latest blood draw on or before 2024-03-05: drawn 2024-02-01." in text
    assert (
        "- fasting_glucose (fasting plasma glucose): 92 mg/dL\n- hba1c (glycated haemoglobin): 5.25 %" in text
    )
    assert "- hdl (HDL cholesterol): NA mg/dL" in text
    assert "150" not in text  # the later draw is not shown
    assert text.endswith(
        "## Cohort reference\nCohort reference percentiles of per-user medians, age band 30-39, sex F:\n"
        "- resting_hr (bpm): P5=50, P10=53, P25=57, P50=61, P75=65, P90=70, P95=74.25\n"
        "- steps (steps): P5=2000, P10=3000.5, P25=5000, P50=7000, P75=9000, P90=11000, P95=12500"
    )


def test_view_contents(item, ctx):
    v = data_view(item, ctx)
    assert v.dates == ("2024-03-01", "2024-03-02", "2024-03-03", "2024-03-04", "2024-03-05")
    assert v.metric_names == ("resting_hr", "hrv", "steps")  # schema order, not dict order
    assert v.no_data == ("vo2max",)
    assert [s.decimals for s in v.series] == [0, 1, 0]
    assert v.blood_date == "2024-02-01"
    assert v.reference_group == ("30-39", "F")


def test_no_blood_draw_before_end(ctx):
    v = data_view(make_item(end="2024-03-05"), ctx)
    assert v.blood_date == "2024-02-01"
    early = data_view(make_item(end="2024-03-02", history=2, window=1), ctx)
    assert early.blood_date == "2024-02-01"
    ctx2 = type(ctx)(ctx.user_id, ctx.dates, ctx.metrics, ctx.demographics, ctx.blood[1:], ctx.reference)
    none = context_text(data_view(make_item(), ctx2))
    assert "No blood draw on or before 2024-03-05." in none


def _sections(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("## ")]


@pytest.mark.parametrize(
    ("ablation", "gone"),
    [
        ("no_series", "## Daily records"),
        ("no_blood", "## Blood panel"),
        ("no_cohort", "## Cohort reference"),
    ],
)
def test_ablation_removes_exactly_its_section(ablation, gone, item, ctx):
    full = registry.get("representation", "row").obj(data_view(item, ctx))[0].text
    cut = registry.get("representation", "row").obj(data_view(item, ctx, [ablation]))[0].text
    assert gone in _sections(full)
    assert _sections(cut) == [s for s in _sections(full) if s != gone]
    blocks = {b.split("\n", 1)[0]: b for b in full.split("\n\n")}
    kept = {b.split("\n", 1)[0]: b for b in cut.split("\n\n")}
    assert {k: v for k, v in blocks.items() if k != gone} == kept


def test_no_history_shows_window_only(item, ctx):
    v = data_view(item, ctx, ["no_history"])
    assert v.dates == ("2024-03-03", "2024-03-04", "2024-03-05")
    text = registry.get("representation", "row").obj(v)[0].text
    assert sum(1 for line in text.splitlines() if line.startswith("2024-03-0")) == 3
    assert len(agent_frame(item, ctx, ["no_history"])) == 3


def test_history_clipped_to_record_start(ctx):
    v = data_view(make_item(end="2024-03-02", history=30, window=2), ctx)
    assert v.dates == ("2024-03-01", "2024-03-02")


def test_errors(item, ctx):
    with pytest.raises(WearbenchError, match="unknown ablation 'no_pizza'"):
        data_view(item, ctx, ["no_pizza"])
    with pytest.raises(WearbenchError, match="outside the record"):
        data_view(make_item(end="2025-01-01"), ctx)
    with pytest.raises(WearbenchError, match="is for user u2"):
        data_view(make_item(user="u2"), ctx)


def test_agent_frame(item, ctx):
    df = agent_frame(item, ctx)
    assert list(df.columns) == ["resting_hr [bpm]", "hrv [ms]", "steps [steps]"]
    assert df.index.name == "date"
    assert df.index[0] == pd.Timestamp("2024-03-01")
    assert np.isnan(df.loc["2024-03-03", "resting_hr [bpm]"])
    assert df["steps [steps]"].sum() == 12000
    assert df.attrs["units"] == {"resting_hr": "bpm", "hrv": "ms", "steps": "steps"}
    assert agent_frame(item, ctx, ["no_series"]).shape == (0, 0)


def test_formatting_helpers():
    assert fmt(-0.001, 1) == "0.0"
    assert fmt(math.nan, 2) == "NA"
    assert fmt(math.nan, 2, "") == ""
    assert compact(11277.700000000003) == "11277.7"
    assert compact(None) == "NA"
    assert compact("F") == "F"
    assert compact(3.0) == "3"
