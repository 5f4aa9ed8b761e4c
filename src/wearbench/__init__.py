"""wearbench: build, run and score health-reasoning benchmarks over wearable and CGM data."""

from wearbench._errors import CohortValidationError, UnknownNameError, WearbenchError
from wearbench._registry import Spec, registry
from wearbench._version import __version__

__all__ = [
    "CohortValidationError",
    "Spec",
    "UnknownNameError",
    "WearbenchError",
    "__version__",
    "registry",
]
