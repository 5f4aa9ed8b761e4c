"""Computation graphs: every answer is a recorded chain of registered primitive calls.

Question types never compute answers directly. They call primitives through a
:class:`Graph`, which records each call (primitive name, arguments, input references) as a
node and hands back a :class:`Ref` carrying the value. The serialised graph is stored in the
item; :func:`run_graph` replays it on the stored context with nothing but the registry, so an
independent verifier re-derives the evidence the options are judged against.

Node kinds (``op``):

- ``series``: ``metric`` values for ``days`` days ending ``offset`` days before the end date;
- ``dates``: the calendar of such a span (ISO strings in evidence);
- ``demographic``: a demographics field; ``blood``: a biomarker of the latest draw on or before
  the end date; ``reference``: the reference cell the item compares a metric against, stored
  inline (``cell``, a :class:`~wearbench.cohort.ReferenceCell` as JSON) so that replay, the
  prompt and the verifier need nothing else; its value is the percentiles
  (``part = "percentiles"``) or the whole cell (``part = "cell"``: ``mean``, ``sd``, ``n_users`` …);
- ``call``: a registered primitive applied to input references and keyword ``args``.

An input reference is ``{"$ref": node_id, "path": [...]}``; lists and dicts of references are
allowed (e.g. the ``scores`` mapping of ``argmax_pair``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from wearbench._errors import WearbenchError
from wearbench._registry import registry
from wearbench.cohort import PERCENTILES, ReferenceCell, UserContext, age_band


class Drop(Exception):
    """Raised by a question type (or its graph) when it cannot pose a well-defined question here."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def jsonable(value: Any) -> Any:
    """Convert a primitive's output to plain JSON values (NaN/inf → None, arrays → lists)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, np.ndarray):
        if np.issubdtype(value.dtype, np.datetime64):
            return [str(v) for v in value.astype("datetime64[D]")]
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def _select(value: Any, path: Sequence[str | int]) -> Any:
    for key in path:
        value = value[key] if isinstance(value, Mapping) or isinstance(key, int) else getattr(value, key)
    return value


class Ref:
    """A recorded value: node id, a selection path into its output, and the value itself."""

    __slots__ = ("node", "path", "value")

    def __init__(self, node: str, path: tuple[str | int, ...], value: Any) -> None:
        self.node = node
        self.path = path
        self.value = value

    def __getitem__(self, key: str | int) -> Ref:
        """Select a field (dataclass attribute or mapping key) or a list index."""
        return Ref(self.node, (*self.path, key), _select(self.value, (key,)))

    def to_json(self) -> dict[str, Any]:
        """``{"$ref": node, "path": [...]}``."""
        return {"$ref": self.node, "path": list(self.path)}


def _encode(obj: Any) -> Any:
    if isinstance(obj, Ref):
        return obj.to_json()
    if isinstance(obj, Mapping):
        return {str(k): _encode(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_encode(v) for v in obj]
    return obj


def _decode(obj: Any, values: Mapping[str, Any]) -> Any:
    if isinstance(obj, Mapping) and "$ref" in obj:
        return _select(values[obj["$ref"]], obj.get("path", []))
    if isinstance(obj, Mapping):
        return {k: _decode(v, values) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_decode(v, values) for v in obj]
    return obj


def _source(node: Mapping[str, Any], ctx: UserContext, end: int) -> Any:
    op = node["op"]
    if op == "series":
        return ctx.span(node["metric"], end - int(node.get("offset", 0)), int(node["days"]))
    if op == "dates":
        return ctx.span_dates(end - int(node.get("offset", 0)), int(node["days"]))
    if op == "demographic":
        return ctx.demographics.get(node["field"])
    if op == "blood":
        draw = ctx.blood_at(end)
        return float("nan") if draw is None else float(draw.get(node["marker"], float("nan")))
    if op == "reference":
        return _reference_value(node, ctx)
    raise WearbenchError(f"unknown graph node op {op!r}")


def _reference_value(node: Mapping[str, Any], ctx: UserContext) -> Any:
    """Value of a ``reference`` node: from its inline cell, else (older items) the context's."""
    cell = node.get("cell")
    if cell is None:
        return dict(ctx.reference.get(node["metric"], {}))
    parsed = ReferenceCell.from_json(cell)
    if node.get("part", "percentiles") == "cell":
        return parsed.to_json()
    cuts = node.get("cuts")
    return {p: v for p, v in parsed.percentiles.items() if cuts is None or p in cuts}


def graph_references(graph: Mapping[str, Any]) -> dict[str, ReferenceCell]:
    """Metric → the part of the reference cell an item's serialised graph compares it against.

    A ``percentiles`` node contributes the cuts it used (union over nodes of one metric); a
    ``cell`` node contributes the whole cell (mean, SD and percentiles).
    """
    out: dict[str, ReferenceCell] = {}
    for node in graph.get("nodes", []):
        if node.get("op") != "reference" or node.get("cell") is None:
            continue
        cell = ReferenceCell.from_json(node["cell"])
        if node.get("part", "percentiles") != "cell":
            cuts = node.get("cuts")
            pct = {p: v for p, v in cell.percentiles.items() if cuts is None or p in cuts}
            cell = dataclasses.replace(cell, percentiles=pct, mean=None, sd=None)
        known = out.get(cell.metric)
        if known is not None:
            cell = dataclasses.replace(
                cell,
                percentiles={**known.percentiles, **cell.percentiles},
                mean=known.mean if cell.mean is None else cell.mean,
                sd=known.sd if cell.sd is None else cell.sd,
            )
        out[cell.metric] = cell
    return out


