"""Copies of the loop's components: cheap checkpoints, and batches of chosen (repeated) patients.

A checkpoint of a run holds the controller and the sensor, meal and pump stages as they were at
one minute (:func:`snapshot`); a counterfactual batch replicates chosen patients of that
checkpoint (:func:`select_patients`). Both walk the objects generically, so a new controller or
stage works without extra code if it keeps to these rules (``docs/cgm-counterfactual.md``):

1. **State lives in attributes**, of plain objects, tuples, lists or dicts. Per-patient arrays have
   the patients on axis 0, shape ``(P, ...)``; an attribute whose array has them elsewhere, or an
   array whose first axis is P by chance, is named in the class's ``patient_axes`` mapping
   (attribute name -> axis, or ``None`` for "not per-patient"; it also applies inside a dict or
   tuple held by that attribute).
2. **Snapshots copy every array**, so arrays may be changed in place (a ring buffer of doses).
   A large array that is never changed (an input such as the sensor noise) or only filled in at
   the row of the current minute (the fault injector's clean streams) may be named in the class's
   ``snapshot_shares`` tuple: snapshots then share it with the running loop, since the rows from
   the checkpoint's minute on are written again before they are read.
3. Frozen dataclasses (``PatientParams``, ``Sensor``, ``Pump``, fault plans) are never changed and
   are shared. Objects without a ``__dict__`` (e.g. an ``np.random.Generator``) are deep-copied.

The contract test in ``tests/sim/test_counterfactual.py`` runs every registered controller
through a checkpoint and a replicated batch and checks the doses bit for bit.
"""

from __future__ import annotations

import copy
import dataclasses
import types
from collections.abc import Mapping
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt

from wearbench._errors import WearbenchError
from wearbench.sim.patient import PatientParams, PatientState

T = TypeVar("T")
IntArray = npt.NDArray[np.intp]

_LEAVES: tuple[type, ...] = (str, bytes, int, float, complex, bool, type(None), type, range, np.generic,
                             types.FunctionType, types.BuiltinFunctionType, types.MethodType)  # fmt: skip
_DEFAULT = object()  # "per-patient on axis 0 if its length is P"


def snapshot(obj: T) -> T:
    """A copy of ``obj`` as it is now that later minutes of the loop will not change.

    Objects, tuples, lists, dicts and arrays are copied; frozen dataclasses and the attributes a
    class names in ``snapshot_shares`` (rule 2 above) are shared, so large inputs and histories
    are not copied.
    """
    return cast(T, _Copier(None, 0).copy(obj, _DEFAULT))


def select_patients(obj: T, index: npt.ArrayLike, n_patients: int) -> T:
    """A copy of ``obj`` for the patients ``index`` of its ``n_patients`` (repeats allowed).

    Every per-patient array (rule 1 above) is indexed along its patient axis, other arrays are
    copied, ``PatientParams`` and ``PatientState`` are selected, and references shared inside
    ``obj`` stay shared in the copy.

    Args:
        obj: A controller, a stage, or a tuple of them.
        index: Patient indices into ``0 .. n_patients - 1``, one per patient of the copy.
        n_patients: Patients the object was built for.

    Raises:
        WearbenchError: An index outside ``0 .. n_patients - 1``.
    """
    idx = _check_index(index, n_patients)
    return cast(T, _Copier(idx, n_patients).copy(obj, _DEFAULT))


def select_params(params: PatientParams, index: npt.ArrayLike) -> PatientParams:
    """The parameters of the patients ``index`` (repeats allowed), in that order."""
    idx = _check_index(index, params.n_patients)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(params):
        v = getattr(params, f.name)
        if f.name == "names":
            values[f.name] = tuple(params.names[i] for i in idx)
        else:
            values[f.name] = np.take(v, idx, axis=1 if f.name == "x0" else 0)
    return PatientParams(**values)


def _check_index(index: npt.ArrayLike, n_patients: int) -> IntArray:
    idx = np.asarray(index, dtype=np.intp).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= n_patients):
        raise WearbenchError(f"patient indices {idx.tolist()} are not all in 0..{n_patients - 1}")
    return idx


class _Copier:
    """One walk over an object graph; ``index`` is ``None`` for a snapshot."""

    def __init__(self, index: IntArray | None, n_patients: int) -> None:
        self.index, self.n = index, n_patients
        self.memo: dict[int, Any] = {}

    def copy(self, obj: Any, axis: object) -> Any:
        if isinstance(obj, _LEAVES):
            return obj
        key = id(obj)
        if key not in self.memo:
            self.memo[key] = self._copy(obj, axis)
        return self.memo[key]

    def _copy(self, obj: Any, axis: object) -> Any:
        if isinstance(obj, np.ndarray):
            return obj.copy() if self.index is None else self._array(obj, axis, self.index)
        if isinstance(obj, PatientParams):
            return obj if self.index is None else select_params(obj, self.index)
        if isinstance(obj, PatientState):
            return obj if self.index is None else select_state(obj, self.index)
        if isinstance(obj, tuple):
            items = [self.copy(v, axis) for v in obj]
            return type(obj)(*items) if hasattr(obj, "_fields") else tuple(items)
        if isinstance(obj, list):
            return [self.copy(v, axis) for v in obj]
        if isinstance(obj, dict):
            return {k: self.copy(v, axis) for k, v in obj.items()}
        if not hasattr(obj, "__dict__"):
            return copy.deepcopy(obj)
        if self.index is None and _is_frozen(obj):
            return obj
        new = copy.copy(obj)
        self.memo[id(obj)] = new  # before the attributes: cycles come back to ``new``
        axes: Mapping[str, object] = getattr(type(obj), "patient_axes", {})
        shares = getattr(type(obj), "snapshot_shares", ()) if self.index is None else ()
        new.__dict__.update(
            {k: v if k in shares else self.copy(v, axes.get(k, _DEFAULT)) for k, v in vars(obj).items()}
        )
        return new

    def _array(self, a: npt.NDArray[Any], axis: object, index: IntArray) -> npt.NDArray[Any]:
        if axis is _DEFAULT:
            axis = 0 if a.ndim >= 1 and a.shape[0] == self.n else None
        if axis is None:
            return a.copy()
        return np.take(a, index, axis=cast(int, axis))


def select_state(state: PatientState, index: npt.ArrayLike) -> PatientState:
    """The state of the patients ``index`` (repeats allowed): ``x`` along axis 1, the rest axis 0."""
    idx = np.asarray(index, dtype=np.intp).reshape(-1)
    values = {f.name: np.take(getattr(state, f.name), idx, axis=1 if f.name == "x" else 0)
              for f in dataclasses.fields(state)}  # fmt: skip
    return dataclasses.replace(state, **values)


def _is_frozen(obj: object) -> bool:
    params = getattr(type(obj), "__dataclass_params__", None)
    return dataclasses.is_dataclass(obj) and bool(getattr(params, "frozen", False))
