"""multirocket and grud through run_predict: predictions for every test participant, fallback counted."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench.sources import synthesize_minutes
from wearbench.tracks import (
    OUTCOME_MODELS,
    GRUDModel,
    MultiRocketFeatures,
    grud_model,
    read_outcome_results,
    rocket_model,
    run_predict,
)


def test_deep_models_through_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "minutes"
    synthesize_minutes(10, 8, 0, folder)
    ids = [f"u{i:04d}" for i in range(1, 11)]
    pd.DataFrame({"user_id": ids, "task": "sex", "value": [i % 2 for i in range(10)],
                  "date": "2024-01-08"}).to_csv(folder / "labels.csv", index=False)  # fmt: skip
    monkeypatch.setitem(OUTCOME_MODELS, "multirocket", rocket_model(MultiRocketFeatures(n_kernels=84)))
    monkeypatch.setitem(OUTCOME_MODELS, "grud", grud_model(GRUDModel(epochs=1, hidden=8)))
    m = run_predict(folder, ["linear", "multirocket", "grud"], tmp_path / "res", test_share=0.3)
    _, preds = read_outcome_results(tmp_path / "res")
    n_test = m["tasks"]["sex"]["n_test"]
    assert n_test > 0
    by = {meth: [p for p in preds if p.method == meth] for meth in m["methods"]}
    assert all(len(v) == n_test for v in by.values())
    assert all(np.isfinite(p.prediction) for p in preds)
    for meth in ("multirocket", "grud"):
        fb = [p.fallback for p in by[meth]]
        assert m["fallback"][meth] == {"n": sum(fb), "rate": sum(fb) / n_test}
        linear = {p.participant: p.prediction for p in by["linear"]}
        assert all(p.prediction == linear[p.participant] for p in by[meth] if p.fallback)
    assert m["fallback"]["multirocket"]["n"] == 0  # every included participant has a segment
