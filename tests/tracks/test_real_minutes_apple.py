"""Apple Health exports (the real fixtures, the generator's) through preprocessing and the imputation track.

The numbers asserted here were measured on these exact inputs (shared fixtures; generator seed 3,
export seed 1). The real fixtures are tiny and mostly iPhone-only, so under the default non-wear
rule (a minute without any Watch sample is non-wear) every one of their days is dropped and the
track refuses to run; with the pluggable rule swapped for "always worn" they go through.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import wearbench
from wearbench import WearbenchError
from wearbench.cli import cli
from wearbench.scoring import score_imputation_results
from wearbench.sources.apple_health import apple_health_minutes, write_export
from wearbench.tracks import preprocess_cohort, read_imputation_results, run_imputation

METHODS = ("locf", "mean", "linear", "temporal_mean", "personal_mean")
_DEFAULT = Path(__file__).resolve().parents[2].parent / "shared" / "data"
ALX, PAUL, SIMON = (
    "alxdrcirilo_apple-health-parser",
    "paulstaab_health-data-parser",
    "simonw_healthkit-to-sqlite",
)


@pytest.fixture(scope="module")
def fixtures() -> list[Path]:
    """The three real exports in the shared data folder (skips when it is absent)."""
    root = Path(os.environ.get("WEARBENCH_SHARED_DATA", _DEFAULT))
    if not (root / "README.md").is_file():
        pytest.skip(f"real data folder not found at {root} (set WEARBENCH_SHARED_DATA)")
    a = root / "apple_health"
    return [a / f"{ALX}/export.zip", a / f"{PAUL}/export.xml", a / f"{SIMON}/export.xml"]


def _always_worn(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    return np.zeros(present[:, 0].shape, dtype=bool)


def _counts(folder: Path) -> dict[str, tuple[int, int, int, int]]:
    return {
        c.user_id: (c.n_days, c.wear_dropped, c.variance_dropped, c.retained)
        for c in preprocess_cohort(folder)
    }


def test_real_fixtures_default_rule_drops_every_day(fixtures: list[Path], tmp_path: Path) -> None:
    apple_health_minutes(fixtures, tmp_path / "m")
    # alxdrcirilo has 3 minutes with a Watch sample, paulstaab 13 HR minutes, simonw 1: all > 720 non-wear
    assert _counts(tmp_path / "m") == {ALX: (2, 2, 0, 0), PAUL: (8, 8, 0, 0), SIMON: (2, 2, 0, 0)}
    with pytest.raises(WearbenchError, match="no retained day"):
        run_imputation(tmp_path / "m", METHODS, tmp_path / "r", seed=1, test_share=0.5)


def test_real_fixtures_through_the_track_when_always_worn(fixtures: list[Path], tmp_path: Path) -> None:
    apple_health_minutes(fixtures, tmp_path / "m", non_wear=_always_worn)
    # alxdrcirilo's 2 days fail the variance filter (Watch energy 0.2 kcal in all: variance < 1.0)
    assert _counts(tmp_path / "m") == {ALX: (2, 0, 2, 0), PAUL: (8, 0, 0, 8), SIMON: (2, 0, 0, 2)}
    # seed 1 trains on simonw (2 days) and tests paulstaab (8 days); seeds 0 and 2 train on paulstaab
    # and leave simonw's 2 days (only zero flights observed) as the whole test split
    manifest = run_imputation(tmp_path / "m", METHODS, tmp_path / "r", seed=1, test_share=0.5)
    split = manifest["split"]
    assert (split["train"], split["test"]) == ([SIMON], [ALX, PAUL])
    assert (split["train_days"], split["test_days"], split["test_without_days"]) == (2, 8, [ALX])
    _, errors = read_imputation_results(tmp_path / "r")
    locf = [e for e in errors if e.method == "locf"]
    assert len(errors) == 5 * len(locf) == 55
    assert {e.participant for e in errors} == {PAUL}
    assert Counter(e.approach for e in locf) == {
        "random_noise": 4,  # flights (MAE), HR (MAE), Cycling and Running (AUROC)
        "temporal_slice": 3,
        "signal_slice": 2,
        "workout_gap": 1,  # HR inside paulstaab's workouts
        "intensity_failure": 1,
    }
    sub = manifest["substitution"]["locf"]
    assert {a: sub[a]["n_masked"] for a in ("sleep_gap", "workout_gap", "intensity_failure")} == {
        "sleep_gap": 0,
        "workout_gap": 13,
        "intensity_failure": 6,
    }
    assert all(s["n_substituted"] == 0 for m in METHODS for s in manifest["substitution"][m].values())
    scored = score_imputation_results(tmp_path / "r", "locf", n_boot=200)
    assert all(scored["methods"]["locf"][s]["skill"] in (0.0, None) for s in scored["scopes"])
    assert scored["methods"]["locf"]["Overall"]["skill"] == 0.0
    # paulstaab's 13 HR minutes (mean 159.4 bpm, in workouts) are all masked under random noise and
    # every method fills the training mean, simonw's one sample (72 bpm): MAE 87.38 for all
    hr = {(e.method, e.approach): e.value for e in errors if e.channel == 5}
    assert hr[("locf", "random_noise")] == hr[("mean", "random_noise")] == pytest.approx(87.3846, abs=1e-4)
    # flights are all 0 (observed zeros: flights are exempt from the all-zero rule): every method's
    # MAE is 0, a 0/0 ratio, so Activity has no skill
    assert {e.value for e in errors if e.channel == 2} == {0.0}
    assert scored["methods"]["linear"]["Activity"]["skill"] is None


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generator's exports of 3 synthetic users x 14 days (seed 3), as a minute-cohort folder."""
    tmp = tmp_path_factory.mktemp("generated")
    cohort = wearbench.synth(n_users=3, n_days=14, seed=3, reference_users=0)
    paths = [write_export(cohort, u, tmp / f"{u}.xml", seed=1, samples_per_day=300) for u in cohort.user_ids]
    apple_health_minutes(paths, tmp / "m")
    return tmp / "m"


