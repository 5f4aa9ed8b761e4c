"""The prompt-only solver reaches >= 99% on every type, except the ones listed in ``expected.py``."""

from pathlib import Path

import pytest
from tests.validity.expected import DEFECTS, SOLVER_FAILURES
from tests.validity.score import Tally

from wearbench import registry

TARGET = 0.99
SOLVED = [t for t in registry.names("question") if t not in SOLVER_FAILURES]
KNOWN = [pytest.param(t, marks=pytest.mark.xfail(strict=True, reason=r)) for t, r in SOLVER_FAILURES.items()]


def _assert_solved(tally: Tally, qtype: str) -> None:
    n = tally.total[qtype]
    assert n > 0, f"{qtype}: no item in the validity build"
    wrong = tally.wrong[qtype]
    assert tally.accuracy(qtype) >= TARGET, f"{qtype}: {n - len(wrong)}/{n} solved; first misses: {wrong[:5]}"


@pytest.mark.slow
@pytest.mark.parametrize("qtype", [*SOLVED, *KNOWN])
def test_solver_reaches_target(solver_tally: Tally, qtype: str) -> None:
    _assert_solved(solver_tally, qtype)


def test_expected_failures_name_registered_types() -> None:
    assert set(SOLVER_FAILURES) | set(DEFECTS) <= set(registry.names("question"))
    assert all(reason.strip() for reason in SOLVER_FAILURES.values())


def test_solvers_read_only_text() -> None:
    """No solver module imports the question, primitive, grounding or bench code (text only)."""
    forbidden = ("wearbench.questions", "wearbench.primitives", "wearbench.grounding", "wearbench.bench")
    folder = Path(__file__).parent / "solvers"
    for path in sorted(folder.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        for name in forbidden:
            assert f"import {name}" not in source, f"{path.name}: {name}"
            assert f"from {name}" not in source, f"{path.name}: {name}"
