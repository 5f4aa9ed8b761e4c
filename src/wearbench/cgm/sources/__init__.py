"""Real CGM loaders (each registered as a ``cgm_loader``) and :func:`import_cgm`.

Sources: ``dexcom-clarity``, ``libreview``, ``nightscout``, ``t1d-uom``, ``d1namo``,
``shanghai``, ``hall2018``. All return :class:`~wearbench.cgm.CGMData` with glucose in mg/dL
and naive local wall-clock times; see ``docs/cgm-sources.md``.
"""

from wearbench.cgm.sources._common import JUMP, PLAUSIBLE_MGDL, WARMUP, clean_readings
from wearbench.cgm.sources._d1namo import load_d1namo
from wearbench.cgm.sources._dexcom import load_dexcom_clarity
from wearbench.cgm.sources._hall2018 import load_hall2018
from wearbench.cgm.sources._import import import_cgm, import_report
from wearbench.cgm.sources._libreview import load_libreview
from wearbench.cgm.sources._nightscout import load_nightscout
from wearbench.cgm.sources._shanghai import load_shanghai
from wearbench.cgm.sources._t1d_uom import load_t1d_uom

__all__ = [
    "JUMP",
    "PLAUSIBLE_MGDL",
    "WARMUP",
    "clean_readings",
    "import_cgm",
    "import_report",
    "load_d1namo",
    "load_dexcom_clarity",
    "load_hall2018",
    "load_libreview",
    "load_nightscout",
    "load_shanghai",
    "load_t1d_uom",
]
