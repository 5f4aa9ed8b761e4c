"""OpenAIChat against a scripted fake OpenAI server on 127.0.0.1 (faults injected at the HTTP layer)."""

from __future__ import annotations

import asyncio
import base64
import dataclasses

import pytest

from wearbench.models import (
    GenerateConfig,
    ImagePart,
    Message,
    ModelError,
    OpenAIChat,
    TextPart,
    ToolCall,
    ToolSpec,
)

FAST = GenerateConfig(max_tokens=16, timeout_s=0.5, max_retries=8, backoff_s=0.0)
HELLO = (Message("user", "Say hello."),)


def completion(text: str = "Hello there.", prompt: int = 12, done: int = 3, model: str = "fake-model"):
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1764480000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": prompt, "completion_tokens": done, "total_tokens": prompt + done},
    }


def error(status: int, message: str) -> dict:
    return {"error": {"message": message, "type": "server_error", "code": status}}


def generate(model: OpenAIChat, messages=HELLO, config=FAST, tools=()):
    async def go():
        try:
            return await model.generate(messages, config, tools)
        finally:
            await model.aclose()

    return asyncio.run(go())


def test_every_injected_fault_is_retried_then_succeeds(fake_http, reply):
    server = fake_http(
        [
            reply(429, error(429, "rate limited"), {"Retry-After": "0"}),
            reply(500, error(500, "boom")),
            reply(503, error(503, "unavailable")),
            reply(200, completion("too late"), delay_s=1.5),  # beyond timeout_s=0.5
            reply(200, b"<html>502 Bad Gateway</html>"),
            reply(200, {"id": "x", "object": "chat.completion", "usage": {}}),  # no choices
            reply(200, completion("Hello there.", prompt=12, done=3)),
        ]
    )
    out = generate(OpenAIChat("fake-model", base_url=f"{server.root}/v1"))
    assert out.text == "Hello there."
    assert out.retries == 6
    assert len(server.requests) == 7
    assert (out.prompt_tokens, out.completion_tokens) == (12, 3)
    assert out.stop_reason == "stop"
    assert out.model == "fake-model"
    assert out.cost_usd is None  # loopback server
    assert 0.0 < out.latency_s < 0.5
    assert all(r.path == "/v1/chat/completions" for r in server.requests)


def test_bad_request_is_not_retried(fake_http, reply):
    server = fake_http([reply(400, error(400, "max_tokens is too large")), reply(200, completion())])
    with pytest.raises(ModelError, match=r"HTTP 400.*max_tokens is too large") as info:
        generate(OpenAIChat("fake-model", base_url=f"{server.root}/v1"))
    assert "openai:fake-model@http://127.0.0.1" in str(info.value)
    assert len(server.requests) == 1


@pytest.mark.parametrize("status", [401, 404])
def test_other_client_errors_are_permanent(fake_http, reply, status):
    server = fake_http([reply(status, error(status, "nope"))])
    with pytest.raises(ModelError, match=f"HTTP {status}"):
        generate(OpenAIChat("fake-model", base_url=f"{server.root}/v1"))
    assert len(server.requests) == 1


def test_always_500_gives_up_after_max_retries_plus_one_requests(fake_http, reply):
    server = fake_http([reply(500, error(500, "boom"))])
    config = GenerateConfig(max_tokens=8, timeout_s=2.0, max_retries=3, backoff_s=0.0)
    with pytest.raises(ModelError, match=r"gave up after 3 retries: .*HTTP 500"):
        generate(OpenAIChat("fake-model", base_url=f"{server.root}/v1"), config=config)
    assert len(server.requests) == 4


def test_retry_after_header_sets_the_wait(fake_http, reply):
    server = fake_http(
        [reply(429, error(429, "slow down"), {"Retry-After": "0.3"}), reply(200, completion())]
    )
    config = GenerateConfig(max_tokens=8, timeout_s=2.0, max_retries=2, backoff_s=0.0)
    out = generate(OpenAIChat("fake-model", base_url=f"{server.root}/v1"), config=config)
    assert out.retries == 1
    assert server.requests[1].at - server.requests[0].at >= 0.25  # waited for Retry-After, not backoff_s=0


def test_twenty_concurrent_calls_share_one_client(fake_http, reply):
    server = fake_http([reply(200, completion("ok", prompt=5, done=1), delay_s=0.05)])
    model = OpenAIChat("fake-model", base_url=f"{server.root}/v1")

    # The subject is one shared client, not timeouts: a generous timeout keeps a loaded CI machine
    # (20 requests at once beside other test workers) from turning a slow answer into a retry.
    patient = dataclasses.replace(FAST, timeout_s=10.0)

    async def go():
        try:
            return await asyncio.gather(
                *(model.generate((Message("user", f"q{i}"),), patient) for i in range(20))
            )
        finally:
            await model.aclose()

    outs = asyncio.run(go())
    assert [o.text for o in outs] == ["ok"] * 20
    assert all(o.retries == 0 for o in outs)
    assert sorted(r.body["messages"][0]["content"] for r in server.requests) == sorted(
        f"q{i}" for i in range(20)
    )


