"""Exception hierarchy.

Every error a user can cause derives from :class:`WearbenchError`; the CLI prints
such errors as one line without a traceback. Anything else is a bug.
"""

from __future__ import annotations


class WearbenchError(Exception):
    """Base class for errors caused by user input (bad files, names, options)."""


class UnknownNameError(WearbenchError, KeyError):
    """A registry lookup named something that is not registered.

    Attributes:
        kind: Registry kind that was searched (e.g. ``"primitive"``).
        name: The name that was asked for.
        suggestions: Close matches among registered names, best first.
    """

    def __init__(self, kind: str, name: str, suggestions: list[str]) -> None:
        self.kind = kind
        self.name = name
        self.suggestions = suggestions
        hint = f"; did you mean {', '.join(repr(s) for s in suggestions)}?" if suggestions else ""
        super().__init__(f"unknown {kind} {name!r}{hint}")

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0])


class CohortValidationError(WearbenchError):
    """A cohort failed validation; ``problems`` holds one line per problem."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = problems
        head = f"{source}: {len(problems)} problem(s)"
        super().__init__(head + "".join(f"\n  - {p}" for p in problems))
