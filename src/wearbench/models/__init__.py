"""Model adapters: OpenAI-compatible, Anthropic, local GGUF (lazily imported SDKs)."""

from wearbench.models._types import (
    ChatModel,
    GenerateConfig,
    ImagePart,
    Message,
    ModelError,
    ModelOutput,
    TextPart,
    ToolCall,
    ToolSpec,
    TransientModelError,
    prompt_hash,
)

__all__ = [
    "ChatModel",
    "GenerateConfig",
    "ImagePart",
    "Message",
    "ModelError",
    "ModelOutput",
    "TextPart",
    "ToolCall",
    "ToolSpec",
    "TransientModelError",
    "prompt_hash",
]
