"""The redactor: configured key values, Bearer tokens, api-key headers and sk-… patterns."""

import pytest

from wearbench.models import redact, register_secret


def test_configured_keys_and_patterns_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "plainkey-without-prefix-123")
    register_secret("registered-secret-value-xyz")
    text = (
        "bad key plainkey-without-prefix-123; got registered-secret-value-xyz; "
        "header 'Authorization: Bearer abc.def-ghi'; x-api-key: qwerty12345; leaked sk-proj-AbCdEf123456"
    )
    assert redact(text) == (
        "bad key [REDACTED]; got [REDACTED]; header 'Authorization: Bearer [REDACTED]'; "
        "x-api-key: [REDACTED]; leaked [REDACTED]"
    )


def test_ordinary_text_and_short_values_are_untouched(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "short")  # under 8 characters: not treated as a key
    register_secret("tiny")
    text = "Reasoning: resting heart rate is short of 60 bpm. Answer: C"
    assert redact(text) == text
