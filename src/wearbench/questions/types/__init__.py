"""The registered question types, one module each; importing this package registers them all."""

import sys

from wearbench._registry import import_submodules

import_submodules(sys.modules[__name__])