def test_request_mapping_images_tools_and_params(fake_http, reply):
    calls = {
        "id": "chatcmpl-2",
        "model": "fake-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_9",
                            "type": "function",
                            "function": {"name": "mean_hr", "arguments": '{"day": 3}'},
                        }
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 40, "completion_tokens": 9},
    }
    server = fake_http([reply(200, calls)])
    png = b"\x89PNG\r\n\x1a\nfake"
    messages = (
        Message("system", "You are careful."),
        Message("user", (TextPart("Look:"), ImagePart(png, alt="chart"))),
        Message("assistant", "", tool_calls=(ToolCall("call_1", "mean_hr", '{"day": 1}'),)),
        Message("tool", "61.5", tool_call_id="call_1"),
    )
    tool = ToolSpec("mean_hr", "Mean heart rate of a day, bpm.", {"type": "object", "properties": {}})
    config = GenerateConfig(max_tokens=32, temperature=0.7, seed=None, timeout_s=2.0)
    out = generate(OpenAIChat("fake-model", base_url=f"{server.root}/v1"), messages, config, (tool,))
    assert out.text == ""
    assert out.tool_calls == (ToolCall("call_9", "mean_hr", '{"day": 3}'),)
    assert out.stop_reason == "tool_calls"
    body = server.requests[0].body
    assert body["model"] == "fake-model"
    assert (body["max_tokens"], body["temperature"]) == (32, 0.7)
    assert "seed" not in body
    sent = body["messages"]
    assert sent[0] == {"role": "system", "content": "You are careful."}
    assert sent[1]["content"][0] == {"type": "text", "text": "Look:"}
    url = sent[1]["content"][1]["image_url"]["url"]
    assert url == "data:image/png;base64," + base64.b64encode(png).decode()
    assert sent[2]["tool_calls"] == [
        {"id": "call_1", "type": "function", "function": {"name": "mean_hr", "arguments": '{"day": 1}'}}
    ]
    assert sent[3] == {"role": "tool", "tool_call_id": "call_1", "content": "61.5"}
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "mean_hr",
                "description": "Mean heart rate of a day, bpm.",
                "parameters": {"type": "object", "properties": {}},
            },
        }
    ]


def test_seed_is_sent_and_a_local_server_gets_no_key(fake_http, reply, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leave-000000")
    server = fake_http([reply(200, completion())])
    generate(OpenAIChat("fake-model", base_url=f"{server.root}/v1"), config=GenerateConfig(seed=42))
    assert server.requests[0].body["seed"] == 42
    headers = {k.lower(): v for k, v in server.requests[0].headers.items()}
    assert "authorization" not in headers


def test_priced_model_on_a_remote_server_reports_cost(fake_http, reply, monkeypatch):
    server = fake_http([reply(200, completion(prompt=2000, done=1000, model="gpt-4o-mini-2024-07-18"))])
    monkeypatch.setattr("wearbench.models._openai.is_loopback", lambda url: False)  # pretend it is remote
    model = OpenAIChat("gpt-4o-mini", base_url=f"{server.root}/v1", api_key="sk-test")
    out = generate(model)
    assert out.cost_usd == pytest.approx(2000 * 0.15e-6 + 1000 * 0.60e-6)
    headers = {k.lower(): v for k, v in server.requests[0].headers.items()}
    assert headers["authorization"] == "Bearer sk-test"


def test_name_and_capabilities():
    model = OpenAIChat("gpt-4o-mini", base_url="https://api.example.com/v1/", api_key="sk-test")
    assert model.name == "openai:gpt-4o-mini@https://api.example.com/v1"
    assert (model.vision, model.tools) == (True, True)
    asyncio.run(model.aclose())


def test_non_loopback_url_without_key_names_the_env_var(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        OpenAIChat("gpt-4o")


def test_base_url_and_key_from_env(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:9999/v1/")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model = OpenAIChat("local")
    assert model.name == "openai:local@http://localhost:9999/v1"
    asyncio.run(model.aclose())


def test_garbage_forever_gives_up(fake_http, reply):
    server = fake_http([reply(200, b"not json at all")])
    config = GenerateConfig(max_tokens=8, timeout_s=2.0, max_retries=1, backoff_s=0.0)
    with pytest.raises(ModelError, match=r"gave up after 1 retries: .*not JSON"):
        generate(OpenAIChat("fake-model", base_url=f"{server.root}/v1"), config=config)
    assert len(server.requests) == 2
