"""Model adapters: OpenAI-compatible, Anthropic, local GGUF (lazily imported SDKs).

Importing this package imports no SDK: ``openai``, ``anthropic`` and ``llama_cpp`` are
imported by the adapter constructors. :func:`load_model` builds an adapter from a spec such
as ``openai:gpt-4o-mini`` or ``gguf:model.gguf?chat_format=wearbench-gemma``.
"""

from wearbench.models._anthropic import AnthropicChat
from wearbench.models._gemma_format import GEMMA_CHAT_FORMAT, gemma_prompt
from wearbench.models._gguf import GGUFChat
from wearbench.models._load import load_model
from wearbench.models._local import gemma_model_path, quiet_stderr
from wearbench.models._openai import OpenAIChat
from wearbench.models._pricing import cost_usd
from wearbench.models._redact import redact, register_secret
from wearbench.models._retry import call_with_retries
from wearbench.models._server import llama_server
from wearbench.models._types import (
    ChatModel,
    GenerateConfig,
    ImagePart,
    Message,
    ModelError,
    ModelOutput,
    PermanentModelError,
    TextPart,
    ToolCall,
    ToolSpec,
    TransientModelError,
    prompt_hash,
)

__all__ = [
    "GEMMA_CHAT_FORMAT",
    "AnthropicChat",
    "ChatModel",
    "GGUFChat",
    "GenerateConfig",
    "ImagePart",
    "Message",
    "ModelError",
    "ModelOutput",
    "OpenAIChat",
    "PermanentModelError",
    "TextPart",
    "ToolCall",
    "ToolSpec",
    "TransientModelError",
    "call_with_retries",
    "cost_usd",
    "gemma_model_path",
    "gemma_prompt",
    "llama_server",
    "load_model",
    "prompt_hash",
    "quiet_stderr",
    "redact",
    "register_secret",
]
