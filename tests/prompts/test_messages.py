import re

import pytest

from wearbench._errors import UnknownNameError, WearbenchError
from wearbench.models import ImagePart, TextPart
from wearbench.prompts import (
    AGENT_TOOL,
    Setting,
    agent_messages,
    available_representations,
    build_messages,
    data_view,
    multiview_followup,
    multiview_messages,
    parse_letter,
    parse_representation_choice,
)

OPTIONS_TAIL = "\n".join(f"{x}. option text {x}" for x in "ABCDEFGHIJ")


@pytest.mark.parametrize("mode", ["direct", "cot"])
@pytest.mark.parametrize("rep", ["row", "csv", "markdown+stats"])
def test_build_messages_shape(mode, rep, item, ctx):
    system, user = build_messages(item, ctx, Setting(rep, mode), vision=False)
    assert system.role == "system"
    assert user.role == "user"
    assert isinstance(user.content, str)
    assert user.content.endswith("## Question\nWhich option is right?\n\nOptions:\n" + OPTIONS_TAIL)
    assert user.content.startswith("## User profile\n")
    if mode == "cot":
        assert "'Answer: X'" in system.content
        assert "step by step" in system.content
    else:
        assert "letter of the correct option only" in system.content
        assert "Answer: X" not in system.content


def test_build_messages_ablations_pass_through(item, ctx):
    _, user = build_messages(item, ctx, Setting("row", "direct", ("no_blood", "no_series")), vision=False)
    assert "## Blood panel" not in user.content
    assert "## Daily records" not in user.content
    assert "## Cohort reference" in user.content


def test_plot_needs_vision(item, ctx):
    with pytest.raises(WearbenchError, match=r"text-only; text representations: column, csv, csv\+stats"):
        build_messages(item, ctx, Setting("plot", "direct"), vision=False)
    _, user = build_messages(item, ctx, Setting("plot-grouped", "cot"), vision=True)
    assert isinstance(user.content, tuple)
    assert sum(isinstance(p, ImagePart) for p in user.content) == 2
    last = user.content[-1]
    assert isinstance(last, TextPart)
    assert last.text.endswith(OPTIONS_TAIL)


def test_unknown_representation_and_mode(item, ctx):
    with pytest.raises(UnknownNameError, match="did you mean 'markdown'"):
        build_messages(item, ctx, Setting("markdwn", "direct"), vision=False)
    with pytest.raises(WearbenchError, match="modes direct and cot"):
        build_messages(item, ctx, Setting("csv", "agent"), vision=False)


def test_agent_messages(item, ctx):
    system, user = agent_messages(item, ctx, Setting("csv", "agent", ("no_cohort",)))
    assert f"`{AGENT_TOOL}`" in system.content
    assert "`df`" in system.content
    assert "'Answer: X'" in system.content
    text = user.content
    assert isinstance(text, str)
    assert "5 days from 2024-03-01 to 2024-03-05" in text
    assert "- `resting_hr [bpm]`: resting heart rate (1 missing)" in text
    assert "not in df): vo2max." in text
    assert "## Blood panel" in text
    assert "## Cohort reference" not in text
    assert "2024-03-02,62" not in text  # the values themselves are in the tool, not the prompt
    assert text.endswith(OPTIONS_TAIL)


def test_multiview_round_trip(item, ctx):
    setting = Setting("csv", "multiview")
    (_, first), names = multiview_messages(item, ctx, setting, vision=False)
    offered = re.findall(r"^- ([a-z+-]+):", first.content, flags=re.MULTILINE)
    assert offered == names == available_representations(vision=False)
    assert "plot" not in offered
    assert first.content.endswith("Reply with the name of one representation only.")
    choice = parse_representation_choice("I'll take **markdown+stats**.", offered)
    assert choice == "markdown+stats"
    (follow,) = multiview_followup(item, ctx, choice, setting, vision=False)
    assert follow.role == "user"
    assert "| hrv | ms | 5 | 0 | 41.30 |" in follow.text
    assert follow.text.endswith(OPTIONS_TAIL)
    assert parse_letter("The mean rose.\nAnswer: C") == "C"
    (_, with_vision), _ = multiview_messages(item, ctx, setting, vision=True)
    assert "- plot-grouped:" in with_vision.content


def test_views_are_deterministic(item, ctx):
    a = build_messages(item, ctx, Setting("row", "cot"), vision=False)
    b = build_messages(item, ctx, Setting("row", "cot"), vision=False)
    assert a == b
    assert data_view(item, ctx) == data_view(item, ctx)
