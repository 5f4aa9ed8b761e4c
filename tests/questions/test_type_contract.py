"""One contract suite run over every registered question type (statsforecast style)."""

from pathlib import Path

import pytest

import wearbench
from wearbench import registry
from wearbench.bench import build_benchmark, read_items, verify_benchmark
from wearbench.questions import LETTERS, question_type

TYPES = registry.names("question")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cohort = wearbench.synth(16, 300, seed=5, reference_users=400)
    out = tmp_path_factory.mktemp("bench")
    build_benchmark(cohort, out, seed=3)
    return out


@pytest.mark.parametrize("name", TYPES)
def test_type_yields_items_that_verify(built: Path, name: str) -> None:
    items = [i for i in read_items(built) if i.type == name]
    assert items, f"{name} produced no item on a 16-user cohort"
    qt = question_type(name)
    for item in items:
        assert tuple(item.options) == LETTERS
        assert len(set(item.options.values())) == 10
        assert item.answer in LETTERS
        assert {
            k: getattr(item, k) for k in ("reasoning", "signals", "grounding", "dependency")
        } == qt.labels.to_dict()
        assert item.question.strip()


def test_every_item_re_derives(built: Path) -> None:
    report = verify_benchmark(built)
    assert report.failures == ()
    assert report.agreement == 1.0


@pytest.mark.parametrize("name", TYPES)
def test_type_metadata(name: str) -> None:
    qt = question_type(name)
    assert qt.name == name
    assert qt.version >= 1
    assert qt.__doc__
    assert qt.make.__doc__
    assert qt.check.__doc__
