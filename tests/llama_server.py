"""Test helpers for a real local model: the gemma3-270m GGUF file and a llama.cpp server on it."""

from wearbench.models import gemma_model_path, llama_server

__all__ = ["gemma_model_path", "llama_server"]
