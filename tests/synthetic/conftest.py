"""Shared small synthetic cohorts (built once per test session)."""

import pytest

from wearbench.cohort import Cohort
from wearbench.sources.synthetic import synthesize

#: The main test cohort: 40 users x 200 days, a small reference population.
SMALL = {"n_users": 40, "n_days": 200, "seed": 0, "reference_users": 200, "reference_days": 30}


@pytest.fixture(scope="session")
def small_args() -> dict[str, int]:
    """The arguments :func:`cohort` was built with."""
    return dict(SMALL)


@pytest.fixture(scope="session")
def cohort() -> Cohort:
    return synthesize(**SMALL)


@pytest.fixture(scope="session")
def wide_cohort() -> Cohort:
    """More users, shorter records: for statistics across users."""
    return synthesize(150, 120, seed=11, reference_users=0)
