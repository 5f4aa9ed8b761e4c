"""load_model: spec parsing, registry lookup, refusals and install hints."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from wearbench._errors import UnknownNameError
from wearbench._registry import registry
from wearbench.models import AnthropicChat, ChatModel, GGUFChat, ModelError, OpenAIChat, load_model


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(var, raising=False)


def close(model):
    asyncio.run(model.aclose())


def test_openai_with_url():
    model = load_model("openai:gemma@http://127.0.0.1:8080/v1")
    assert isinstance(model, OpenAIChat)
    assert isinstance(model, ChatModel)
    assert model.name == "openai:gemma@http://127.0.0.1:8080/v1"
    close(model)


def test_openai_url_from_env(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:8000/v1")
    model = load_model("openai:qwen")
    assert model.name == "openai:qwen@http://localhost:8000/v1"
    close(model)


def test_openai_default_url_needs_a_key(monkeypatch):
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        load_model("openai:gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    model = load_model("openai:gpt-4o-mini")
    assert model.name == "openai:gpt-4o-mini@https://api.openai.com/v1"
    close(model)


def test_anthropic(monkeypatch):
    with pytest.raises(ModelError, match="ANTHROPIC_API_KEY"):
        load_model("anthropic:claude-sonnet-4-20250514")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    model = load_model("anthropic:claude-sonnet-4-20250514")
    assert isinstance(model, AnthropicChat)
    assert isinstance(model, ChatModel)
    assert model.name == "anthropic:claude-sonnet-4-20250514"
    close(model)


class FakeGGUF:
    def __init__(self, path, *, chat_format=None, n_ctx=4096, n_threads=None):
        self.args = (path, chat_format, n_ctx, n_threads)


@pytest.mark.parametrize(
    ("spec", "args"),
    [
        ("gguf:/m/a.gguf", ("/m/a.gguf", None, 4096, None)),
        ("gguf:/m/a.gguf?chat_format=gemma&n_ctx=2048&n_threads=2", ("/m/a.gguf", "gemma", 2048, 2)),
        ("gguf:rel/b.gguf?n_threads=4", ("rel/b.gguf", None, 4096, 4)),
    ],
)
def test_gguf_spec_parsing(monkeypatch, spec, args):
    monkeypatch.setattr("wearbench.models._load.GGUFChat", FakeGGUF)
    assert load_model(spec).args == args


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("gguf:/m/a.gguf?n_ctx=abc", "n_ctx must be a positive integer"),
        ("gguf:/m/a.gguf?n_ctx=0", "n_ctx must be a positive integer"),
        ("gguf:/m/a.gguf?temperature=1", "unknown or empty option 'temperature'"),
        ("gguf:?n_ctx=10", "expected gguf:PATH"),
        ("openai:", "nothing after 'openai'"),
        ("openai:@http://127.0.0.1:1/v1", "expected openai:MODEL"),
        ("openai:gemma@", "expected openai:MODEL"),
        ("anthropic:claude@http://x", "expected anthropic:MODEL"),
        ("gpt-4o", "no 'SCHEME:' prefix"),
        ("openai", "nothing after 'openai'"),
    ],
)
def test_malformed_specs_name_the_spec_and_the_forms(monkeypatch, spec, why):
    monkeypatch.setattr("wearbench.models._load.GGUFChat", FakeGGUF)
    with pytest.raises(ModelError) as info:
        load_model(spec)
    message = str(info.value)
    assert why in message
    assert (
        "accepted forms: anthropic:MODEL, gguf:PATH[?chat_format=F&n_ctx=N&n_threads=N], openai:MODEL[@URL]"
        in message
    )


def test_unknown_scheme_suggests_close_match():
    with pytest.raises(UnknownNameError, match="did you mean 'openai'") as info:
        load_model("opnai:gpt-4o")
    assert info.value.kind == "adapter"
    assert info.value.suggestions[0] == "openai"


def test_chat_adapters_are_registered_with_their_spec_form():
    rows = {e.name: e.tags for e in registry.entries("adapter")}
    assert rows["openai"] == {
        "form": "openai:MODEL[@URL]",
        "extra": "llm",
        "install": "pip install 'wearbench[llm]'",
    }
    assert rows["anthropic"]["form"] == "anthropic:MODEL"
    assert rows["gguf"]["install"].endswith('pip install "llama-cpp-python[server]==0.3.36"')


def test_baselines_are_not_chat_adapters():
    assert "random" in registry.names("baseline")
    assert "random" not in registry.names("adapter")
    with pytest.raises(UnknownNameError, match="unknown adapter 'baseline'"):
        load_model("baseline:random")


@pytest.mark.parametrize(
    ("module", "spec", "hint"),
    [
        ("openai", "openai:m@http://127.0.0.1:1/v1", "pip install 'wearbench[llm]'"),
        ("anthropic", "anthropic:m", "pip install 'wearbench[llm]'"),
        (
            "llama_cpp",
            "gguf:/m/a.gguf",
            'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install "llama-cpp-python[server]==0.3.36"',
        ),
    ],
)
def test_missing_sdk_gives_the_install_command(monkeypatch, module, spec, hint):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    with pytest.raises(ModelError) as info:
        load_model(spec)
    assert hint in str(info.value)
    assert isinstance(info.value.__cause__, ImportError)


def test_gguf_real_file(gemma_path):
    model = load_model(f"gguf:{gemma_path}?chat_format=wearbench-gemma&n_ctx=512&n_threads=2")
    assert isinstance(model, GGUFChat)
    assert isinstance(model, ChatModel)
    assert model.name == f"gguf:{gemma_path}?chat_format=wearbench-gemma"
    assert model.n_ctx == 512
    close(model)


def test_gguf_missing_file_is_a_model_error(tmp_path):
    pytest.importorskip("llama_cpp")
    with pytest.raises(ModelError, match="cannot load model"):
        load_model(f"gguf:{tmp_path / 'absent.gguf'}")


def test_import_is_silent_and_imports_no_sdk():
    code = (
        "import sys, wearbench.models\n"
        "sdks = ('openai', 'anthropic', 'llama_cpp', 'httpx', 'httpx2')\n"
        "print(sorted(m for m in sdks if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout == "[]\n"
    assert done.stderr == ""
