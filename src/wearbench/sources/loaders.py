"""Imports every real-data loader so its ``@loader`` registration runs (registry provider)."""

import importlib
import importlib.util

_PACKAGES = ("apple_health", "fitbit", "garmin", "whoop", "tabular")

for _name in _PACKAGES:
    if importlib.util.find_spec(f"wearbench.sources.{_name}") is not None:  # loaders land one by one
        importlib.import_module(f"wearbench.sources.{_name}")
