"""The text-level option checker finds exactly one true option, the key, in every item."""

from pathlib import Path

import pytest
from tests.validity.expected import OPTION_CHECKER_FAILURES
from tests.validity.options import CHECKERS, true_options

from wearbench import registry
from wearbench.bench import read_items

CHECKED = [t for t in registry.names("question") if t not in OPTION_CHECKER_FAILURES]
KNOWN = [
    pytest.param(t, marks=pytest.mark.xfail(strict=True, reason=r))
    for t, r in OPTION_CHECKER_FAILURES.items()
]


@pytest.mark.slow
@pytest.mark.parametrize("qtype", [*CHECKED, *KNOWN])
def test_exactly_one_true_option(validity_bench: Path, qtype: str) -> None:
    items = [i for i in read_items(validity_bench) if i.type == qtype]
    assert items, f"{qtype}: no item in the validity build"
    assert qtype in CHECKERS, f"{qtype}: no text-level checker"
    bad = [(i.id, true_options(i), i.answer) for i in items if true_options(i) != [i.answer]]
    assert not bad, f"{qtype}: {len(bad)}/{len(items)} items without exactly the key true: {bad[:5]}"


def test_expected_failures_name_registered_types() -> None:
    assert set(OPTION_CHECKER_FAILURES) <= set(registry.names("question"))
