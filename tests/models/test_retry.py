from __future__ import annotations

import asyncio
import random

import pytest

from wearbench.models import GenerateConfig, ModelError, TransientModelError, call_with_retries
from wearbench.models._retry import MAX_BACKOFF_S, backoff_s


class Recorder:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def flaky(failures: list[Exception], result: str = "ok"):
    calls = {"n": 0}

    async def fn() -> str:
        calls["n"] += 1
        if failures:
            raise failures.pop(0)
        return result

    return fn, calls


def run(coro):
    return asyncio.run(coro)


def test_success_first_try_has_no_retries_and_no_waits():
    fn, calls = flaky([])
    sleep = Recorder()
    assert run(call_with_retries(fn, GenerateConfig(), what="m", sleep=sleep)) == ("ok", 0)
    assert calls["n"] == 1
    assert sleep.waits == []


def test_transient_failures_are_retried_with_jittered_exponential_backoff():
    fn, calls = flaky([TransientModelError("a"), TransientModelError("b"), TransientModelError("c")])
    sleep = Recorder()
    config = GenerateConfig(max_retries=5, backoff_s=1.0)
    result = run(call_with_retries(fn, config, what="m", sleep=sleep, rng=random.Random(7)))
    assert result == ("ok", 3)
    assert calls["n"] == 4
    expected_rng = random.Random(7)
    assert sleep.waits == [expected_rng.uniform(0.0, 2.0**k) for k in range(3)]
    assert all(0.0 <= w <= 2.0**k for k, w in enumerate(sleep.waits))


def test_backoff_ceiling_is_capped_at_60_s():
    rng = random.Random(0)
    waits = [backoff_s(30, 1.0, rng) for _ in range(200)]
    assert max(waits) <= MAX_BACKOFF_S
    assert max(waits) > 50.0  # full jitter spans up to the cap
    assert backoff_s(3, 0.0, rng) == 0.0


def test_retry_after_is_honoured_and_capped():
    fn, _ = flaky(
        [TransientModelError("429", retry_after_s=7.5), TransientModelError("429", retry_after_s=900)]
    )
    sleep = Recorder()
    assert run(call_with_retries(fn, GenerateConfig(backoff_s=1.0), what="m", sleep=sleep)) == ("ok", 2)
    assert sleep.waits == [7.5, 60.0]


def test_permanent_error_is_raised_at_once():
    fn, calls = flaky([ModelError("HTTP 400: bad request")])
    sleep = Recorder()
    with pytest.raises(ModelError, match="HTTP 400") as info:
        run(call_with_retries(fn, GenerateConfig(), what="m", sleep=sleep))
    assert not isinstance(info.value, TransientModelError)
    assert calls["n"] == 1
    assert sleep.waits == []


def test_gives_up_after_max_retries_with_context():
    errors: list[Exception] = [TransientModelError(f"HTTP 500 #{i}") for i in range(10)]
    fn, calls = flaky(errors)
    sleep = Recorder()
    config = GenerateConfig(max_retries=3, backoff_s=0.5)
    with pytest.raises(ModelError) as info:
        run(call_with_retries(fn, config, what="openai:x", sleep=sleep))
    assert str(info.value) == "openai:x: gave up after 3 retries: HTTP 500 #3"
    assert not isinstance(info.value, TransientModelError)
    assert isinstance(info.value.__cause__, TransientModelError)
    assert calls["n"] == 4
    assert len(sleep.waits) == 3


def test_zero_retries_gives_up_after_one_try():
    fn, calls = flaky([TransientModelError("x")])
    with pytest.raises(ModelError, match="gave up after 0 retries: x"):
        run(call_with_retries(fn, GenerateConfig(max_retries=0), what="m", sleep=Recorder()))
    assert calls["n"] == 1


def test_timeout_counts_as_transient():
    calls = {"n": 0}

    async def slow_then_fast() -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            await asyncio.sleep(10)
        return "done"

    sleep = Recorder()
    config = GenerateConfig(timeout_s=0.05, backoff_s=0.0)
    assert run(call_with_retries(slow_then_fast, config, what="m", sleep=sleep)) == ("done", 1)
    assert sleep.waits == [0.0]


def test_timeout_on_every_try_gives_up_naming_the_timeout():
    async def hang() -> str:
        await asyncio.sleep(10)
        return "never"

    config = GenerateConfig(timeout_s=0.02, max_retries=1, backoff_s=0.0)
    with pytest.raises(ModelError, match=r"m: gave up after 1 retries: m: no answer within 0\.02 s"):
        run(call_with_retries(hang, config, what="m", sleep=Recorder()))
