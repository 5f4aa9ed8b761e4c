"""wearbench: build, run and score health-reasoning benchmarks over wearable and CGM data.

The top-level API mirrors the command line, one function per command:

- :func:`synth` — generate the realistic synthetic cohort (``wearbench synth``);
- :func:`load_cohort`, :func:`save_cohort` — canonical cohort folders;
- :func:`validate_cohort` — every problem with file, user, date and column (``wearbench validate``);
- :func:`describe_cohort` — distributions, missingness, correlations (``wearbench describe``);
- :func:`run_demo` — the end-to-end demo (``wearbench demo``; needs the ``[report]`` extra).
"""

from typing import TYPE_CHECKING, Any

from wearbench._api import synth
from wearbench._errors import CohortValidationError, UnknownNameError, WearbenchError
from wearbench._registry import Spec, registry
from wearbench._version import __version__
from wearbench.cohort import Cohort, describe_cohort, load_cohort, save_cohort, validate_cohort

if TYPE_CHECKING:
    from wearbench.report import run_demo

# The one discovery mechanism: the package providing each registry kind, imported on first lookup.
for _kind, _modules in {
    "primitive": ("wearbench.primitives",),
    "question": ("wearbench.primitives", "wearbench.questions.types"),
    "adapter": ("wearbench.models",),
    "baseline": ("wearbench.runner",),
    "representation": ("wearbench.prompts",),
    "loader": ("wearbench.sources.loaders",),
    "cgm_loader": ("wearbench.cgm.sources",),
    "fault": ("wearbench.sim.faults",),
    "controller": ("wearbench.sim.controller",),
    "cgm_template": ("wearbench.cgmqa.pm", "wearbench.cgmqa.ad", "wearbench.cgmqa.pd"),
}.items():
    registry.provide(_kind, *_modules)  # type: ignore[arg-type]

__all__ = [
    "Cohort",
    "CohortValidationError",
    "Spec",
    "UnknownNameError",
    "WearbenchError",
    "__version__",
    "describe_cohort",
    "load_cohort",
    "registry",
    "run_demo",
    "save_cohort",
    "synth",
    "validate_cohort",
]


def __getattr__(name: str) -> Any:
    # The demo pulls in matplotlib (the [report] extra); import it only when asked for.
    if name == "run_demo":
        from wearbench.report import run_demo

        return run_demo
    raise AttributeError(f"module 'wearbench' has no attribute {name!r}")
