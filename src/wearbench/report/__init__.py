"""Reports and plots."""

from wearbench.report._demo import DemoResult, run_demo

__all__ = ["DemoResult", "run_demo"]
