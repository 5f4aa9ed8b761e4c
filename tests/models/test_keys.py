"""Which URL gets which key: the provider's own host, or a URL named with --api-key-env."""

import pytest

from wearbench.models import AnthropicChat, ModelError, OpenAIChat, load_model


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-key-0000000000")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-key-0000000000")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)


def test_openai_key_goes_only_to_api_openai_com() -> None:
    assert OpenAIChat("gpt-4o-mini").sends_key
    assert not OpenAIChat("m", "https://api.openai.com.evil.example/v1").sends_key
    assert not OpenAIChat("m", "http://api.openai.com/v1").sends_key  # not https
    assert not OpenAIChat("m", "http://127.0.0.1:8080/v1").sends_key


def test_openai_base_url_env_does_not_redirect_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "https://proxy.example/v1")
    assert not OpenAIChat("m").sends_key


def test_api_key_env_names_the_key_for_a_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_PROXY_KEY", "proxy-key-123456789")
    model = load_model("openai:m@https://proxy.example/v1", api_key_env="MY_PROXY_KEY")
    assert isinstance(model, OpenAIChat)
    assert model.sends_key
    with pytest.raises(ModelError, match="--api-key-env UNSET_VAR_XYZ: that environment variable is not set"):
        load_model("openai:m@https://proxy.example/v1", api_key_env="UNSET_VAR_XYZ")


def test_anthropic_key_is_not_sent_to_another_host(monkeypatch: pytest.MonkeyPatch) -> None:
    AnthropicChat("claude-x")  # the provider's own host: fine
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "https://proxy.example")
    with pytest.raises(ModelError, match=r"sent only to https://api\.anthropic\.com; .*--api-key-env VAR"):
        AnthropicChat("claude-x")
