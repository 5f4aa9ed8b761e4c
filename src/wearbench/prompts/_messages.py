"""Chat messages for each evaluation mode: ``direct``, ``cot``, ``agent`` and ``multiview``.

Every prompt is a system message plus one user message holding the data section (in the
setting's representation) followed by the question and the ten options ``A. …`` to
``J. …``; the user message always ends with the last option.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wearbench._errors import WearbenchError
from wearbench._registry import registry
from wearbench.models import ImagePart, Message, TextPart
from wearbench.prompts._format import context_text
from wearbench.prompts._view import DataView, Setting, column_name, data_view
from wearbench.questions import LETTERS, Item, UserContext

#: Name of the Python tool agent mode offers (the runner's tool must use it).
AGENT_TOOL = "python"

_ROLE = (
    "You are a careful health-data analyst. You are given one person's daily wearable records "
    "and related health data, and a multiple-choice question with ten options (A-J), exactly one "
    "of which is correct. Base your answer on the data provided."
)
_DIRECT = _ROLE + " Reply with the letter of the correct option only (one of A-J), with no other text."
_COT = (
    _ROLE + " Think step by step, computing from the data what the question needs. Then end your reply "
    "with a final line of the form 'Answer: X', where X is the letter of the correct option (A-J)."
)
_AGENT = (
    _ROLE + f" You have a Python tool, `{AGENT_TOOL}`, that runs code with pandas (as pd) and numpy "
    "(as np) and shows what the code prints (and the value of a final expression). The daily "
    "records are already loaded in it as the pandas DataFrame `df`; variables persist between "
    "calls. Use the tool to compute what you need. When done, reply with your reasoning and end "
    "with a final line of the form 'Answer: X', where X is the letter of the correct option (A-J)."
)


def _abl(setting: Setting) -> tuple[str, ...]:
    return tuple(setting.ablations)


def _entry(name: str) -> Any:
    return registry.get("representation", name)


def available_representations(*, vision: bool) -> list[str]:
    """Registered representation names a model can be shown (image ones only with vision)."""
    return [e.name for e in registry.entries("representation") if vision or not e.tags.get("image")]


def _render(name: str, view: DataView, *, vision: bool) -> tuple[TextPart | ImagePart, ...]:
    entry = _entry(name)
    if entry.tags.get("image") and not vision:
        text_only = ", ".join(available_representations(vision=False))
        raise WearbenchError(
            f"representation {name!r} shows images, but the model is text-only; "
            f"text representations: {text_only}"
        )
    parts: tuple[TextPart | ImagePart, ...] = entry.obj(view)
    return parts


def question_text(item: Item) -> str:
    """The question and its ten options, one ``A. …`` line each (options in letter order)."""
    missing = [x for x in LETTERS if x not in item.options]
    if missing:
        raise WearbenchError(f"item {item.id}: no option(s) {', '.join(missing)}")
    options = "\n".join(f"{x}. {item.options[x]}" for x in LETTERS)
    return f"## Question\n{item.question}\n\nOptions:\n{options}"


def _user(parts: Sequence[TextPart | ImagePart], tail: str) -> Message:
    """One user message: ``parts`` then ``tail``; plain text when there are no images."""
    if all(isinstance(p, TextPart) for p in parts):
        text = "\n\n".join(p.text for p in parts if isinstance(p, TextPart))
        return Message("user", text + "\n\n" + tail if text else tail)
    return Message("user", (*parts, TextPart(tail)))


def build_messages(item: Item, ctx: UserContext, setting: Setting, *, vision: bool) -> list[Message]:
    """Prompt for modes ``direct`` (letter only) and ``cot`` (reasoning, then ``Answer: X``).

    Args:
        item: The item.
        ctx: Its user's context.
        setting: A :class:`Setting` (``representation``, ``mode``, ``ablations``).
        vision: Whether the model accepts images.

    Returns:
        ``[system, user]``; the user message is the data section then the question and options.

    Raises:
        WearbenchError: For another mode, an image representation with ``vision=False``
            (the message lists the text representations), or an unknown representation.
    """
    mode = setting.mode
    if mode not in ("direct", "cot"):
        raise WearbenchError(f"build_messages handles modes direct and cot, not {mode!r}")
    view = data_view(item, ctx, _abl(setting))
    parts = _render(str(setting.representation), view, vision=vision)
    system = _DIRECT if mode == "direct" else _COT
    return [Message("system", system), _user(parts, question_text(item))]


def _frame_description(view: DataView) -> str:
    if not view.series:
        return "`df` is empty: no daily records are available for this question."
    cols = "\n".join(
        f"- `{column_name(s.name, s.unit)}`: {s.description} ({s.n_missing} missing)" for s in view.series
    )
    n, window = len(view.dates), min(view.window_days, len(view.dates))
    lines = [
        f"`df` has a DatetimeIndex named `date`, one row per day: {n} days from {view.dates[0]} to "
        f"{view.dates[-1]}, oldest first. The question window is the last {window} days "
        f"(from {view.dates[n - window]}). Columns are float64, named `<metric> [<unit>]`, NaN = missing; "
        'df.attrs["units"] maps metric names to units:',
        cols,
    ]
    if view.no_data:
        lines.append(f"Metrics with no data in this span (not in df): {', '.join(view.no_data)}.")
    return "\n".join(lines)


def agent_messages(item: Item, ctx: UserContext, setting: Setting) -> list[Message]:
    """Prompt for ``agent`` mode: the data live in the Python tool as ``df`` (see :func:`agent_frame`).

    The user message describes ``df`` (columns, units, date range, missing days) and gives the
    static context (profile; blood and reference unless ablated), then the question and options.
    The final reply must end with ``Answer: X``.
    """
    view = data_view(item, ctx, _abl(setting))
    data = context_text(view) + "\n\n## Daily records (in the Python tool)\n" + _frame_description(view)
    return [Message("system", _AGENT), _user([TextPart(data)], question_text(item))]


def _summary(name: str) -> str:
    doc = (_entry(name).obj.__doc__ or "").strip().splitlines()
    return doc[0].replace("``", "") if doc else ""


def multiview_messages(
    item: Item, ctx: UserContext, setting: Setting, *, vision: bool = False
) -> tuple[list[Message], list[str]]:
    """First multiview turn: list the representations and ask for one name in reply.

    Image representations are offered only when ``vision``. The question is shown (without
    data) so the model can pick what suits it.

    Returns:
        ``([system, user], offered names)``; pass the names to
        :func:`parse_representation_choice`.
    """
    names = available_representations(vision=vision)
    listing = "\n".join(f"- {n}: {_summary(n)}" for n in names)
    view = data_view(item, ctx, _abl(setting))
    span = f"{len(view.dates)} days of daily records" if view.dates else "no daily records"
    text = (
        f"You will answer a question about one person's wearable data ({span}). First choose how the "
        f"data should be shown to you. Available representations:\n{listing}\n\n{question_text(item)}\n\n"
        "Reply with the name of one representation only."
    )
    return [Message("system", _ROLE), Message("user", text)], names


def multiview_followup(
    item: Item, ctx: UserContext, choice: str, setting: Setting, *, vision: bool
) -> list[Message]:
    """Second multiview turn: the data in the chosen representation, then question and options.

    The reply is read like ``cot`` (it must end with ``Answer: X``). The runner appends these to
    the first turn and the model's choice.
    """
    view = data_view(item, ctx, _abl(setting))
    parts = _render(choice, view, vision=vision)
    intro = TextPart(
        f"Here is the data as {choice}. Think step by step, then end your reply with a final line "
        "of the form 'Answer: X', where X is the letter of the correct option (A-J)."
    )
    return [_user((intro, *parts), question_text(item))]
