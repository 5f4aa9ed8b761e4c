"""Imports every real CGM loader so its ``@cgm_loader`` registration runs (registry provider)."""

import importlib
import importlib.util

if importlib.util.find_spec("wearbench.cgm.sources") is not None:  # loaders land one by one
    importlib.import_module("wearbench.cgm.sources")
