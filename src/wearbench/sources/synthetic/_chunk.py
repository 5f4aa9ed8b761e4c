"""One chunk of users through every component, and its demographics table."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from wearbench.sources.synthetic._couplings import Coupling, Planted, select_couplings
from wearbench.sources.synthetic._daily import Calendar, simulate
from wearbench.sources.synthetic._device import Recording, record
from wearbench.sources.synthetic._episodes import UserPlan, draw_plans, effects
from wearbench.sources.synthetic._streams import Component, Population, user_rngs
from wearbench.sources.synthetic._traits import Person, draw_persons


@dataclass(frozen=True)
class Chunk:
    """Users ``first … first + len(user_ids) - 1`` of one population."""

    first: int
    user_ids: list[str]
    person: Person
    plans: list[UserPlan]
    couplings: list[tuple[Coupling, ...]]
    recording: Recording


def user_ids(prefix: str, first: int, stop: int, total: int) -> list[str]:
    """Zero-padded identifiers ``prefix0001 …`` (at least 4 digits) for users ``first … stop-1``."""
    width = max(4, len(str(total)))
    return [f"{prefix}{i + 1:0{width}d}" for i in range(first, stop)]


def generate_chunk(seed: int, population: Population, ids: list[str], first: int, cal: Calendar) -> Chunk:
    """Generate users ``first … first + len(ids) - 1`` of ``population`` over ``cal``.

    Args:
        seed: Root seed.
        population: Benchmark cohort or reference population.
        ids: Identifiers of the chunk's users.
        first: Index of the chunk's first user in its population.
        cal: Calendar of the record.
    """
    stop, n_days = first + len(ids), cal.dates.shape[0]

    def rngs(component: Component) -> list[np.random.Generator]:
        return user_rngs(seed, population, component, first, stop)

    person = draw_persons(rngs(Component.TRAITS))
    plans = draw_plans(rngs(Component.PLAN), n_days, person)
    couplings = select_couplings(rngs(Component.COUPLINGS), person)
    eff = effects(plans, n_days)
    true = simulate(rngs(Component.DAILY), person, eff, cal, Planted.from_lists(couplings))
    recording = record(rngs(Component.DEVICE), true, person, eff, plans)
    return Chunk(first, ids, person, plans, couplings, recording)


def demographics_frame(ids: list[str], person: Person) -> pd.DataFrame:
    """Demographics: ``user_id``, ``age`` (whole years, float), ``sex`` (F/M), ``bmi``, ``ethnicity``."""
    return pd.DataFrame(
        {
            "user_id": ids,
            "age": person.age.astype(np.float64),
            "sex": np.where(person.male, "M", "F"),
            "bmi": person.bmi,
            "ethnicity": person.ethnicity,
        }
    )
