"""Physiological bounds on user-provided simulator inputs (issue 11, deliver 6): one line naming
file, line, column and value."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench._errors import WearbenchError
from wearbench.sim import meals_from_csv, simulate
from wearbench.sim.scenario import MEAL_CARBS_G, check_carbs


def _csv(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "meals.csv"
    path.write_text(text)
    return path


def test_meals_csv_within_bounds(tmp_path: Path) -> None:
    path = _csv(tmp_path, "minute,carbs_g\n420,45\n720,70\n720,30\n1439,300\n0,0\n")
    carbs = meals_from_csv(path, 2, 1)
    assert carbs.shape == (2, 1440)
    assert carbs[1, 420] == 45.0
    assert carbs[0, 720] == 100.0  # two meals at the same minute add up: 70 + 30
    assert carbs[0, 1439] == 300.0  # the upper bound is allowed
    assert carbs.sum() == 2 * (45 + 70 + 30 + 300)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("minute,carbs_g\n420,45\n720,5000\n", "meals.csv: line 3: carbs_g '5000' is outside 0-300 g"),
        ("minute,carbs_g\n420,-10\n", "meals.csv: line 2: carbs_g '-10' is outside 0-300 g per meal"),
        ("minute,carbs_g\n420,lots\n", "meals.csv: line 2: carbs_g 'lots' is outside 0-300 g per meal"),
        ("minute,carbs_g\n420,nan\n", "meals.csv: line 2: carbs_g 'nan' is outside 0-300 g per meal"),
        ("minute,carbs_g\n1440,45\n", "line 2: minute '1440' is not a whole minute in 0-1439 (1 day(s))"),
        ("minute,carbs_g\n420.5,45\n", "meals.csv: line 2: minute '420.5' is not a whole minute in 0-1439"),
        ("minute,carbs_g\n-1,45\n", "meals.csv: line 2: minute '-1' is not a whole minute"),
        (
            "minute,carbs_g\n10,45\n720,200\n720,150\n",
            "meals.csv: lines 3, 4: 350 g of carbs at minute 720 is over 300 g in one minute",
        ),
    ],
)
def test_meals_csv_out_of_bounds_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(WearbenchError) as err:
        meals_from_csv(_csv(tmp_path, text), 1, 1)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_meal_bounds_are_grams() -> None:
    assert MEAL_CARBS_G == (0.0, 300.0)


def test_simulate_refuses_an_array_out_of_bounds() -> None:
    carbs = np.zeros((1, 1440))
    carbs[0, 10] = 5000.0
    with pytest.raises(WearbenchError, match=r"meals: patient 0, minute 10: 5000 g of carbs is outside"):
        simulate(["adult#001"], 1, meals=carbs, sensor=None)
    carbs[0, 10] = np.nan
    with pytest.raises(WearbenchError, match=r"patient 0, minute 10: nan g"):
        check_carbs(carbs)
    carbs[0, 10] = 300.0
    assert check_carbs(carbs) is carbs


def test_simulate_refuses_exercise_intensity_out_of_bounds() -> None:
    ex = np.zeros((1, 1440))
    ex[0, 5] = 1.5
    with pytest.raises(WearbenchError, match=r"exercise intensity must .* lie in \[0, 1\]"):
        simulate(["adult#001"], 1, meals="fixed", sensor=None, exercise=(ex, pd.DataFrame()))


def test_cli_meals_csv_with_5000_g_is_refused(tmp_path: Path) -> None:
    path = _csv(tmp_path, "minute,carbs_g\n420,45\n720,5000\n")
    res = subprocess.run(
        [sys.executable, "-m", "wearbench", "cgm", "simulate", "--patients", "adult#001", "--days", "1",
         "--meals", str(path), "--out", str(tmp_path / "sim")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert res.returncode != 0
    assert "meals.csv: line 3: carbs_g '5000' is outside 0-300 g per meal" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "sim").exists()
