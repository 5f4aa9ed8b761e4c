"""``python -m wearbench.models._llama_server_main ARGS``: llama.cpp's server with wearbench's chat formats.

Registers ``wearbench-gemma`` (:mod:`wearbench.models._gemma_format`), then runs
``python -m llama_cpp.server`` in this process with the same command-line arguments. Only
:func:`wearbench.models.llama_server` runs it; importing :mod:`wearbench` never imports it, so
llama-cpp-python (the ``[local]`` extra) stays optional.
"""

from __future__ import annotations

import importlib
from typing import Any

from wearbench.models._gemma_format import register_chat_formats


def main() -> None:
    """Register the chat formats and hand over to ``llama_cpp.server``'s own ``main`` (reads ``sys.argv``)."""
    register_chat_formats()
    server: Any = importlib.import_module("llama_cpp.server.__main__")  # optional, untyped
    server.main()


if __name__ == "__main__":
    main()
