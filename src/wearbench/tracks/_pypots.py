"""PyPOTS imported quietly and lazily, for the learned imputers, forecasters and GRU-D.

``import pypots`` prints a banner and takes seconds, so it happens only when a learned method is
fitted, with the banner sent nowhere and PyPOTS's log kept to errors. Without PyPOTS or torch the
error says which extra to install.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
from typing import Any

from wearbench._errors import WearbenchError


def _errors_only(record: logging.LogRecord) -> bool:
    return record.levelno >= logging.ERROR


def import_pypots(submodule: str, what: str, n_threads: int | None = None) -> Any:
    """Import ``pypots.<submodule>`` quietly; set torch's CPU threads.

    Args:
        submodule: ``"imputation"``, ``"forecasting"`` or ``"classification"``.
        what: Who needs it, for the error (``"outcome method 'grud'"``).
        n_threads: ``torch.set_num_threads``; None leaves it as it is.

    Returns:
        The imported module.

    Raises:
        WearbenchError: Without PyPOTS or torch, saying how to install them.
    """
    try:
        torch = importlib.import_module("torch")
        with open(os.devnull, "w", encoding="utf-8") as sink, contextlib.redirect_stdout(sink):
            module = importlib.import_module(f"pypots.{submodule}")
    except ImportError as e:
        raise WearbenchError(
            f'{what} needs PyPOTS and torch ({e}); install them with: pip install -e ".[learn]"'
        ) from e
    # PyPOTS resets its logger to WARNING for every model built with verbose=False; a filter stays
    logging.getLogger("PyPOTS running log").addFilter(_errors_only)
    if n_threads is not None:
        torch.set_num_threads(n_threads)
    return module


def seed_everything(seed: int) -> None:
    """Seed numpy and torch through PyPOTS (``pypots.utils.random.set_random_seed``)."""
    importlib.import_module("pypots.utils.random").set_random_seed(seed)
