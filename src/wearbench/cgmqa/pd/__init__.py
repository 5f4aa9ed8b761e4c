"""Prediction (PD) templates: pd_0 … pd_20 without pd_16 (20), all at the pattern level.

``_future`` holds those whose truth is the recorded future after "now" (they work on real
records); ``_whatif`` those whose truth is a counterfactual re-simulation from "now" (they need
``record.rerun``, :func:`~wearbench.cgmqa.read_records` with ``rerun=True``). Importing this
package registers them (registry kind ``cgm_template``); :func:`prefetch_counterfactuals` runs
every counterfactual the templates will ask for, in shared batches, before they are asked.
"""

import sys

from wearbench._registry import import_submodules
from wearbench.cgmqa.pd._whatif import prefetch_counterfactuals, whatif_requests

import_submodules(sys.modules[__name__])

__all__ = ["prefetch_counterfactuals", "whatif_requests"]
