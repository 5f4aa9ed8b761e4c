from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

import pytest

from wearbench.agent import PYTHON_TOOL, AgentResult, Sandbox, run_agent
from wearbench.models import ChatModel, GenerateConfig, Message, ModelOutput, ToolCall, ToolSpec

CONFIG = GenerateConfig()
PROMPT = (
    Message(role="system", content="You answer health questions about one user's wearable data."),
    Message(role="user", content="What was the mean resting heart rate? A) 60 B) 64.5 C) 70"),
)


class ScriptedModel:
    """Test double of ``ChatModel``: replays pre-written outputs and records every call it gets."""

    name = "scripted:test"
    vision = False

    def __init__(self, outputs: Sequence[ModelOutput], *, tools: bool = True) -> None:
        self.tools = tools
        self._outputs = list(outputs)
        self.calls: list[tuple[tuple[Message, ...], tuple[ToolSpec, ...]]] = []

    async def generate(
        self, messages: Sequence[Message], config: GenerateConfig, tools: Sequence[ToolSpec] = ()
    ) -> ModelOutput:
        self.calls.append((tuple(messages), tuple(tools)))
        if not self._outputs:
            raise AssertionError("ScriptedModel ran out of scripted outputs")
        return self._outputs.pop(0)

    async def aclose(self) -> None:
        return None


def call(code: str, call_id: str = "c1") -> ToolCall:
    return ToolCall(id=call_id, name="python", arguments=json.dumps({"code": code}))


def run(model: ScriptedModel, sandbox: Sandbox, max_steps: int = 8) -> AgentResult:
    return asyncio.run(run_agent(model, PROMPT, sandbox, CONFIG, max_steps=max_steps))


def test_scripted_model_satisfies_protocol() -> None:
    assert isinstance(ScriptedModel([]), ChatModel)


def test_tool_call_then_final_answer(sandbox: Sandbox) -> None:
    model = ScriptedModel(
        [
            ModelOutput(
                text="",
                tool_calls=(call("df['resting_hr'].mean()"),),
                prompt_tokens=100,
                completion_tokens=20,
            ),
            ModelOutput(
                text="The mean is 64.5. Answer: B", prompt_tokens=150, completion_tokens=10, retries=1
            ),
        ]
    )
    result = run(model, sandbox)
    assert result.final_text == "The mean is 64.5. Answer: B"
    assert result.steps == 1
    assert result.tool_errors == 0
    assert result.prompt_tokens == 250
    assert result.completion_tokens == 30
    assert result.cost_usd is None
    assert result.retries == 1
    assert [m.role for m in result.transcript] == ["system", "user", "assistant", "tool", "assistant"]
    tool_message = result.transcript[3]
    assert tool_message.tool_call_id == "c1"
    assert tool_message.text == "np.float64(64.5)\n"
    # the model saw the tool result, and was offered exactly the python tool both times
    assert model.calls[1][0][3] == tool_message
    assert model.calls[0][1] == (PYTHON_TOOL,)
    assert model.calls[1][1] == (PYTHON_TOOL,)


def test_malformed_arguments_answered_with_errors(sandbox: Sandbox) -> None:
    model = ScriptedModel(
        [
            ModelOutput(
                text="",
                tool_calls=(
                    ToolCall(id="bad-json", name="python", arguments="{code: print(1)"),
                    ToolCall(id="no-code", name="python", arguments=json.dumps({"source": "print(1)"})),
                    ToolCall(id="wrong-tool", name="shell", arguments=json.dumps({"code": "ls"})),
                    call("print(df.shape)", "good"),
                ),
            ),
            ModelOutput(text="Answer: B"),
        ]
    )
    result = run(model, sandbox)
    assert result.final_text == "Answer: B"
    assert result.steps == 1
    assert result.tool_errors == 3
    tools = {m.tool_call_id: m.text for m in result.transcript if m.role == "tool"}
    assert tools["bad-json"].startswith("error: invalid arguments for 'python': not valid JSON")
    assert (
        tools["no-code"]
        == "error: invalid arguments for 'python': expected a JSON object with a string field \"code\""
    )
    assert tools["wrong-tool"] == "error: unknown tool 'shell'; the only tool is 'python'"
    assert tools["good"] == "(10, 2)\n"
    assert result.prompt_tokens is None
    assert result.completion_tokens is None


