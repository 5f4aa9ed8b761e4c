"""AnthropicChat against a FAKE Anthropic Messages API server on 127.0.0.1 (the paid API cannot run here)."""

from __future__ import annotations

import asyncio
import base64

import pytest

from wearbench.models import (
    AnthropicChat,
    GenerateConfig,
    ImagePart,
    Message,
    ModelError,
    TextPart,
    ToolCall,
    ToolSpec,
)

MODEL = "claude-sonnet-4-20250514"
FAST = GenerateConfig(max_tokens=64, timeout_s=2.0, max_retries=3, backoff_s=0.0)


def fake_message(
    text: str = "Resting heart rate fell by 3 bpm.", input_tokens: int = 1000, output_tokens: int = 200
):
    return {
        "id": "msg_01FakeFakeFake",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def fake_error(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}


def generate(model: AnthropicChat, messages, config=FAST, tools=()):
    async def go():
        try:
            return await model.generate(messages, config, tools)
        finally:
            await model.aclose()

    return asyncio.run(go())


def test_overloaded_529_is_retried_then_succeeds_with_usage_and_cost(fake_http, reply):
    server = fake_http([reply(529, fake_error("overloaded_error", "Overloaded")), reply(200, fake_message())])
    model = AnthropicChat(MODEL, api_key="sk-ant-test", base_url=server.root)
    out = generate(model, (Message("system", "Be brief."), Message("user", "Trend?")))
    assert out.text == "Resting heart rate fell by 3 bpm."
    assert out.retries == 1
    assert len(server.requests) == 2
    assert (out.prompt_tokens, out.completion_tokens) == (1000, 200)
    assert out.cost_usd == pytest.approx(1000 * 3.00e-6 + 200 * 15.00e-6)
    assert (out.stop_reason, out.model) == ("end_turn", MODEL)
    seen = server.requests[-1]
    assert seen.path == "/v1/messages"
    headers = {k.lower(): v for k, v in seen.headers.items()}
    # the SDK sends the key as x-api-key (older releases) or as a bearer token (newer ones)
    assert "sk-ant-test" in (
        headers.get("x-api-key"),
        headers.get("authorization", "").removeprefix("Bearer "),
    )
    assert "anthropic-version" in headers
    assert seen.body["system"] == "Be brief."
    assert seen.body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Trend?"}]}]
    assert (seen.body["max_tokens"], seen.body["temperature"]) == (64, 0.0)
    assert "seed" not in seen.body


def test_images_tools_and_tool_results_are_mapped(fake_http, reply):
    answer = fake_message()
    answer["content"] = [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_02", "name": "mean_hr", "input": {"day": 4}},
    ]
    answer["stop_reason"] = "tool_use"
    server = fake_http([reply(200, answer)])
    png = b"\x89PNG\r\n\x1a\nfake"
    messages = (
        Message("user", (TextPart("Look:"), ImagePart(png, alt="chart"))),
        Message("assistant", "Let me check.", tool_calls=(ToolCall("toolu_01", "mean_hr", '{"day": 3}'),)),
        Message("tool", "61.5", tool_call_id="toolu_01"),
        Message("user", "And day 4?"),
    )
    tool = ToolSpec("mean_hr", "Mean heart rate of a day, bpm.", {"type": "object", "properties": {}})
    model = AnthropicChat(MODEL, api_key="k", base_url=server.root)
    out = generate(model, messages, tools=(tool,))
    assert out.text == "Checking."
    assert out.tool_calls == (ToolCall("toolu_02", "mean_hr", '{"day": 4}'),)
    assert out.stop_reason == "tool_use"
    body = server.requests[0].body
    assert "system" not in body
    data = base64.b64encode(png).decode()
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look:"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_01", "name": "mean_hr", "input": {"day": 3}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_01", "content": "61.5"},
                {"type": "text", "text": "And day 4?"},
            ],
        },
    ]
    assert body["tools"] == [
        {
            "name": "mean_hr",
            "description": "Mean heart rate of a day, bpm.",
            "input_schema": {"type": "object", "properties": {}},
        }
    ]


def test_bad_request_is_permanent(fake_http, reply):
    server = fake_http([reply(400, fake_error("invalid_request_error", "max_tokens: too large"))])
    model = AnthropicChat(MODEL, api_key="k", base_url=server.root)
    with pytest.raises(ModelError, match=r"HTTP 400.*max_tokens: too large"):
        generate(model, (Message("user", "hi"),))
    assert len(server.requests) == 1


def test_rate_limit_and_500_are_transient_until_retries_run_out(fake_http, reply):
    server = fake_http(
        [
            reply(429, fake_error("rate_limit_error", "slow down"), {"retry-after": "0"}),
            reply(500, fake_error("api_error", "Internal server error")),
        ]
    )
    model = AnthropicChat(MODEL, api_key="k", base_url=server.root)
    with pytest.raises(ModelError, match=r"gave up after 3 retries: .*HTTP 500"):
        generate(model, (Message("user", "hi"),))
    assert len(server.requests) == 4


def test_garbage_body_is_transient(fake_http, reply):
    server = fake_http(
        [reply(200, b"<html>oops</html>"), reply(200, {"type": "message"}), reply(200, fake_message("ok"))]
    )
    model = AnthropicChat(MODEL, api_key="k", base_url=server.root)
    out = generate(model, (Message("user", "hi"),))
    assert (out.text, out.retries) == ("ok", 2)


def test_missing_key_names_the_env_var(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY"):
        AnthropicChat(MODEL)


def test_name(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    model = AnthropicChat(MODEL)
    assert model.name == f"anthropic:{MODEL}"
    assert (model.vision, model.tools) == (True, True)
    asyncio.run(model.aclose())
