"""Every AD template on a real simulated run (healthloopqa profile, 2 patients x 30 days, faults)."""

from __future__ import annotations

import pytest

pytest.importorskip("simglucose")

from wearbench.cgmqa import PatientRecord, check_answer, read_records, templates
from wearbench.sim import get_profile, simulate_profile, write_simulation

HLQA = get_profile("healthloopqa")
#: The templates whose day or clock window the profile's fault plan fills for every patient.
WINDOWED = ("ad_12", "ad_14", "ad_15", "ad_16", "ad_24", "ad_33", "ad_36", "ad_40")


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[PatientRecord]:
    run = simulate_profile(HLQA, 30, patients=["adolescent#004", "adult#005"], controller="hcl-mpc",
                           faults="random", seed=11)  # fmt: skip
    out = tmp_path_factory.mktemp("cgmqa_ad") / "run"
    write_simulation(run.frame, out, sample_time=5, params={"profile": "healthloopqa"}, faults=run.faults,
                     exercise=run.sessions, meals=run.meals, layout="healthloopqa")  # fmt: skip
    return read_records(out)


def test_every_ad_template_answers_or_declines(records: list[PatientRecord]) -> None:
    answered: dict[str, int] = {}
    for t in templates("ad"):
        for r in records:
            value = t.answer(r, {})
            if value is not None:
                check_answer(t, value)
                answered[t.id] = answered.get(t.id, 0) + 1
    assert len(templates("ad")) == 64
    # the windowed label templates have an interval for both patients (the profile's windows)
    assert all(answered.get(tid) == 2 for tid in WINDOWED), {tid: answered.get(tid) for tid in WINDOWED}
    # the numbers and day answers always answer on a 30-day record with labels
    always = ("ad_1", "ad_2", "ad_22", "ad_25", "ad_26", "ad_27", "ad_31", "ad_32", "ad_34", "ad_35",
              "ad_38", "ad_41")  # fmt: skip
    assert all(answered.get(tid) == 2 for tid in always)
    assert len(answered) >= 55
