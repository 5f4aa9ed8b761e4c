"""Token prices of a few well-known hosted models, to report the cost of each call in USD.

The prices are the providers' public list prices (standard tier, no batch or cache discounts)
in USD per 1 million tokens, as of 2025-06-01 (taken from the OpenAI and Anthropic pricing
pages on that date). Models whose price we were not sure of are left out: their cost is
``None``, never a guess. Local servers and in-process models cost ``None``.
"""

from __future__ import annotations

import re

#: Date the prices below were taken (ISO 8601).
PRICES_AS_OF = "2025-06-01"

#: Model → (USD per 1M input tokens, USD per 1M output tokens); list prices as of PRICES_AS_OF.
PRICES_USD_PER_MTOK: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
    "claude-3-5-haiku": (0.80, 4.00),
}

# Dated snapshots and aliases of a priced model: gpt-4o-2024-08-06, claude-sonnet-4-20250514,
# claude-3-5-haiku-latest. Anything else after the name (e.g. "-mini") is a different model.
_SNAPSHOT = re.compile(r"^(?P<base>.+?)(?:-\d{4}-\d{2}-\d{2}|-\d{8}|-latest)?$")


def _prices(model: str) -> tuple[float, float] | None:
    name = model.strip().lower()
    name = name.rsplit("/", 1)[-1]  # "openai/gpt-4o" as some gateways report it
    if name in PRICES_USD_PER_MTOK:
        return PRICES_USD_PER_MTOK[name]
    match = _SNAPSHOT.match(name)
    return PRICES_USD_PER_MTOK.get(match.group("base")) if match else None


def cost_usd(model: str | None, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
    """Cost of one call at list prices, in USD.

    Args:
        model: Provider model id; dated snapshots (``gpt-4o-2024-08-06``) and ``-latest``
            aliases are priced as their base model.
        prompt_tokens: Input tokens, as reported by the provider.
        completion_tokens: Output tokens, as reported by the provider.

    Returns:
        USD, or ``None`` when the model has no known price or the usage is missing.
    """
    if model is None or prompt_tokens is None or completion_tokens is None:
        return None
    prices = _prices(model)
    if prices is None:
        return None
    usd_in, usd_out = prices
    return (prompt_tokens * usd_in + completion_tokens * usd_out) / 1_000_000