def test_generated_exports_through_preprocessing(generated: Path) -> None:
    # 15 local days (sleep runs past midnight of the last day; that day is all but non-wear);
    # u0002's low Watch active energy leaves 11 days under the variance threshold 1.0
    assert _counts(generated) == {"u0001": (15, 1, 2, 12), "u0002": (15, 1, 11, 3), "u0003": (15, 1, 8, 6)}


def test_generated_exports_through_impute_and_score_cli(generated: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    args = ["track", "impute", "--data", str(generated), "--methods", ",".join(METHODS), "--out", str(out)]
    run = CliRunner().invoke(cli, [*args, "--seed", "0", "--test-share", "0.5", "-q"])
    assert run.exit_code == 0, run.output
    manifest, errors = read_imputation_results(out)
    assert manifest["split"]["train"] == ["u0002"]
    assert (manifest["split"]["train_days"], manifest["split"]["test_days"]) == (3, 18)
    locf = [e for e in errors if e.method == "locf"]
    assert len(errors) == 5 * len(locf) == 415
    assert Counter(e.approach for e in locf) == {
        "random_noise": 25,
        "temporal_slice": 22,
        "signal_slice": 20,
        "sleep_gap": 12,
        "workout_gap": 4,
    }
    # every channel the export carries is scored; channel 1 (iPhone distance: none written) and
    # 10 and 16 (no Cycling or HighIntensityIntervalTraining in the test users' days) are not
    assert sorted({e.channel for e in locf}) == [0, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 17, 18]
    sub = manifest["substitution"]["locf"]
    assert sub["random_noise"]["n_masked"] == 223028
    assert sub["intensity_failure"]["n_masked"] == 0
    assert all(s["n_substituted"] == 0 for m in METHODS for s in manifest["substitution"][m].values())
    run = CliRunner().invoke(cli, ["track", "score", str(out), "--baseline", "locf", "--format", "json"])
    assert run.exit_code == 0, run.output
    doc = json.loads(run.output)
    assert doc["n_participants"] == 2
    for cell in doc["methods"]["locf"].values():
        assert (cell["skill"], cell["ci_low"], cell["ci_high"]) == (0.0, 0.0, 0.0)
    assert doc["methods"]["linear"]["Overall"]["skill"] == pytest.approx(0.3635, abs=1e-4)
