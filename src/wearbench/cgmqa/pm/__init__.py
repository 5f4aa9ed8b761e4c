"""Process-mining (PM) templates: pm_0 … pm_45 without pm_20 and pm_27 (44), one module per topic.

Importing this package registers them (registry kind ``cgm_template``).
"""

import sys

from wearbench._registry import import_submodules

import_submodules(sys.modules[__name__])
