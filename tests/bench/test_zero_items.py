"""Types with 0 items: listed with their drop reasons; a build with no item at all is refused."""

import subprocess
import sys
from pathlib import Path

import pytest

import wearbench
from wearbench import WearbenchError
from wearbench.bench import build_benchmark
from wearbench.bench._datasheet import render_datasheet, zero_item_types

DROPS = {
    "trend: too few days present for the question (in every metric)": 7,
    "trend: slope CI crosses zero": 2,
    "anomaly: no day beyond 3 SD": 4,
    "conditional_effect: user has 40 days, fewer than the 120 the type needs (no candidate end date)": 3,
}


def test_zero_item_types_lists_top_reasons_per_type() -> None:
    zero = zero_item_types(
        ["anomaly", "trend", "conditional_effect", "strongest_pair"], {"anomaly": 5}, DROPS, top=1
    )
    assert zero == {
        "conditional_effect": [
            ["user has 40 days, fewer than the 120 the type needs (no candidate end date)", 3]
        ],
        "strongest_pair": [["no candidate and no drop recorded", 0]],
        "trend": [["too few days present for the question (in every metric)", 7]],
    }
    assert zero_item_types(["trend"], {}, DROPS)["trend"] == [
        ["too few days present for the question (in every metric)", 7],
        ["slope CI crosses zero", 2],
    ]


def test_datasheet_has_a_section_for_zero_item_types() -> None:
    stats = {
        "n_items": 5,
        "n_users": 2,
        "by_type": {"anomaly": 5},
        "by_label": {},
        "answer_positions": {},
        "drops": DROPS,
        "zero_items": zero_item_types(["anomaly", "trend"], {"anomaly": 5}, DROPS),
        "null_fdr": {},
    }
    text = render_datasheet(stats, {"seed": 0, "cohort_hash": "x", "wearbench_version": "0"})
    section = text.split("## Types with 0 items (top drop reasons)\n\n")[1].split("\n\n")[0]
    assert section.splitlines() == [
        "| type | reason | count |",
        "|---|---|---|",
        "| trend | too few days present for the question (in every metric) | 7 |",
        "| trend | slope CI crosses zero | 2 |",
    ]


@pytest.fixture(scope="module")
def short_cohort(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("short") / "cohort"
    wearbench.synth(3, 40, seed=1, reference_users=30, out=out)
    return out


def test_build_with_no_item_is_refused_with_reasons(short_cohort: Path, tmp_path: Path) -> None:
    # 3 users x 40 days; conditional_effect needs 120 days, so every user counts one drop.
    with pytest.raises(WearbenchError) as e:
        build_benchmark(short_cohort, tmp_path / "bench", types=["conditional_effect"])
    assert str(e.value) == (
        f"0 items from 3 users, nothing written to {tmp_path / 'bench'}: conditional_effect: user has 40 "
        "days, fewer than the 120 the type needs (no candidate end date) (3)"
    )
    assert not (tmp_path / "bench").exists()


def test_cli_build_with_no_item_exits_non_zero(short_cohort: Path, tmp_path: Path) -> None:
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "wearbench",
            "build",
            "--cohort",
            str(short_cohort),
            "--out",
            str(tmp_path / "b"),
            "--types",
            "conditional_effect",
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert res.returncode == 1
    assert "0 items from 3 users" in res.stderr
    assert "fewer than the 120 the type needs" in res.stderr
    assert "Traceback" not in res.stderr
