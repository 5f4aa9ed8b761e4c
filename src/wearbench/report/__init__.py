"""Reports and plots."""

from wearbench.report._demo import DemoResult, run_demo
from wearbench.report._eval import report_runs, write_eval_report

__all__ = ["DemoResult", "report_runs", "run_demo", "write_eval_report"]
