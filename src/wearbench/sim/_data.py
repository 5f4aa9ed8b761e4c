"""Locate simglucose's parameter CSVs without importing simglucose.

simglucose (MIT) ships the UVA/Padova virtual-patient parameters; wearbench reads them from the
installed package at run time and never copies them. ``importlib.util.find_spec`` finds the
package directory without executing ``simglucose/__init__.py`` (which needs ``pkg_resources``).
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

import pandas as pd

from wearbench._errors import WearbenchError


def _params_dir() -> Path:
    spec = importlib.util.find_spec("simglucose")
    if spec is None or not spec.submodule_search_locations:
        raise WearbenchError(
            "the UVA/Padova simulator needs simglucose's parameter files: pip install 'wearbench[cgm]'"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "params"


@cache
def read_param_csv(name: str) -> pd.DataFrame:
    """Read one of simglucose's parameter tables (cached; callers must not mutate it).

    Args:
        name: File name inside ``simglucose/params``, e.g. ``"vpatient_params.csv"``.

    Returns:
        The table as read by pandas.
    """
    path = _params_dir() / name
    if not path.is_file():
        raise WearbenchError(f"simglucose parameter file not found: {path}")
    return pd.read_csv(path)


def param_row(name: str, row: str) -> dict[str, float]:
    """The numeric columns of the row named ``row`` in table ``name`` (first column: ``Name``).

    Returns:
        Column name to value, or an empty dict when there is no such row.
    """
    table = read_param_csv(name).set_index("Name")
    if row not in table.index:
        return {}
    return {str(k): float(v) for k, v in table.loc[row].to_dict().items()}
