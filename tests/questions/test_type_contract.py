"""One contract suite run over every registered question type (statsforecast style)."""

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

import wearbench
from wearbench import registry
from wearbench.bench import build_benchmark, read_items, verify_benchmark
from wearbench.questions import (
    LETTERS,
    CohortPool,
    Draft,
    Drop,
    Labels,
    QuestionType,
    UserContext,
    question_type,
)
from wearbench.questions.types.blood_state import BloodState
from wearbench.questions.types.coupling_lag import CouplingLag
from wearbench.questions.types.trend import Trend

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


@pytest.mark.parametrize("name", TYPES)
def test_parameters_are_stored_constructor_fields(name: str) -> None:
    """scikit-learn style: the constructor only stores parameters, so params() rebuilds the type."""
    qt = question_type(name)()
    assert type(qt)(**qt.params()) == qt
    assert json.loads(json.dumps(qt.spec())) == qt.spec()


def test_spec_is_every_parameter_as_json() -> None:
    assert Trend(no_trend_share=0.5).spec() == {
        "no_trend_share": 0.5,
        "dead_band": 0.1,
        "ci_dead_band": 0.1,
        "max_tries": 8,
    }
    assert BloodState(keep={("normal", False, "normal", "lower"): 0.3}, margins={"hdl": 1.0}).spec() == {
        "keep": {"normal|false|normal|lower": 0.3},
        "margins": {"hdl": 1.0},
        "activity_dead_band": 5.0,
    }
    assert CouplingLag(usual_keep={-1: 0.5}).spec() == {"usual_keep": {"-1": 0.5}}


def test_manifest_records_every_type_spec(built: Path) -> None:
    specs = json.loads((built / "manifest.json").read_text())["specs"]
    assert specs == {name: question_type(name)().spec() for name in TYPES}


@pytest.mark.parametrize("name", TYPES)
def test_population_grounded_types_define_null_statistics(name: str) -> None:
    cls = question_type(name)
    overrides = cls.null_statistics is not QuestionType.null_statistics
    assert overrides == (cls.labels.grounding == "population"), name


@dataclass(frozen=True)
class _Forgetful(QuestionType):
    """A population-grounded type that forgets its null statistics."""

    name = "forgetful"
    labels = Labels("data", "cross", "population", "window")

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Never poses a question."""
        raise Drop("never")


def test_a_population_type_without_null_statistics_fails_the_build(tmp_path: Path) -> None:
    with pytest.raises(NotImplementedError, match="'forgetful' is population-grounded but does not define"):
        _Forgetful().null_statistics([], np.random.default_rng(0))
    cohort = wearbench.synth(2, 60, seed=0, reference_users=50)
    with pytest.raises(NotImplementedError, match="does not define null_statistics"):
        build_benchmark(cohort, tmp_path / "bench", types=["trend", _Forgetful()])
    assert not (tmp_path / "bench" / "items.jsonl").exists()
