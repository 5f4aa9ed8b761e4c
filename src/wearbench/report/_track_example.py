"""The example day of an imputation run (``RESULTS/example.npz``), read and checked for the report.

The file (written by :func:`~wearbench.tracks.run_imputation`, ``np.savez_compressed``, no pickle)
holds ``truth`` (19, 1440) float32 (NaN = unobserved), ``mask`` (19, 1440) bool (the artificial
mask), ``imputed`` (n_methods, 19, 1440) float32 (each method's filled day), ``methods``
(n_methods,) str, and 0-d strings ``user``, ``date`` (ISO) and ``approach``.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from wearbench._errors import WearbenchError
from wearbench.minutes import MINUTES_PER_DAY, N_CHANNELS

_KEYS = ("truth", "mask", "imputed", "methods", "user", "date", "approach")


@dataclass(frozen=True)
class ExampleDay:
    """One test day with its artificial mask and each method's imputation.

    Attributes:
        truth: ``(19, 1440)`` float32, the observed day (NaN = unobserved), seed channel order.
        mask: ``(19, 1440)`` bool, True where the cell was masked for imputation.
        imputed: ``(n_methods, 19, 1440)`` float32, each method's filled day.
        methods: Method names, in ``imputed``'s order.
        user: Participant id.
        date: The day (ISO date).
        approach: The masking approach that drew ``mask``.
    """

    truth: NDArray[np.float32]
    mask: NDArray[np.bool_]
    imputed: NDArray[np.float32]
    methods: tuple[str, ...]
    user: str
    date: str
    approach: str


def load_example(blob: bytes, where: str = "example.npz") -> ExampleDay:
    """Parse and check the bytes of an ``example.npz``.

    Args:
        blob: The file's bytes (from the RESULTS folder or the run store).
        where: Named in errors (the file or the store and track run).

    Raises:
        WearbenchError: If a key is missing or an array has the wrong shape.
    """
    try:
        with np.load(io.BytesIO(blob), allow_pickle=False) as npz:
            missing = [k for k in _KEYS if k not in npz.files]
            if missing:
                raise WearbenchError(f"{where}: example day lacks {', '.join(missing)}")
            arrays = {k: npz[k] for k in _KEYS}
    except (OSError, ValueError, zipfile.BadZipFile) as e:
        raise WearbenchError(f"{where}: not a readable example day ({e})") from e
    day = (N_CHANNELS, MINUTES_PER_DAY)
    methods = tuple(str(m) for m in arrays["methods"].reshape(-1))
    imputed = arrays["imputed"].astype(np.float32)
    if arrays["truth"].shape != day or arrays["mask"].shape != day or imputed.shape != (len(methods), *day):
        shapes = ", ".join(f"{k} {arrays[k].shape}" for k in ("truth", "mask", "imputed", "methods"))
        raise WearbenchError(f"{where}: example day has the wrong shapes ({shapes})")
    return ExampleDay(
        arrays["truth"].astype(np.float32),
        arrays["mask"].astype(bool),
        imputed,
        methods,
        str(arrays["user"]),
        str(arrays["date"]),
        str(arrays["approach"]),
    )
