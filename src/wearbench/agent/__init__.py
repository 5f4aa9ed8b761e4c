"""Agent mode: a sandboxed Python tool over one user's data and the tool-call loop around it."""

from wearbench.agent._bwrap import require_bwrap
from wearbench.agent._loop import PYTHON_TOOL, WEARABLE_TEXTS, AgentResult, AgentTexts, run_agent
from wearbench.agent._sandbox import Sandbox
from wearbench.agent._types import DEFAULT_PREIMPORTS, ExecResult, SandboxError, SandboxLimits

__all__ = [
    "DEFAULT_PREIMPORTS",
    "PYTHON_TOOL",
    "WEARABLE_TEXTS",
    "AgentResult",
    "AgentTexts",
    "ExecResult",
    "Sandbox",
    "SandboxError",
    "SandboxLimits",
    "require_bwrap",
    "run_agent",
]
