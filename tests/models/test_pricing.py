from __future__ import annotations

import pytest

from wearbench.models import cost_usd
from wearbench.models._pricing import PRICES_USD_PER_MTOK


def test_known_model_cost_in_usd():
    # gpt-4o-mini: $0.15 / $0.60 per 1M tokens
    assert cost_usd("gpt-4o-mini", 1_000_000, 0) == pytest.approx(0.15)
    assert cost_usd("gpt-4o-mini", 2000, 1000) == pytest.approx(0.0003 + 0.0006)


@pytest.mark.parametrize(
    ("model", "base"),
    [
        ("gpt-4o-2024-08-06", "gpt-4o"),
        ("gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
        ("claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("claude-3-5-haiku-latest", "claude-3-5-haiku"),
        ("openai/gpt-4o", "gpt-4o"),
    ],
)
def test_snapshots_and_aliases_priced_as_base(model, base):
    usd_in, usd_out = PRICES_USD_PER_MTOK[base]
    assert cost_usd(model, 1000, 100) == pytest.approx((1000 * usd_in + 100 * usd_out) / 1e6)


def test_variant_is_not_priced_as_its_prefix():
    assert cost_usd("gpt-4o-mini", 10**6, 0) != cost_usd("gpt-4o", 10**6, 0)
    assert cost_usd("gpt-4o-audio-preview", 10, 10) is None


@pytest.mark.parametrize(
    ("model", "prompt", "completion"),
    [("gemma", 10, 10), ("gpt-4o", None, 10), ("gpt-4o", 10, None), (None, 10, 10)],
)
def test_unknown_model_or_missing_usage_costs_none(model, prompt, completion):
    assert cost_usd(model, prompt, completion) is None
