"""differential_rhr: the focus days' co-signal shifts (resting HR up is the premise), matched to profiles."""

from __future__ import annotations

from tests.validity.prompt import Prompt
from tests.validity.solvers._common import pick
from tests.validity.solvers._strain import holds, state_of_prompt


def solve(p: Prompt) -> str:
    """Letter of the one co-signal profile whose every named condition holds."""
    state, r = state_of_prompt(p, judge_rhr=False)
    return pick(p.options, lambda text: holds(text, state, r.t_co))
