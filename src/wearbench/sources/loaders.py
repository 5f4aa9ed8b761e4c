"""Imports every real-data loader package so its ``@loader`` registration runs (registry provider)."""

from wearbench import sources
from wearbench._registry import import_submodules

import_submodules(sources)
