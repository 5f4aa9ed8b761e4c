"""The package layers hold: every import in src/wearbench points down, at public names only.

The graph is read with ``ast`` from the source, so it sees imports inside functions and under
``TYPE_CHECKING`` as well as module-level ones. A "unit" is a package directly under
``wearbench`` (``bench``, ``cgm`` …) or a top-level module (``_errors``, ``cli`` …).
"""

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "wearbench"

#: The one allowed order, bottom first: a unit may import only units listed before it.
LAYERS: tuple[str, ...] = (
    # Bottom modules: no wearbench imports except each other (`_stats`: accuracy with its
    # Wilson interval, used by bench audits and scoring; `_labels`: the item taxonomy, used
    # by grounding and questions).
    "_version",
    "_errors",
    "_jsonfile",
    "_folder",
    "_stats",
    "_labels",
    "_registry",
    # Where per-user work runs (serial, local processes, Dask): build, simulation, tracks, eval.
    "executors",
    # The canonical cohort data model comes first: the loaders in `sources` build it (data
    # flows sources -> cohort, so imports point sources -> cohort).
    "cohort",
    # Minute-level data (OpenMHC): the 19 channels and the minute cohort, beside the daily model;
    # loaders and the synthetic generator in `sources` build it.
    "minutes",
    "sources",
    # `synth` (the demo and the CLI call it) is a thin wrapper over sources + cohort.
    "_api",
    # Beside the main line: the canonical CGM record and its importers (which reuse the
    # sources' import report), then the simulator that produces CGM records.
    "cgm",
    "sim",
    # The CGM benchmark's patient records and question templates (HealthLoopQA), over cgm + sim.
    "cgmqa",
    # OpenMHC's tracks over minute data: preprocessing, masking, imputation methods (pure arrays).
    "tracks",
    # The main line, as the README draws it.
    "primitives",
    "grounding",
    "questions",
    "bench",
    # Prompts are built from the adapters' message types (Message, TextPart, ImagePart) and
    # the adapters know nothing of items, so models sit under prompts (the data flows on).
    "models",
    "prompts",
    # The agent sandbox drives a model; the runner drives the sandbox.
    "agent",
    "runner",
    "scoring",
    # Planted-structure and health-reading checks of a built benchmark; the report shows them.
    "audit",
    "report",
    # Exchange formats over built benchmarks, used only by the CLI.
    "interop",
    # The command line and the package façade on top.
    "_catalogue",
    "_cli_util",
    "_cli_import",
    "_cli_cgm",
    "_cli_track",
    "_cli_eval",
    "cli",
    "__main__",
    "wearbench",
)

#: (importing file relative to src/wearbench, imported module) -> why it is allowed.
EXCEPTIONS: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Edge:
    """One import of a wearbench module from a file of another unit."""

    file: str
    line: int
    source: str
    target: str
    module: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.source} -> {self.module}"


def _unit(parts: tuple[str, ...]) -> str:
    """Unit of a module given its dotted parts after ``wearbench``."""
    return parts[0] if parts else "wearbench"


def _is_module(parts: tuple[str, ...]) -> bool:
    path = SRC.joinpath(*parts)
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imported(node: ast.Import | ast.ImportFrom, package: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Dotted parts (after ``wearbench``) of every wearbench module ``node`` imports."""
    if isinstance(node, ast.Import):
        names = [tuple(a.name.split(".")) for a in node.names]
        return [n[1:] for n in names if n[0] == "wearbench"]
    if node.level:
        base = package[: len(package) - node.level + 1] + (
            tuple(node.module.split(".")) if node.module else ()
        )
    else:
        full = tuple((node.module or "").split("."))
        if full[0] != "wearbench":
            return []
        base = full[1:]
    # `from pkg import sub` imports the module pkg.sub when that is a module.
    return [(*base, a.name) if _is_module((*base, a.name)) else base for a in node.names]


def edges(path: Path, text: str) -> list[Edge]:
    """Cross-unit imports of one source file (module level, in functions, under TYPE_CHECKING)."""
    rel = path.relative_to(SRC).parts
    package = rel[:-1]
    module = package if rel[-1] == "__init__.py" else (*package, rel[-1].removesuffix(".py"))
    source = _unit(module)
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for parts in _imported(node, package):
                if _unit(parts) != source:
                    name = ".".join(("wearbench", *parts))
                    out.append(Edge("/".join(rel), node.lineno, source, _unit(parts), name))
    return out


def violations(all_edges: list[Edge]) -> list[str]:
    """Each upward arrow, private cross-unit import or unplaced unit, as one line."""
    rank = {u: i for i, u in enumerate(LAYERS)}
    out = []
    for e in all_edges:
        if (e.file, e.module) in EXCEPTIONS:
            continue
        if e.source not in rank or e.target not in rank:
            out.append(f"{e}: unit not placed in LAYERS")
        elif rank[e.target] > rank[e.source]:
            out.append(f"{e}: upward ({e.target} is above {e.source})")
        elif any(p.startswith("_") for p in e.module.split(".")[2:]):
            out.append(f"{e}: private module of another package")
    return out


def _all_edges() -> list[Edge]:
    return [e for f in sorted(SRC.rglob("*.py")) for e in edges(f, f.read_text(encoding="utf-8"))]


def test_every_import_points_down_at_public_names() -> None:
    found = violations(_all_edges())
    assert not found, "\n" + "\n".join(found)


def test_every_unit_is_placed_once() -> None:
    units = {p.stem for p in SRC.glob("*.py") if p.name != "__init__.py"}
    units |= {p.parent.name for p in SRC.glob("*/__init__.py")}
    assert len(set(LAYERS)) == len(LAYERS)
    assert units | {"wearbench"} == set(LAYERS)


def test_exceptions_are_still_needed() -> None:
    used = {(e.file, e.module) for e in _all_edges()}
    assert set(EXCEPTIONS) <= used


@pytest.mark.parametrize(
    ("file", "text", "expected"),
    [
        ("cohort/_io.py", "from wearbench.bench import read_items\n", "upward (bench is above cohort)"),
        ("cohort/_io.py", "def f():\n    import wearbench.report\n", "upward (report is above cohort)"),
        ("bench/_x.py", "from wearbench.scoring import wilson\n", "upward (scoring is above bench)"),
        ("report/_x.py", "from wearbench.bench._artifact import x\n", "private module of another package"),
        ("report/_x.py", "from wearbench.bench import _artifact\n", "private module of another package"),
        ("report/_x.py", "from wearbench.sources.fitbit._overview import x\n", "private module"),
        ("cli.py", "from wearbench.sim.faults import x\nfrom wearbench._errors import E\n", None),
        ("bench/_x.py", "from ..questions import Item\nfrom . import _artifact\n", None),
        ("questions/types/t.py", "from ...runner import Setting\n", "upward (runner is above questions)"),
    ],
)
def test_checker_catches_what_it_should(file: str, text: str, expected: str | None) -> None:
    found = violations(edges(SRC / file, text))
    if expected is None:
        assert found == []
    else:
        assert len(found) == 1
        assert expected in found[0]
