"""Retries of transient model-call failures: per-call timeout, exponential backoff, full jitter.

Adapters wrap each provider call in :func:`call_with_retries` (and build their SDK clients
with SDK-side retries off) so the number of retries is known and reported in every output.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from wearbench.models._types import GenerateConfig, ModelError, TransientModelError

T = TypeVar("T")

#: Longest wait between two tries, seconds (also caps a server's ``Retry-After``).
MAX_BACKOFF_S = 60.0


def backoff_s(retry: int, base_s: float, rng: random.Random, retry_after_s: float | None = None) -> float:
    """The wait before retry number ``retry`` (0 for the first retry), in seconds.

    Args:
        retry: Zero-based retry index.
        base_s: First backoff, seconds; the ceiling doubles per retry up to :data:`MAX_BACKOFF_S`.
        rng: Source of the jitter.
        retry_after_s: Server-suggested wait, seconds; when given it is used instead of the
            jittered backoff (capped at :data:`MAX_BACKOFF_S`, negative values count as 0).

    Returns:
        Seconds to wait: ``retry_after_s`` capped, else uniform in ``[0, min(60, base_s * 2**retry)]``.
    """
    if retry_after_s is not None:
        return min(max(retry_after_s, 0.0), MAX_BACKOFF_S)
    ceiling = min(MAX_BACKOFF_S, max(base_s, 0.0) * 2.0 ** min(retry, 64))
    return rng.uniform(0.0, ceiling)


async def call_with_retries(
    fn: Callable[[], Awaitable[T]],
    config: GenerateConfig,
    *,
    what: str,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    rng: random.Random | None = None,
) -> tuple[T, int]:
    """Await ``fn()`` under a timeout, retrying transient failures.

    Each try runs under ``asyncio.wait_for(timeout=config.timeout_s)``; a timeout counts as a
    transient failure. :class:`TransientModelError` is retried up to ``config.max_retries``
    times, waiting per :func:`backoff_s`; any other :class:`ModelError` is raised at once.

    Args:
        fn: Makes one try; called afresh for every try.
        config: Supplies ``timeout_s`` (seconds), ``max_retries`` and ``backoff_s`` (seconds).
        what: Names the call in error messages (e.g. the model name).
        sleep: Waits the given seconds (tests pass a recorder).
        rng: Jitter source (default: a new unseeded :class:`random.Random`).

    Returns:
        ``(result, retries)``: the successful result and how many retries preceded it.

    Raises:
        ModelError: A permanent failure, or ``"{what}: gave up after N retries: ..."`` chained
            from the last transient failure.
    """
    rng = rng if rng is not None else random.Random()
    retries = 0
    while True:
        try:
            result = await asyncio.wait_for(fn(), timeout=config.timeout_s)
        except TimeoutError as e:
            last = TransientModelError(f"{what}: no answer within {config.timeout_s:g} s")
            last.__cause__ = e
        except TransientModelError as e:
            last = e
        else:
            return result, retries
        if retries >= config.max_retries:
            raise ModelError(f"{what}: gave up after {retries} retries: {last}") from last
        await sleep(backoff_s(retries, config.backoff_s, rng, last.retry_after_s))
        retries += 1
