"""Model specs → chat model adapters, through the ``adapter`` registry.

Each adapter declares its spec form in its ``form`` tag (``wearbench list adapter``); the
grammar in error messages and in ``wearbench eval --help`` is generated from those tags.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from wearbench._errors import UnknownNameError
from wearbench._registry import registered, registry
from wearbench.models._anthropic import AnthropicChat
from wearbench.models._gguf import GGUF_INSTALL_HINT, GGUFChat
from wearbench.models._openai import LLM_INSTALL_HINT, OpenAIChat
from wearbench.models._types import ChatModel, ModelError

adapter = registered("adapter")
_KEYED = ("openai", "anthropic")


def _malformed(spec: str, why: str) -> ModelError:
    forms = ", ".join(str(e.tags["form"]) for e in registry.entries("adapter"))
    return ModelError(f"malformed model spec {spec!r}: {why}; accepted forms: {forms}")


@adapter("openai", form="openai:MODEL[@URL]", extra="llm", install=LLM_INSTALL_HINT)
def openai_adapter(rest: str, api_key_env: str | None = None) -> ChatModel:
    """OpenAI-compatible chat completions at URL, else env OPENAI_BASE_URL, else the OpenAI API."""
    model, at, url = rest.partition("@")
    if not model or (at and not url):
        raise _malformed(f"openai:{rest}", "expected openai:MODEL or openai:MODEL@URL")
    return OpenAIChat(model, base_url=url or None, api_key_env=api_key_env)


@adapter("anthropic", form="anthropic:MODEL", extra="llm", install=LLM_INSTALL_HINT)
def anthropic_adapter(rest: str, api_key_env: str | None = None) -> ChatModel:
    """Anthropic Messages API (key from env ANTHROPIC_API_KEY)."""
    if not rest or "@" in rest or "?" in rest:
        raise _malformed(f"anthropic:{rest}", "expected anthropic:MODEL")
    return AnthropicChat(rest, api_key_env=api_key_env)


def _positive_int(spec: str, key: str, value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise _malformed(spec, f"{key} must be a positive integer, got {value!r}")
    return number


@adapter("gguf", form="gguf:PATH[?chat_format=F&n_ctx=N&n_threads=N]", install=GGUF_INSTALL_HINT)
def gguf_adapter(rest: str) -> ChatModel:
    """A local GGUF file run in-process (llama-cpp-python)."""
    spec = f"gguf:{rest}"
    path, _, query = rest.partition("?")
    if not path:
        raise _malformed(spec, "expected gguf:PATH")
    chat_format: str | None = None
    n_ctx, n_threads = 4096, None
    for key, value in parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)):
        if key == "chat_format" and value:
            chat_format = value
        elif key == "n_ctx":
            n_ctx = _positive_int(spec, key, value)
        elif key == "n_threads":
            n_threads = _positive_int(spec, key, value)
        else:
            raise _malformed(spec, f"unknown or empty option {key!r} (valid: chat_format, n_ctx, n_threads)")
    return GGUFChat(path, chat_format=chat_format, n_ctx=n_ctx, n_threads=n_threads)


def load_model(spec: str, *, api_key_env: str | None = None) -> ChatModel:
    """Build the chat model adapter a spec names.

    Args:
        spec: ``SCHEME:REST``, in the ``form`` of a registered adapter.
        api_key_env: Environment variable whose value is the key for the spec's URL
            (``openai`` and ``anthropic`` only). Without it a provider key goes only to the
            provider's own host, and other URLs get no key.

    Returns:
        The adapter (SDK clients built, no request made; GGUF files are loaded).

    Raises:
        UnknownNameError: If the scheme is not a registered adapter (with close matches).
        ModelError: If the spec is malformed, the SDK is missing (the message gives the install
            command), or a key is missing.
    """
    scheme, colon, rest = spec.strip().partition(":")
    if not colon:
        try:
            entry = registry.get("adapter", scheme)
        except UnknownNameError as e:
            raise _malformed(spec, f"no 'SCHEME:' prefix ({e})") from e
    else:
        entry = registry.get("adapter", scheme)
    if not colon or not rest:
        raise _malformed(spec, f"nothing after {scheme!r}")
    if api_key_env is None:
        model: ChatModel = entry.obj(rest)
    elif scheme in _KEYED:
        model = entry.obj(rest, api_key_env=api_key_env)
    else:
        raise ModelError(f"model spec {spec!r}: --api-key-env applies to {' and '.join(_KEYED)} specs only")
    return model
