"""Anomaly-detection (AD) templates: ad_1 … ad_64, one table-driven module per kind of answer.

``_labels``: fault-label intervals (37 ids); ``_windows``: fault labels inside event or clock
windows (ad_24, ad_39, ad_46, ad_55); ``_episodes``: hypo/hyper intervals and patterns;
``_numbers``: counts, durations and the missing share; ``_days``: day and hour answers.

Importing this package registers them (registry kind ``cgm_template``).
"""

import sys

from wearbench._registry import import_submodules

import_submodules(sys.modules[__name__])
