"""The ``wearbench-gemma`` chat format: golden prompts, and system text reaching the real model."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest

from wearbench.models import GEMMA_CHAT_FORMAT, GenerateConfig, GGUFChat, Message, gemma_prompt

SYSTEM = 'Reply with JSON only: {"answer": NUMBER}. Units are mg/dL.'
USER = "What is 2 + 3?"


def test_no_system_message():
    assert gemma_prompt([{"role": "user", "content": "Hi"}]) == (
        "<start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\n"
    )


def test_system_text_then_a_blank_line_starts_the_first_user_turn():
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    assert gemma_prompt(messages) == (
        "<start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n<start_of_turn>model\n"
    )


def test_multi_turn_conversation_keeps_the_system_text_in_the_first_user_turn_only():
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "Bye"},
    ]
    assert gemma_prompt(messages) == (
        "<start_of_turn>user\nBe brief.\n\nHi<end_of_turn>\n"
        "<start_of_turn>model\nHello.<end_of_turn>\n"
        "<start_of_turn>user\nBye<end_of_turn>\n"
        "<start_of_turn>model\n"
    )


def test_text_parts_tool_results_and_a_system_message_with_no_user_turn_after_it():
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {"role": "assistant", "content": None},
        {"role": "tool", "content": "42"},
        {"role": "system", "content": "Answer now."},
    ]
    assert gemma_prompt(messages) == (
        "<start_of_turn>user\na\nb<end_of_turn>\n"
        "<start_of_turn>model\n<end_of_turn>\n"
        "<start_of_turn>user\n42<end_of_turn>\n"
        "<start_of_turn>user\nAnswer now.<end_of_turn>\n"
        "<start_of_turn>model\n"
    )


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ({"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:"}}]}, "text-only"),
        ({"role": "function", "content": "x"}, "unsupported message role 'function'"),
    ],
)
def test_content_is_never_dropped_silently(message, error):
    with pytest.raises(ValueError, match=error):
        gemma_prompt([message])


def test_same_prompt_as_llama_cpp_gemma_format_without_a_system_message():
    chat_format = pytest.importorskip("llama_cpp.llama_chat_format")
    messages = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello."},
        {"role": "user", "content": "Bye"},
    ]
    assert gemma_prompt(messages) == chat_format.format_gemma(messages).prompt


def _prompt_tokens(base_url: str, messages: list[dict[str, str]]) -> int:
    body = {"model": "gemma", "messages": messages, "max_tokens": 1, "temperature": 0.0}
    request = urllib.request.Request(
        f"{base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        tokens: int = json.load(response)["usage"]["prompt_tokens"]
        return tokens


def test_llama_server_keeps_the_system_message(llama_base_url):
    user_only = _prompt_tokens(llama_base_url, [{"role": "user", "content": USER}])
    with_system = _prompt_tokens(
        llama_base_url, [{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER}]
    )
    merged = _prompt_tokens(llama_base_url, [{"role": "user", "content": f"{SYSTEM}\n\n{USER}"}])
    # BOS, <start_of_turn>, "user", "\n", 8 tokens of USER, <end_of_turn>, "\n", <start_of_turn>,
    # "model", "\n"; SYSTEM is 16 tokens and the blank line 1. llama-cpp-python's `gemma` format
    # gave 17 tokens with the system message too (it dropped it).
    assert user_only == 17
    assert with_system == merged == 17 + 16 + 1


def test_gguf_in_process_keeps_the_system_message(gemma_path):
    model = GGUFChat(str(gemma_path), chat_format=GEMMA_CHAT_FORMAT, n_ctx=512, n_threads=2)
    config = GenerateConfig(max_tokens=1, temperature=0.0, timeout_s=60.0)

    async def tokens(messages):
        return (await model.generate(messages, config)).prompt_tokens

    try:
        user_only = asyncio.run(tokens([Message("user", USER)]))
        with_system = asyncio.run(tokens([Message("system", SYSTEM), Message("user", USER)]))
        merged = asyncio.run(tokens([Message("user", f"{SYSTEM}\n\n{USER}")]))
    finally:
        asyncio.run(model.aclose())
    assert (user_only, with_system, merged) == (17, 34, 34)  # as through the server