def test_code_errors_count_as_tool_errors(sandbox: Sandbox) -> None:
    model = ScriptedModel(
        [
            ModelOutput(text="", tool_calls=(call("open('/etc/shadow').read()"),)),
            ModelOutput(text="Answer: A", cost_usd=0.002),
        ]
    )
    result = run(model, sandbox)
    assert result.tool_errors == 1
    assert "PermissionError: sandbox: open refused" in result.transcript[3].text
    assert result.cost_usd == pytest.approx(0.002)


def test_step_limit_then_final_ask_without_tools(sandbox: Sandbox) -> None:
    looping = [ModelOutput(text="", tool_calls=(call(f"n = {i}\nn"),), prompt_tokens=10) for i in range(3)]
    final = ModelOutput(text="Answer: C", prompt_tokens=10, completion_tokens=2, cost_usd=0.01)
    model = ScriptedModel([*looping, final])
    result = run(model, sandbox, max_steps=3)
    assert result.final_text == "Answer: C"
    assert result.steps == 3
    assert len(model.calls) == 4
    assert all(tools == (PYTHON_TOOL,) for _, tools in model.calls[:3])
    last_messages, last_tools = model.calls[3]
    assert last_tools == ()
    assert last_messages[-1].role == "user"
    assert "used all 3 code executions" in last_messages[-1].text
    assert [m.text for m in result.transcript if m.role == "tool"] == ["0\n", "1\n", "2\n"]
    assert result.prompt_tokens == 40
    assert result.completion_tokens == 2
    assert result.cost_usd == pytest.approx(0.01)


def test_final_answer_ignores_tool_calls_in_the_no_tools_turn(sandbox: Sandbox) -> None:
    model = ScriptedModel(
        [
            ModelOutput(text="", tool_calls=(call("1"),)),
            ModelOutput(text="Answer: A", tool_calls=(call("2", "late"),)),
        ]
    )
    result = run(model, sandbox, max_steps=1)
    assert result.final_text == "Answer: A"
    assert result.transcript[-1].tool_calls == ()
    assert result.steps == 1


def test_text_protocol_for_model_without_tools(sandbox: Sandbox) -> None:
    model = ScriptedModel(
        [
            ModelOutput(
                text="Let me check.\n```python\nmean_hr = df['resting_hr'].mean()\nprint(mean_hr)\n```",
                prompt_tokens=50,
                completion_tokens=15,
            ),
            ModelOutput(text="```python\nprint(mean_hr + 1)\n```", prompt_tokens=70, completion_tokens=5),
            ModelOutput(text="The mean is 64.5. Answer: B", prompt_tokens=90, completion_tokens=8),
        ],
        tools=False,
    )
    result = run(model, sandbox)
    assert result.final_text == "The mean is 64.5. Answer: B"
    assert result.steps == 2
    assert result.tool_errors == 0
    assert all(tools == () for _, tools in model.calls)
    roles = [m.role for m in result.transcript]
    assert roles == ["system", "user", "user", "assistant", "user", "assistant", "user", "assistant"]
    assert "fenced ```python" in result.transcript[2].text
    assert result.transcript[4].text == "Output:\n64.5\n"
    assert result.transcript[6].text == "Output:\n65.5\n"
    assert result.prompt_tokens == 210
    assert result.completion_tokens == 28


def test_text_protocol_step_limit(sandbox: Sandbox) -> None:
    model = ScriptedModel(
        [
            ModelOutput(text="```python\n1/0\n```"),
            ModelOutput(text="```py\nprint('again')\n```"),
            ModelOutput(text="Answer: A"),
        ],
        tools=False,
    )
    result = run(model, sandbox, max_steps=2)
    assert result.final_text == "Answer: A"
    assert result.steps == 2
    assert result.tool_errors == 1
    assert "ZeroDivisionError" in result.transcript[4].text
    assert "used all 2 code executions" in model.calls[2][0][-1].text


def test_negative_max_steps_rejected(sandbox: Sandbox) -> None:
    with pytest.raises(ValueError, match="max_steps"):
        run(ScriptedModel([]), sandbox, max_steps=-1)
