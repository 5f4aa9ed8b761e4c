"""Every registered representation, on real built-benchmark items."""

import pytest

from wearbench._errors import UnknownNameError
from wearbench._registry import registry
from wearbench.bench import load_context, read_items
from wearbench.models import ImagePart, TextPart
from wearbench.prompts import agent_frame, data_view

NAMES = registry.names("representation")


def test_all_representations_registered():
    assert NAMES == [
        "column",
        "csv",
        "csv+stats",
        "markdown",
        "markdown+stats",
        "plot",
        "plot-grouped",
        "row",
    ]
    images = {e.name for e in registry.entries("representation", image=True)}
    assert images == {"plot", "plot-grouped"}
    with pytest.raises(UnknownNameError, match="did you mean 'csv"):
        registry.get("representation", "cvs")


@pytest.fixture(scope="module")
def real(small_bench):
    items = read_items(small_bench)
    first = items[0]
    return first, load_context(small_bench, first.user_id)


@pytest.mark.parametrize("name", NAMES)
def test_representation_contract(name, real):
    item, ctx = real
    view = data_view(item, ctx)
    fn = registry.get("representation", name).obj
    parts = fn(view)
    assert parts
    assert all(isinstance(p, TextPart | ImagePart) for p in parts)
    text = "\n".join(p.text if isinstance(p, TextPart) else p.alt for p in parts)
    assert text.strip()
    assert view.series
    for s in view.series:
        assert s.name in text
    again = fn(view)
    assert again == parts  # deterministic, images byte-identical
    if registry.get("representation", name).tags["image"]:
        assert any(isinstance(p, ImagePart) for p in parts)
    else:
        assert len(parts) == 1
        body = parts[0].text
        assert len(view.dates) >= 1
        assert view.dates[0] in body
        assert view.dates[-1] in body


def test_real_item_span(real):
    item, ctx = real
    view = data_view(item, ctx)
    end = ctx.index(item.end_date)
    assert len(view.dates) == min(item.history_days, end + 1)
    assert view.dates[-1] == item.end_date
    assert len(data_view(item, ctx, ["no_history"]).dates) == item.window_days
    df = agent_frame(item, ctx)
    assert len(df) == len(view.dates)
    assert [c.split(" [")[0] for c in df.columns] == list(view.metric_names)
