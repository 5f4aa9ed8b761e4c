"""Every PM template on a real simulated run (healthloopqa profile, 2 patients x 30 days, faults).

The run is written by the simulator and read back with :func:`read_records`, so this also checks
the reader on the profile's folder layout.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("simglucose")

from wearbench.cgmqa import PatientRecord, check_answer, read_records, templates
from wearbench.sim import get_profile, simulate_profile, write_simulation

HLQA = get_profile("healthloopqa")


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[PatientRecord]:
    run = simulate_profile(HLQA, 30, patients=["adult#003", "child#001"], controller="hcl-mpc",
                           faults="random", seed=7)  # fmt: skip
    out = tmp_path_factory.mktemp("cgmqa") / "run"
    write_simulation(run.frame, out, sample_time=5, params={"profile": "healthloopqa"}, faults=run.faults,
                     exercise=run.sessions, meals=run.meals, layout="healthloopqa")  # fmt: skip
    return read_records(out)


def test_the_run_reads_as_two_full_records(records: list[PatientRecord]) -> None:
    assert [r.subject for r in records] == ["adult#003", "child#001"]
    for r in records:
        assert r.days == 30
        assert len(r.bg) == 8640
        assert r.fault is not None
        assert r.hazard is not None
        assert r.insulin is not None
        assert r.meals
        assert r.boluses
        assert r.exercise
        assert np.isnan(r.bg).any()  # missing_signal
        assert (r.fault != "").any()
        # hazard labels are those of the displayed CGM
        assert set(r.hazard[r.bg < 70]) == {"hypoglycemia"}
        assert set(r.hazard[r.bg > 180]) == {"hyperglycemia"}


def test_every_pm_template_answers_or_declines_on_the_run(records: list[PatientRecord]) -> None:
    answered: dict[str, int] = {}
    for t in templates("pm"):
        for r in records:
            for params in t.candidates(r):
                value = t.answer(r, params)
                if value is not None:
                    check_answer(t, value)
                    answered[t.id] = answered.get(t.id, 0) + 1
    # every PM template has an answer for at least one patient of a 30-day run
    assert set(answered) == {t.id for t in templates("pm")}


def test_draw_is_deterministic_and_answers(records: list[PatientRecord]) -> None:
    for t in templates("pm"):
        a = t.draw(records[0], np.random.default_rng(3))
        b = t.draw(records[0], np.random.default_rng(3))
        assert a == b
        if a is not None:
            params, value = a
            assert t.answer(records[0], params) == value
            assert "{" not in t.text(params)
