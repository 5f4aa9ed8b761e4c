"""fitness_prediction on real VO2max (PMData): the FRIEND 2015 percentile cell is the peer reference.

PMData is the only shared dataset with VO2max (Fitbit exercise estimates, GPS runs only). Its
ten participants are never 30 peers of one age band and sex, so the reference is external.
Their records (114-152 days) are shorter than the type's 180-day trend history, so a build
offers no window; the last day of p08 (49 estimates) is posed directly.
"""

from pathlib import Path

import numpy as np
import pytest

from wearbench.cohort import contexts_from_cohort, load_cohort
from wearbench.questions import CohortPool, graph_references
from wearbench.questions.types.fitness_prediction import TREND_DAYS, FitnessPrediction
from wearbench.sources import import_source


def test_pmdata_vo2max_is_banded_by_the_friend_cell(shared_data: Path, tmp_path: Path) -> None:
    import_source("pmdata", shared_data / "pmdata", tmp_path / "cohort")
    ctx = contexts_from_cohort(load_cohort(tmp_path / "cohort"))["p08"]
    assert ctx.demographics["age"] == 27.0
    assert ctx.demographics["sex"] == "M"
    assert ctx.n_days < TREND_DAYS  # why a build has no window for this user
    d = FitnessPrediction().make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())
    cell = graph_references(d.graph.to_json())["vo2max"]
    assert (cell.kind, cell.source, cell.age_band, cell.sex) == ("external", "friend2015", "18-29", "M")
    ev = d.graph.evidence()
    # FRIEND treadmill, men 20-29 y: P25 40.1, P50 48.0, P75 55.2 mL/kg/min
    assert (ev["ref_p25"], ev["ref_p50"], ev["ref_p75"]) == (40.1, 48.0, 55.2)
    assert ev["vo2max"] == pytest.approx(51.12, abs=0.01)  # median of the last 90 days' estimates
    assert ev["lo"] > 0
    assert dict(d.correct.claim) == {"band": "above_median", "risk": "lower", "trend": "improving"}
    assert "P25 = 40.1, P50 = 48, P75 = 55.2 mL/kg/min" in d.question
