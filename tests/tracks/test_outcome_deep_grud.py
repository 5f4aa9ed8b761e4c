"""GRU-D outcome model (tracks/_outcome_grud.py) on tiny synthetic participants."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from wearbench._errors import WearbenchError
from wearbench.tracks import auprc
from wearbench.tracks._outcome_grud import GRUDModel, _classes, participant_weeks


def _rows(day_numbers: list[int], value: float = 1.0) -> np.ndarray:
    """Day rows ``(n, 457)``: day number, then 24 x 19 hourly values all equal to ``value``."""
    return np.column_stack([np.array(day_numbers, float), np.full((len(day_numbers), 456), value)])


def _participants(n: int, seed: int) -> tuple[list[np.ndarray], np.ndarray]:
    """7 retained days each; label 1 iff the daytime activity level is high (steps, HR, energy)."""
    rng = np.random.default_rng(seed)
    level = rng.uniform(0.0, 1.0, n)
    daytime = np.r_[np.zeros(7), np.ones(15), np.zeros(2)]
    xs = []
    for a in level:
        x = rng.normal(0.0, 1.0, (7, 24, 19))
        for c in (0, 1, 5, 6):
            x[:, :, c] += 4 * a * daytime
        x[rng.random(x.shape) < 0.1] = np.nan
        xs.append(np.column_stack([np.arange(100, 107, dtype=float), x.reshape(7, -1)]))
    return xs, (level > 0.5).astype(float)


def test_participant_weeks_by_hand() -> None:
    rows = _rows([0, 1, 2, 4, 5, 7, 8, 9, 10, 11, 12, 13])  # day 3 and 6 absent
    weeks = participant_weeks(rows, stride=7)
    assert weeks.shape == (2, 168, 19)  # days 0-6 (5 present), days 7-13 (7 present)
    assert np.isnan(weeks[0, 3 * 24 : 4 * 24]).all()  # day 3: absent, all NaN
    assert (weeks[0, 4 * 24 : 5 * 24] == 1.0).all()
    assert participant_weeks(rows, stride=7, max_weeks=1).shape == (1, 168, 19)
    assert participant_weeks(_rows([0, 1, 2, 3]), stride=7).shape == (0, 168, 19)  # < 5 days


def test_classes_for_each_kind() -> None:
    cls, values = _classes("ordinal", np.array([0.0, 2.0, 1.0, 2.0]), 5)
    assert cls.tolist() == [0, 2, 1, 2]
    assert values.tolist() == [0.0, 1.0, 2.0]
    cls, values = _classes("regression", np.array([1.0, 2.0, 3.0, 4.0, 10.0, 20.0]), 3)
    assert cls.tolist() == [0, 0, 1, 1, 2, 2]  # tertiles
    assert values.tolist() == [1.5, 3.5, 15.0]  # bin means


def test_grud_beats_chance_and_falls_back_without_a_week() -> None:
    xs_tr, y_tr = _participants(48, 0)
    xs_te, y_te = _participants(20, 1)
    model = GRUDModel(epochs=4, hidden=16, batch_size=16, lr=0.01)
    pred = model.fit_predict("binary", xs_tr, y_tr, [*xs_te, _rows([100, 101, 102])])
    assert np.isnan(pred[-1])  # 3 days: no qualifying week, the run substitutes Linear
    assert np.isfinite(pred[:-1]).all()
    assert auprc(y_te, pred[:-1]) > 0.85  # chance: the positive share, about 0.5
    again = model.fit_predict("binary", xs_tr, y_tr, [*xs_te, _rows([100, 101, 102])])
    np.testing.assert_array_equal(pred, again)  # seeded


def test_grud_needs_two_classes_and_pypots(monkeypatch: pytest.MonkeyPatch) -> None:
    xs, _ = _participants(4, 0)
    assert np.isnan(GRUDModel().fit_predict("binary", xs, np.zeros(4), xs)).all()
    monkeypatch.setitem(sys.modules, "pypots.classification", None)
    with pytest.raises(WearbenchError, match=r"grud.*PyPOTS.*\[learn\]"):
        GRUDModel().fit_predict("binary", xs, np.array([0.0, 1.0, 0.0, 1.0]), xs)
