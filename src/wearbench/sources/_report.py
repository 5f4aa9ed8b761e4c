"""The import log a loader fills, and the import report written beside the cohort.

Every loader receives an :class:`ImportLog` and records what it read (rows per file or record
type), every repair (a value changed or set missing, a duplicate dropped, a unit converted) and
every rejection (a row or record not used), each with a count and a few examples naming file,
user, date and column. Nothing is dropped or changed silently: a change that is not logged is a
bug. :func:`~wearbench.sources.import_source` turns the log into ``import_report.json``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: Examples kept per repair or rejection kind.
MAX_EXAMPLES = 5


@dataclass
class ImportLog:
    """Mutable record of one import (filled by the loader and the cohort assembly).

    Attributes:
        rows_read: Rows (or records) read, per file or record type.
        repairs: Count per repair kind (e.g. ``"steps: duplicate iPhone+Watch interval dropped"``).
        rejections: Count per rejection kind (e.g. ``"nutrition: date out of range"``).
        examples: Up to :data:`MAX_EXAMPLES` example lines per kind.
        notes: Free remarks (derivations used, metrics the source lacks).
    """

    rows_read: Counter[str] = field(default_factory=Counter)
    repairs: Counter[str] = field(default_factory=Counter)
    rejections: Counter[str] = field(default_factory=Counter)
    examples: defaultdict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    notes: list[str] = field(default_factory=list)

    def read(self, what: str, n: int = 1) -> None:
        """Count ``n`` rows read from ``what`` (a file name or record type)."""
        self.rows_read[what] += n

    def repair(self, kind: str, example: str = "", n: int = 1) -> None:
        """Count ``n`` repairs of ``kind``; keep ``example`` (file, user, date, column, value)."""
        self.repairs[kind] += n
        self._example(kind, example)

    def reject(self, kind: str, example: str = "", n: int = 1) -> None:
        """Count ``n`` rejected rows of ``kind``; keep ``example``."""
        self.rejections[kind] += n
        self._example(kind, example)

    def note(self, text: str) -> None:
        """Add a remark (once)."""
        if text not in self.notes:
            self.notes.append(text)

    def _example(self, kind: str, example: str) -> None:
        if example and len(self.examples[kind]) < MAX_EXAMPLES:
            self.examples[kind].append(example)


@dataclass(frozen=True)
class ImportReport:
    """What an import read and produced (``COHORT/import_report.json``).

    Attributes:
        source: Loader name; ``path`` what it read.
        users: Users in the cohort; ``days`` user-days.
        first_date, last_date: Calendar span (ISO), or None when empty.
        rows_read: Rows read per file or record type.
        coverage: Per metric, the share of user-days with a value (0 for metrics the source lacks).
        repairs, rejections: Counts per kind; ``examples`` up to five examples per kind.
        notes: Derivations used and metrics the source does not have.
    """

    source: str
    path: str
    users: int
    days: int
    first_date: str | None
    last_date: str | None
    rows_read: Mapping[str, int]
    coverage: Mapping[str, float]
    repairs: Mapping[str, int]
    rejections: Mapping[str, int]
    examples: Mapping[str, list[str]]
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (keys sorted within each mapping)."""
        return {
            "source": self.source,
            "path": self.path,
            "users": self.users,
            "days": self.days,
            "first_date": self.first_date,
            "last_date": self.last_date,
            "rows_read": dict(sorted(self.rows_read.items())),
            "coverage": dict(self.coverage),
            "repairs": dict(sorted(self.repairs.items())),
            "rejections": dict(sorted(self.rejections.items())),
            "examples": {k: list(v) for k, v in sorted(self.examples.items())},
            "notes": list(self.notes),
        }

    def lines(self) -> list[str]:
        """A readable summary, one fact per line."""
        span = f"{self.first_date} to {self.last_date}" if self.first_date else "no days"
        out = [f"{self.source}: {self.users} user(s), {self.days} user-day(s), {span}"]
        have = [f"{m} {c:.0%}" for m, c in self.coverage.items() if c > 0]
        out.append("coverage: " + (", ".join(have) or "none"))
        missing = [m for m, c in self.coverage.items() if c == 0]
        if missing:
            out.append("not in this source: " + ", ".join(missing))
        for title, counts in (("repaired", self.repairs), ("rejected", self.rejections)):
            for kind, n in sorted(counts.items()):
                example = self.examples.get(kind, [])
                out.append(f"{title} {n}: {kind}" + (f" (e.g. {example[0]})" if example else ""))
        return out
