"""One decorator-based registry for every pluggable kind of thing.

Primitives, question types, model adapters, baselines, loaders, faults and controllers are
all registered the same way: a decorator records the object's name and metadata tags, and a
:class:`Spec` (kind + name + bound arguments) names exactly what produced a result,
so any result row can be re-run from its spec alone.

Discovery is one mechanism for every kind: the package that provides a kind is named once,
by the top-level :mod:`wearbench` package (:meth:`Registry.provide`), and imported on the
first lookup of that kind; importing it runs every decorator in it (a plugin folder calls
:func:`import_submodules`). This module names no other package.

Example:
    >>> from wearbench._registry import registry
    >>> entry = registry.get("primitive", "theil_sen_slope")  # doctest: +SKIP
"""

from __future__ import annotations

import difflib
import functools
import importlib
import inspect
import json
import pkgutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Literal, TypeVar, cast, get_args

from wearbench._errors import UnknownNameError, WearbenchError

Kind = Literal["primitive", "question", "adapter", "baseline", "representation", "loader", "cgm_loader",
               "fault", "controller", "cgm_template"]  # fmt: skip
KINDS: tuple[Kind, ...] = get_args(Kind)

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Spec:
    """What produced a result: registry kind, registered name and its arguments.

    Attributes:
        kind: Registry kind.
        name: Registered name.
        args: Keyword arguments, JSON-serialisable, stored sorted by key.
    """

    kind: str
    name: str
    args: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready ``{"kind", "name", "args"}`` mapping."""
        return {"kind": self.kind, "name": self.name, "args": dict(sorted(self.args.items()))}

    def to_json(self) -> str:
        """Return a canonical JSON string (sorted keys, no spaces)."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Spec:
        """Rebuild a spec from :meth:`to_dict` output."""
        return cls(kind=str(data["kind"]), name=str(data["name"]), args=dict(data.get("args", {})))


@dataclass(frozen=True)
class Entry:
    """One registered object with its metadata tags.

    Attributes:
        kind: Registry kind.
        name: Registered name (unique within the kind).
        obj: The registered callable.
        tags: Free metadata (units, cost, inputs, ...), used to query the registry.
    """

    kind: str
    name: str
    obj: Callable[..., Any]
    tags: Mapping[str, Any]

    @functools.cached_property
    def parameters(self) -> Mapping[str, inspect.Parameter]:
        """The object's parameters by name (``inspect.signature``, computed once per entry)."""
        return inspect.signature(self.obj).parameters

    def spec(self, **args: Any) -> Spec:
        """Bind ``args`` to the object's keyword parameters and return a :class:`Spec`.

        Raises:
            WearbenchError: If an argument name is not a parameter of the object.
        """
        params = self.parameters
        accepts_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        unknown = [a for a in args if a not in params and not accepts_any]
        if unknown:
            valid = ", ".join(p for p in params if params[p].kind is not inspect.Parameter.VAR_POSITIONAL)
            raise WearbenchError(
                f"{self.kind} {self.name!r} has no parameter(s) {', '.join(map(repr, unknown))}; "
                f"valid: {valid}"
            )
        try:
            json.dumps(args, sort_keys=True)
        except TypeError as e:
            raise WearbenchError(f"{self.kind} {self.name!r}: arguments must be JSON values ({e})") from e
        return Spec(self.kind, self.name, dict(sorted(args.items())))


