"""Evaluation runs: settings, the SQLite run store, solvers (baselines, chat models) and the runner."""

from wearbench.prompts import ABLATIONS, MODES, Mode, Setting
from wearbench.runner._bench import OpenBench, open_bench
from wearbench.runner._cgm import CGMItem, CGMSolver, cgm_baseline_solver, open_cgm_bench
from wearbench.runner._cgm_judge import JudgeOutcome, judge_cgm_runs, judge_summary
from wearbench.runner._cgm_judge_prompt import (
    FAILURE_TYPES,
    JUDGE_PROMPT_VERSION,
    JUDGE_SCORES,
    judge_messages,
    parse_judgement,
)
from wearbench.runner._cgm_run import cgm_run_items, make_cgm_solver
from wearbench.runner._recorder import RunStopped
from wearbench.runner._records import Judgement, ResultRow, RunInfo
from wearbench.runner._run import EvalSummary, evaluate, make_solver, run_solver, select_items
from wearbench.runner._solvers import Answer, Sample, Solver, baseline_solver, spec_forms
from wearbench.runner._store import RunStore, record_track_results
from wearbench.runner._track_grid import (
    GridCell,
    GridConfig,
    GridSummary,
    load_grid_config,
    parse_grid_config,
    run_track_grid,
)
from wearbench.runner._track_store import (
    TrackRecord,
    TrackRun,
    read_example_bytes,
    read_track_folder,
    track_run_id,
)

__all__ = [
    "ABLATIONS",
    "FAILURE_TYPES",
    "JUDGE_PROMPT_VERSION",
    "JUDGE_SCORES",
    "MODES",
    "Answer",
    "CGMItem",
    "CGMSolver",
    "EvalSummary",
    "GridCell",
    "GridConfig",
    "GridSummary",
    "JudgeOutcome",
    "Judgement",
    "Mode",
    "OpenBench",
    "ResultRow",
    "RunInfo",
    "RunStopped",
    "RunStore",
    "Sample",
    "Setting",
    "Solver",
    "TrackRecord",
    "TrackRun",
    "baseline_solver",
    "cgm_baseline_solver",
    "cgm_run_items",
    "evaluate",
    "judge_cgm_runs",
    "judge_messages",
    "judge_summary",
    "load_grid_config",
    "make_cgm_solver",
    "make_solver",
    "open_bench",
    "open_cgm_bench",
    "parse_grid_config",
    "parse_judgement",
    "read_example_bytes",
    "read_track_folder",
    "record_track_results",
    "run_solver",
    "run_track_grid",
    "select_items",
    "spec_forms",
    "track_run_id",
]
