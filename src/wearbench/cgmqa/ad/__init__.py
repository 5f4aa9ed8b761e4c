"""Anomaly-detection (AD) templates: so far the label-set interval templates (one table).

Importing this package registers them (registry kind ``cgm_template``).
"""

import sys

from wearbench._registry import import_submodules

import_submodules(sys.modules[__name__])
