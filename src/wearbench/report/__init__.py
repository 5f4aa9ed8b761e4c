"""Reports and plots."""

from wearbench.report._cgm import write_cgm_report
from wearbench.report._demo import DEMO_STAGES, DemoResult, run_demo
from wearbench.report._eval import report_runs, write_eval_report

__all__ = ["DEMO_STAGES", "DemoResult", "report_runs", "run_demo", "write_cgm_report", "write_eval_report"]