class Graph:
    """Records primitive calls for one item, anchored at ``end_date`` of ``ctx``."""

    def __init__(self, ctx: UserContext, end_date: str) -> None:
        self.ctx = ctx
        self.end_date = end_date
        self.end = ctx.index(end_date)
        self.nodes: list[dict[str, Any]] = []
        self.outputs: dict[str, Ref] = {}
        self._values: dict[str, Any] = {}

    def _add(self, node: dict[str, Any], value: Any) -> Ref:
        node_id = f"n{len(self.nodes)}"
        self.nodes.append({"id": node_id, **node})
        self._values[node_id] = value
        return Ref(node_id, (), value)

    def _leaf(self, **node: Any) -> Ref:
        return self._add(node, _source(node, self.ctx, self.end))

    def series(self, metric: str, days: int, *, offset: int = 0) -> Ref:
        """``metric`` over ``days`` days ending ``offset`` days before the end date."""
        return self._leaf(op="series", metric=metric, days=days, offset=offset)

    def dates(self, days: int, *, offset: int = 0) -> Ref:
        """Calendar (``datetime64[D]``) of the same span as :meth:`series`."""
        return self._leaf(op="dates", days=days, offset=offset)

    def demographic(self, field: str) -> Ref:
        """A demographics field (``age``, ``sex``, ``bmi``, ``ethnicity``)."""
        return self._leaf(op="demographic", field=field)

    def blood(self, marker: str) -> Ref:
        """A biomarker of the latest draw on or before the end date (NaN if none)."""
        return self._leaf(op="blood", marker=marker)

    def reference(self, metric: str, cuts: Sequence[int] = PERCENTILES) -> Ref:
        """Percentiles {5: ..., 95: ...} of the reference ``metric`` is compared against.

        Args:
            metric: Canonical metric name.
            cuts: Keep only these of the cell's percentiles (default the standard P5…P95).

        Raises:
            Drop: When no reference may be used (reason from the resolver).
        """
        return self._reference(metric, "percentiles", list(cuts))

    def reference_cell(self, metric: str) -> Ref:
        """The whole reference cell of ``metric`` (JSON dict: ``mean``, ``sd``, ``percentiles`` …).

        Raises:
            Drop: When no reference may be used (reason from the resolver).
        """
        return self._reference(metric, "cell", None)

    def _reference(self, metric: str, part: str, cuts: list[int] | None) -> Ref:
        cell = self._resolve(metric)
        node: dict[str, Any] = {"op": "reference", "metric": metric, "part": part}
        if cuts is not None:
            node["cuts"] = cuts
        return self._leaf(**node, cell=cell.to_json())

    def _resolve(self, metric: str) -> ReferenceCell:
        """The resolver's cell, or (contexts without one) the context's static percentiles."""
        if self.ctx.resolver is None:
            pct = self.ctx.reference.get(metric)
            if not pct:
                raise Drop(f"no reference percentiles for {metric}")
            d = self.ctx.demographics
            age = d.get("age")
            band = age_band(float(age)) if isinstance(age, int | float) and math.isfinite(age) else ""
            return ReferenceCell(metric, "population", band, str(d.get("sex")), dict(pct))
        got = self.ctx.resolver.resolve(self.ctx.user_id, self.ctx.demographics, metric, self.end_date)
        if isinstance(got, str):
            raise Drop(got)
        return got

    def call(self, primitive: str, *inputs: Any, **args: Any) -> Ref:
        """Run a registered primitive on input references/values and record it."""
        node = {"op": "call", "primitive": primitive, "args": args, "inputs": _encode(list(inputs))}
        return self._add(node, _run_call(node, self._values))

    def output(self, name: str, ref: Ref) -> Ref:
        """Name a reference as evidence the options are judged against."""
        self.outputs[name] = ref
        return ref

    def evidence(self) -> dict[str, Any]:
        """JSON values of the named outputs."""
        return {k: jsonable(r.value) for k, r in sorted(self.outputs.items())}

    def to_json(self) -> dict[str, Any]:
        """``{"end_date", "nodes", "outputs"}``."""
        return {
            "end_date": self.end_date,
            "nodes": self.nodes,
            "outputs": {k: r.to_json() for k, r in sorted(self.outputs.items())},
        }


def _run_call(node: Mapping[str, Any], values: Mapping[str, Any]) -> Any:
    entry = registry.get("primitive", node["primitive"])
    spec = entry.spec(**node.get("args", {}))
    inputs = _decode(node.get("inputs", []), values)
    return entry.obj(*inputs, **spec.args)


def run_graph(graph: Mapping[str, Any], ctx: UserContext) -> dict[str, Any]:
    """Replay a serialised graph on ``ctx`` and return its evidence (JSON values of the outputs).

    Raises:
        WearbenchError: If a node is malformed or refers to a later node.
    """
    end = ctx.index(graph["end_date"])
    values: dict[str, Any] = {}
    for node in graph["nodes"]:
        try:
            values[node["id"]] = _run_call(node, values) if node["op"] == "call" else _source(node, ctx, end)
        except KeyError as e:
            raise WearbenchError(f"graph node {node.get('id')!r}: missing {e}") from e
    return {k: jsonable(_decode(ref, values)) for k, ref in sorted(graph["outputs"].items())}
