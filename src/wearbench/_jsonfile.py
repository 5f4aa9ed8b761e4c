"""Reading a JSON object from a file with user-facing errors (one line, naming the file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError


def read_json_object(file: Path, *, missing: str) -> dict[str, Any]:
    """The JSON object stored in ``file``.

    Args:
        file: File to read (UTF-8 JSON).
        missing: What to tell the user when the file does not exist (e.g. how to create it).

    Raises:
        WearbenchError: If the file is missing, unreadable, not JSON, or not a JSON object.
    """
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WearbenchError(f"{file}: {missing}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise WearbenchError(f"{file}: cannot be read as JSON ({e})") from e
    if not isinstance(data, dict):
        raise WearbenchError(f"{file}: holds a {type(data).__name__}, expected a JSON object")
    return data
