"""Real local model (gemma3-270m Q4_K_M): through a llama.cpp server and in-process."""

from __future__ import annotations

import asyncio

import pytest

from wearbench.models import (
    GEMMA_CHAT_FORMAT,
    GenerateConfig,
    GGUFChat,
    ImagePart,
    Message,
    ModelError,
    OpenAIChat,
    TextPart,
)

SHORT = (Message("user", "What is the capital of France?"),)


def test_openai_adapter_against_llama_server(llama_base_url):
    model = OpenAIChat("gemma", base_url=llama_base_url)

    async def go():
        try:
            return await model.generate(SHORT, GenerateConfig(max_tokens=8, timeout_s=60.0))
        finally:
            await model.aclose()

    out = asyncio.run(go())
    assert out.text.strip()
    assert out.prompt_tokens is not None
    assert out.prompt_tokens > 0
    assert out.completion_tokens is not None
    assert 0 < out.completion_tokens <= 8
    assert out.cost_usd is None  # local server
    assert out.retries == 0
    assert out.latency_s > 0.0


@pytest.fixture(scope="module")
def gemma(gemma_path):
    model = GGUFChat(str(gemma_path), chat_format=GEMMA_CHAT_FORMAT, n_ctx=1024, n_threads=2)
    yield model
    asyncio.run(model.aclose())


def test_gguf_in_process_generates_text(gemma, gemma_path):
    assert gemma.name == f"gguf:{gemma_path}?chat_format=wearbench-gemma"
    assert (gemma.vision, gemma.tools) == (False, False)
    out = asyncio.run(gemma.generate(SHORT, GenerateConfig(max_tokens=4, timeout_s=60.0)))
    assert out.text.strip()
    assert out.prompt_tokens is not None
    assert out.prompt_tokens > 0
    assert out.completion_tokens is not None
    assert 0 < out.completion_tokens <= 4
    assert out.cost_usd is None


def test_gguf_greedy_is_deterministic_and_calls_are_serialised(gemma):
    config = GenerateConfig(max_tokens=4, temperature=0.0, timeout_s=60.0)

    async def go():
        return await asyncio.gather(*(gemma.generate(SHORT, config) for _ in range(3)))

    outs = asyncio.run(go())
    assert len({o.text for o in outs}) == 1


def test_gguf_refuses_images_and_tools(gemma):
    image = (Message("user", (TextPart("Look"), ImagePart(b"\x89PNG", alt="chart"))),)
    with pytest.raises(ModelError, match="text-only"):
        asyncio.run(gemma.generate(image, GenerateConfig(max_tokens=4)))


def test_gguf_prompt_longer_than_context_is_an_error(gemma_path):
    model = GGUFChat(str(gemma_path), chat_format=GEMMA_CHAT_FORMAT, n_ctx=256, n_threads=2)
    long_prompt = (Message("user", "resting heart rate 61 bpm; " * 200),)
    try:
        with pytest.raises(ModelError, match=r"longer than the context window n_ctx=256"):
            asyncio.run(model.generate(long_prompt, GenerateConfig(max_tokens=4, max_retries=3)))
    finally:
        asyncio.run(model.aclose())
