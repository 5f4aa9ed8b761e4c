"""The registry computes each entry's ``inspect.signature`` once, however often it is used."""

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from wearbench import Spec, WearbenchError
from wearbench._registry import Registry


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    seen: list[object] = []
    real = inspect.signature

    def counted(obj: Callable[..., Any], *args: Any, **kwargs: Any) -> inspect.Signature:
        seen.append(obj)
        return real(obj, *args, **kwargs)

    monkeypatch.setattr(inspect, "signature", counted)
    return seen


def test_signature_is_computed_once_per_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _counting(monkeypatch)
    reg = Registry()

    def scale(values: list[float], *, factor: float = 2.0) -> list[float]:
        """Multiply every value."""
        return [v * factor for v in values]

    reg.register("primitive", "scale", scale)
    assert seen == []  # not at registration
    entry = reg.get("primitive", "scale")
    specs = [entry.spec(factor=f) for f in (1.0, 3.0, 0.5)]
    rows = reg.catalogue("primitive") + reg.catalogue("primitive")
    with pytest.raises(WearbenchError, match=r"no parameter\(s\) 'factr'; valid: values, factor"):
        entry.spec(factr=1.0)
    assert seen == [scale]
    assert specs[1] == Spec("primitive", "scale", {"factor": 3.0})
    assert (
        rows[0]
        == rows[1]
        == {"name": "scale", "summary": "Multiply every value.", "parameters": {"factor": 2.0}, "tags": {}}
    )
    assert list(entry.parameters) == ["values", "factor"]


def test_each_entry_has_its_own_signature(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _counting(monkeypatch)
    reg = Registry()

    def a(x: int, *, k: int = 1) -> int:
        return x + k

    def b(x: int, **kwargs: int) -> int:
        return x

    reg.register("primitive", "a", a)
    reg.register("primitive", "b", b)
    for _ in range(3):
        reg.get("primitive", "a").spec(k=2)
        reg.get("primitive", "b").spec(anything=2)  # **kwargs accepts any name
    expected: list[object] = [a, b]
    assert seen == expected
