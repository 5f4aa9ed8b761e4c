"""Reports and plots."""

from wearbench.report._demo import DEMO_STAGES, DemoResult, run_demo
from wearbench.report._eval import report_runs, write_eval_report

__all__ = ["DEMO_STAGES", "DemoResult", "report_runs", "run_demo", "write_eval_report"]
