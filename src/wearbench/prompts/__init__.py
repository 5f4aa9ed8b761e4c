"""Prompts: how an item and its user's data are shown to a model, and how a letter is read back.

:func:`data_view` collects what is shown (honouring the ablations); registered
representations (``row``, ``column``, ``csv``, ``markdown``, ``csv+stats``,
``markdown+stats``, ``plot``, ``plot-grouped``) format it; :func:`build_messages`,
:func:`agent_messages` and the multiview functions make chat messages per mode;
a :class:`Setting` names the representation, mode and ablations;
:func:`parse_letter` reads the answer; :func:`count_tokens` measures prompt size.
HealthLoopQA (CGM) items: :func:`cgm_messages` (the structured prompt) and
:func:`cgm_timeline_messages` (the timelined prompt), by name :func:`cgm_prompt`.
"""

from wearbench.prompts._cgm import (
    CGM_CONTEXT_DAYS,
    CGM_SYSTEM,
    PROMPT_DECIMALS,
    ContextFiles,
    ShownContext,
    cgm_messages,
    shown_context,
    shown_minutes,
)
from wearbench.prompts._cgm_timeline import CGM_PROMPTS, cgm_prompt, cgm_timeline_messages
from wearbench.prompts._format import NA, SummaryStats, context_text, summary_stats
from wearbench.prompts._messages import (
    AGENT_TOOL,
    agent_messages,
    available_representations,
    build_messages,
    multiview_followup,
    multiview_messages,
)
from wearbench.prompts._parse import parse_letter, parse_representation_choice
from wearbench.prompts._plots import plot, plot_grouped, range_groups
from wearbench.prompts._text import Parts, column, csv, csv_stats, markdown, markdown_stats, row
from wearbench.prompts._tokens import IMAGE_TOKENS, TokenCount, approx_tokens, count_tokens, prompt_tokens
from wearbench.prompts._view import (
    ABLATIONS,
    MODES,
    BloodValue,
    DataView,
    Mode,
    Series,
    Setting,
    agent_frame,
    data_view,
)

__all__ = [
    "ABLATIONS",
    "AGENT_TOOL",
    "CGM_CONTEXT_DAYS",
    "CGM_PROMPTS",
    "CGM_SYSTEM",
    "IMAGE_TOKENS",
    "MODES",
    "NA",
    "PROMPT_DECIMALS",
    "BloodValue",
    "ContextFiles",
    "DataView",
    "Mode",
    "Parts",
    "Series",
    "Setting",
    "ShownContext",
    "SummaryStats",
    "TokenCount",
    "agent_frame",
    "agent_messages",
    "approx_tokens",
    "available_representations",
    "build_messages",
    "cgm_messages",
    "cgm_prompt",
    "cgm_timeline_messages",
    "column",
    "context_text",
    "count_tokens",
    "csv",
    "csv_stats",
    "data_view",
    "markdown",
    "markdown_stats",
    "multiview_followup",
    "multiview_messages",
    "parse_letter",
    "parse_representation_choice",
    "plot",
    "plot_grouped",
    "prompt_tokens",
    "range_groups",
    "row",
    "shown_context",
    "shown_minutes",
    "summary_stats",
]
