import io
import subprocess
import sys

import pytest

from wearbench.models import ImagePart, TextPart
from wearbench.prompts import data_view, plot, plot_grouped, range_groups

mpl_image = pytest.importorskip("matplotlib.image")


def _images(parts):
    return [p for p in parts if isinstance(p, ImagePart)]


def test_plot_one_png_per_signal_deterministic(item, ctx):
    view = data_view(item, ctx)
    first, second = plot(view), plot(view)
    assert isinstance(first[0], TextPart)
    assert "## Daily records" in first[0].text
    imgs = _images(first)
    assert len(imgs) == 3  # resting_hr, hrv, steps (vo2max has no data)
    assert [p.png for p in imgs] == [p.png for p in _images(second)]
    assert imgs[0].alt == "Line plot, 2024-03-01 to 2024-03-05: resting_hr (bpm, 1 missing)"
    for p in imgs:
        assert p.png.startswith(b"\x89PNG\r\n\x1a\n")
        assert b"Software" not in p.png
        pixels = mpl_image.imread(io.BytesIO(p.png), format="png")
        assert pixels.shape[:2] == (300, 900)


def test_plot_grouped_by_range(item, ctx):
    view = data_view(item, ctx)
    groups = range_groups(view.series)
    # resting_hr (max 63) and hrv (43.5) share the tens panel; steps (4000) is alone.
    assert [[s.name for s in g] for g in groups] == [["resting_hr", "hrv"], ["steps"]]
    parts = plot_grouped(view)
    imgs = _images(parts)
    assert len(imgs) == 2
    assert imgs[0].alt.startswith("Line plot, 2024-03-01 to 2024-03-05: resting_hr (bpm, 1 missing), hrv")
    assert [p.png for p in imgs] == [p.png for p in _images(plot_grouped(view))]


def test_plots_under_no_series_are_text_only(item, ctx):
    parts = plot(data_view(item, ctx, ["no_series"]))
    assert len(parts) == 1
    assert isinstance(parts[0], TextPart)


def test_import_is_silent_and_lazy():
    code = (
        "import sys, wearbench.prompts, wearbench._registry as r;"
        "r.registry.names('representation');"
        "print('matplotlib' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "False\n"
    assert out.stderr == ""
