"""Evaluation runs: settings, the SQLite run store, the async runner and reference solvers."""

from wearbench.runner._records import ABLATIONS, MODES, Mode, ResultRow, RunInfo, Setting

__all__ = ["ABLATIONS", "MODES", "Mode", "ResultRow", "RunInfo", "Setting"]
