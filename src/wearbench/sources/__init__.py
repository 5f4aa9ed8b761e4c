"""Cohort sources: the synthetic default and (later) loaders for real export formats."""

from wearbench.sources.synthetic import synthesize

__all__ = ["synthesize"]