class Registry:
    """Name → object maps, one per kind, with close-match suggestions on misses."""

    def __init__(self) -> None:
        self._entries: dict[str, dict[str, Entry]] = {k: {} for k in KINDS}
        self._providers: dict[str, tuple[str, ...]] = {}

    def provide(self, kind: Kind, *modules: str) -> None:
        """Name the module(s) imported on the first lookup of ``kind``, so their decorators have run."""
        self._providers[kind] = modules

    def register(self, kind: Kind, name: str, obj: Callable[..., Any], **tags: Any) -> Entry:
        """Register ``obj`` under ``kind``/``name``.

        Raises:
            ValueError: If the kind is unknown or the name is already taken by another object.
        """
        if kind not in self._entries:
            raise ValueError(f"unknown registry kind {kind!r}; valid: {', '.join(KINDS)}")
        table = self._entries[kind]
        old = table.get(name)
        if old is not None and getattr(old.obj, "__qualname__", None) != getattr(obj, "__qualname__", None):
            raise ValueError(f"{kind} {name!r} is already registered by {old.obj!r}")
        entry = Entry(kind, name, obj, dict(tags))
        table[name] = entry
        return entry

    def _load(self, kind: str) -> None:
        for module in self._providers.get(kind, ()):
            importlib.import_module(module)

    def get(self, kind: Kind, name: str) -> Entry:
        """Return the entry for ``name``.

        Raises:
            UnknownNameError: With up to three close matches when ``name`` is not registered.
        """
        self._load(kind)
        table = self._entries.get(kind)
        if table is None:
            raise ValueError(f"unknown registry kind {kind!r}; valid: {', '.join(KINDS)}")
        try:
            return table[name]
        except KeyError:
            close = difflib.get_close_matches(name, list(table), n=3, cutoff=0.5)
            raise UnknownNameError(kind, name, close) from None

    def names(self, kind: Kind) -> list[str]:
        """Sorted registered names of ``kind``."""
        self._load(kind)
        return sorted(self._entries[kind])

    def entries(self, kind: Kind, **tags: Any) -> Iterator[Entry]:
        """Entries of ``kind`` whose tags equal (or, for tuple tags, contain) every given tag."""
        self._load(kind)
        for name in sorted(self._entries[kind]):
            entry = self._entries[kind][name]
            if all(_tag_matches(entry.tags.get(k), v) for k, v in tags.items()):
                yield entry

    def catalogue(self, kind: Kind) -> list[dict[str, Any]]:
        """One JSON-ready row per registered ``kind``: name, summary, keyword parameters, tags."""
        rows = []
        for entry in self.entries(kind):
            params = entry.parameters.values()
            keywords = {
                p.name: p.default
                for p in params
                if p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is not inspect.Parameter.empty
            }
            doc = inspect.getdoc(entry.obj) or ""
            rows.append(
                {
                    "name": entry.name,
                    "summary": doc.splitlines()[0] if doc else "",
                    "parameters": keywords,
                    "tags": {k: list(v) if isinstance(v, tuple) else v for k, v in entry.tags.items()},
                }
            )
        return rows

    def call(self, spec: Spec, *inputs: Any) -> Any:
        """Run the object named by ``spec`` on positional ``inputs`` with the spec's arguments."""
        entry = self.get(cast(Kind, spec.kind), spec.name)
        return entry.obj(*inputs, **spec.args)


def _tag_matches(have: Any, want: Any) -> bool:
    if isinstance(have, tuple | list | frozenset | set) and not isinstance(want, tuple | list):
        return want in have
    return bool(have == want)


registry = Registry()


def import_submodules(package: ModuleType) -> None:
    """Import every module and subpackage of ``package`` (a plugin folder), so they register.

    Example:
        >>> import_submodules(sys.modules[__name__])  # doctest: +SKIP  (in a package's __init__)
    """
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if not info.name.startswith("__"):
            importlib.import_module(f"{package.__name__}.{info.name}")


def registered(kind: Kind) -> Callable[..., Callable[[F], F]]:
    """Make a decorator factory that registers functions under ``kind``.

    The returned factory takes an optional ``name`` (default: the function name) and
    any metadata tags; the decorated function is returned unchanged.

    Example:
        >>> primitive = registered("primitive")
        >>> @primitive(units="bpm", cost="cheap")  # doctest: +SKIP
        ... def mean(values): ...
    """

    def factory(name: str | None = None, **tags: Any) -> Callable[[F], F]:
        def decorate(fn: F) -> F:
            registry.register(kind, name or fn.__name__, fn, **tags)
            return fn

        return decorate

    return factory
