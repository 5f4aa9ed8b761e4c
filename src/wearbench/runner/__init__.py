"""Evaluation runs: settings, the SQLite run store, solvers (baselines, chat models) and the runner."""

from wearbench.prompts import ABLATIONS, MODES, Mode, Setting
from wearbench.runner._bench import OpenBench, open_bench
from wearbench.runner._records import ResultRow, RunInfo
from wearbench.runner._run import EvalSummary, RunStopped, evaluate, make_solver, run_solver, select_items
from wearbench.runner._solvers import Answer, Sample, Solver, baseline_solver, spec_forms
from wearbench.runner._store import RunStore

__all__ = [
    "ABLATIONS",
    "MODES",
    "Answer",
    "EvalSummary",
    "Mode",
    "OpenBench",
    "ResultRow",
    "RunInfo",
    "RunStopped",
    "RunStore",
    "Sample",
    "Setting",
    "Solver",
    "baseline_solver",
    "evaluate",
    "make_solver",
    "open_bench",
    "run_solver",
    "select_items",
    "spec_forms",
]
