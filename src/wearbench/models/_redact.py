"""Secret redaction for every stored error and log line.

A :class:`Redactor` replaces the value of every configured key (the provider keys in the
environment and any key an adapter registers, e.g. the one ``--api-key-env`` names), Bearer
tokens, ``x-api-key`` headers and ``sk-…`` patterns by ``[REDACTED]``. The run store passes each
row and cached output through :func:`redact`; adapters pass their error messages through it.
"""

from __future__ import annotations

import os
import re
import threading

REDACTED = "[REDACTED]"
#: Environment variables whose values are always treated as secrets.
KEY_ENV_VARS: tuple[str, ...] = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
#: Shortest value treated as a key (shorter strings would redact ordinary words).
_MIN_SECRET_LEN = 8

_PATTERNS = (
    re.compile(r"(?i)(bearer\s+)[^\s\"',;}\]]+"),
    re.compile(r"(?i)((?:x-)?api[-_]?key[\"']?\s*[:=]\s*[\"']?)[^\s\"',;}\]]+"),
    re.compile(r"()\bsk-[A-Za-z0-9_\-]{8,}"),
)
_registered: set[str] = set()
_lock = threading.Lock()


def register_secret(value: str | None) -> None:
    """Treat ``value`` as a secret from now on (values shorter than 8 characters are ignored)."""
    if value and len(value) >= _MIN_SECRET_LEN:
        with _lock:
            _registered.add(value)


def _secrets() -> list[str]:
    env = (os.environ.get(v) for v in KEY_ENV_VARS)
    with _lock:
        found = {s for s in env if s and len(s) >= _MIN_SECRET_LEN} | _registered
    return sorted(found, key=len, reverse=True)  # longest first: a key containing another


def redact(text: str) -> str:
    """``text`` with every known key value and key-like token replaced by ``[REDACTED]``.

    Args:
        text: Any text bound for storage or a log (an error, a response body, a transcript).

    Returns:
        The text with secrets replaced; unchanged when it holds none.
    """
    for secret in _secrets():
        if secret in text:
            text = text.replace(secret, REDACTED)
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return text
