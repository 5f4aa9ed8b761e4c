import json

import pytest

from wearbench import Spec, UnknownNameError, WearbenchError
from wearbench._registry import Registry, registry


def _make() -> Registry:
    reg = Registry()

    def rolling_mean(values: list[float], *, window: int = 7) -> float:
        return sum(values[-window:]) / min(window, len(values))

    def rolling_median(values: list[float], *, window: int = 7) -> float:
        return sorted(values[-window:])[len(values[-window:]) // 2]

    reg.register("primitive", "rolling_mean", rolling_mean, cost="cheap", inputs=("values",))
    reg.register("primitive", "rolling_median", rolling_median, cost="moderate", inputs=("values",))
    return reg


def test_unknown_name_suggests_close_matches() -> None:
    reg = _make()
    with pytest.raises(UnknownNameError) as info:
        reg.get("primitive", "rolling_maen")
    assert info.value.suggestions[0] == "rolling_mean"
    expected = "unknown primitive 'rolling_maen'; did you mean 'rolling_mean', 'rolling_median'?"
    assert str(info.value) == expected


def test_unknown_name_without_matches_has_no_hint() -> None:
    with pytest.raises(UnknownNameError, match=r"^unknown primitive 'zzz'$"):
        _make().get("primitive", "zzz")


def test_spec_records_arguments_and_reruns() -> None:
    reg = _make()
    spec = reg.get("primitive", "rolling_mean").spec(window=2)
    assert spec == Spec("primitive", "rolling_mean", {"window": 2})
    assert spec.to_json() == '{"args":{"window":2},"kind":"primitive","name":"rolling_mean"}'
    again = Spec.from_dict(json.loads(spec.to_json()))
    assert reg.call(again, [1.0, 2.0, 4.0]) == 3.0


def test_spec_rejects_unknown_and_non_json_arguments() -> None:
    entry = _make().get("primitive", "rolling_mean")
    with pytest.raises(WearbenchError, match="no parameter"):
        entry.spec(windw=3)
    with pytest.raises(WearbenchError, match="JSON"):
        entry.spec(window=object())


def test_entries_filter_by_tags() -> None:
    reg = _make()
    assert [e.name for e in reg.entries("primitive", cost="moderate")] == ["rolling_median"]
    assert [e.name for e in reg.entries("primitive", inputs="values")] == ["rolling_mean", "rolling_median"]


def test_duplicate_name_from_another_function_is_refused() -> None:
    reg = _make()

    def other(values: list[float]) -> float:
        return 0.0

    with pytest.raises(ValueError, match="already registered"):
        reg.register("primitive", "rolling_mean", other)


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown registry kind"):
        Registry().register("widget", "x", len)  # type: ignore[arg-type]


def test_global_registry_loads_primitives_lazily() -> None:
    assert "lagged_correlation" in registry.names("primitive")
