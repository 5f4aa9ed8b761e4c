"""Question types: the registered unit of WearableQA generation.

A question type is a class registered with :func:`question`. For one user context and a
candidate end date it builds a :class:`Draft`: the question text, the correct option and nine
distractors as structured *claims*, and the :class:`~wearbench.questions.Graph` of primitive
calls whose named outputs (the evidence) decide every option through the type's
:meth:`QuestionType.check`. The builder keeps a draft only if exactly one of the ten claims
holds, so the answer is re-derivable by anyone who replays the graph.

A type that cannot pose its question on a context raises :class:`Drop` with a reason; the
reasons are counted in the datasheet (undefined or ambiguous users are dropped, never
approximated).

Tuning values (thinning shares, dead bands, thresholds) are constructor parameters, scikit-learn
style: a type is a frozen dataclass whose fields default to the published values and whose
constructor only stores them, so ``Trend(no_trend_share=1.0)`` is a variant and
:meth:`QuestionType.spec` records the values a build used (the manifest's ``specs``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, ClassVar, TypeVar, cast

import numpy as np

from wearbench._labels import Labels, PairKind
from wearbench._registry import registered, registry
from wearbench.cohort import UserContext
from wearbench.questions._graph import Drop as Drop  # re-exported: question types import it from here
from wearbench.questions._graph import Graph

K = TypeVar("K")
V = TypeVar("V")

#: Days in the question window (WearableQA: 28-day windows).
WINDOW_DAYS = 28
#: Most days of history shown with an item (WearableQA: up to 500).
HISTORY_DAYS = 500


@dataclass(frozen=True)
class Option:
    """One answer option: display text and the structured claim the check judges."""

    text: str
    claim: Mapping[str, Any]


@dataclass(frozen=True)
class Draft:
    """A question before letters are assigned.

    Attributes:
        question: Question stem.
        correct: The option the evidence satisfies.
        distractors: Nine options the evidence contradicts.
        graph: Recorded computation (its outputs are the evidence).
        metrics: Metrics the question is about (shown in the context).
        grounding_ref: Literature card id or population pattern family.
        pair_kind: For pair questions, ``definitional`` or ``empirical``.
        gates: Gate statistics (population-grounded items).
        variant: Distinguishes several items of one type on one user and window.
    """

    question: str
    correct: Option
    distractors: tuple[Option, ...]
    graph: Graph
    metrics: tuple[str, ...]
    grounding_ref: str | None = None
    pair_kind: PairKind | None = None
    gates: Mapping[str, Any] | None = None
    variant: str = ""


@dataclass(frozen=True)
class CohortPool:
    """Cohort-level distributions that distractors draw wrong magnitudes from.

    Attributes:
        window_means: Metric → per-user-window means over the cohort (finite values).
        window_slopes: Metric → per-user-window OLS slopes (units per day).
        extra: Free-form named distributions a type registers.
    """

    window_means: Mapping[str, np.ndarray] = field(default_factory=dict)
    window_slopes: Mapping[str, np.ndarray] = field(default_factory=dict)
    extra: Mapping[str, np.ndarray] = field(default_factory=dict)


class QuestionType:
    """Base class of a registered question type (subclass and decorate with :func:`question`).

    Class attributes:
        name: Registered name (official WearableQA category name where known).
        version: Bumped whenever the type's output changes.
        labels: Taxonomy labels shared by all its items.
        window_days: Days in the question window.
        min_history: Days of record needed before (and including) the end date.
        max_per_user: Most items of this type per user (distinct end dates).
        end_step: Days between candidate end dates (default: ``window_days``, no overlap).
    """

    name: ClassVar[str]
    version: ClassVar[int] = 1
    labels: ClassVar[Labels]
    window_days: ClassVar[int] = WINDOW_DAYS
    min_history: ClassVar[int] = WINDOW_DAYS
    max_per_user: ClassVar[int] = 2
    end_step: ClassVar[int | None] = None

    def params(self) -> dict[str, Any]:
        """Constructor parameters, name → value (scikit-learn's ``get_params``)."""
        return {f.name: getattr(self, f.name) for f in fields(self)} if is_dataclass(self) else {}

    def spec(self) -> dict[str, Any]:
        """:meth:`params` as JSON values (keys as strings, a tuple key joined with ``|``)."""
        return {k: _json_param(v) for k, v in self.params().items()}

    def end_dates(self, ctx: UserContext) -> list[int]:
        """Candidate end-date indices, latest first: every ``end_step`` days back from the last day."""
        step = self.end_step or self.window_days
        return list(range(ctx.n_days - 1, self.min_history - 2, -step))

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Build a draft for the window ending at index ``end``, or raise :class:`Drop`."""
        raise NotImplementedError

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """Whether ``claim`` holds given the evidence (JSON values of the graph outputs)."""
        raise NotImplementedError

    def cohort_distributions(self, contexts: Sequence[UserContext]) -> Mapping[str, np.ndarray]:
        """Named cohort-level distributions this type needs, merged into ``CohortPool.extra``.

        Computed once per build over every user before generation (e.g. peers' VO2max by sex
        and age band). Values an answer depends on must still enter the item's graph (as
        literal inputs), so the verifier needs only the item and its context.

        A type defines it in two parts so that a build can run the per-user work in chunks
        on workers: :meth:`cohort_summary` of some users, and
        :meth:`cohort_distributions_from` of the summaries of every chunk in user order.
        """
        return self.cohort_distributions_from([self.cohort_summary(contexts)])

    def cohort_summary(self, contexts: Sequence[UserContext]) -> Any:
        """A picklable summary of some users for :meth:`cohort_distributions_from` (default None)."""
        return None

    def cohort_distributions_from(self, summaries: Sequence[Any]) -> Mapping[str, np.ndarray]:
        """The distributions from the summaries of consecutive chunks of users, in user order.

        Must equal what one summary of all the users would give (default: none).
        """
        return {}

    def null_statistics(
        self, contexts: Sequence[UserContext], rng: np.random.Generator
    ) -> Mapping[str, Mapping[str, float]]:
        """Cross-user null test per pattern family: ``{family: {"null": p0, "observed": p1}}``.

        Population-grounded types override this: recompute the gated statistic on deliberately
        mismatched user pairings (``null``) and on matched ones (``observed``). The builder
        rejects a family whose empirical FDR ``null / observed`` exceeds 0.20.

        Raises:
            NotImplementedError: The type is population-grounded and does not override this (a
                gate that must not be skipped silently).
        """
        if self.labels.grounding == "population":
            raise NotImplementedError(
                f"question type {self.name!r} is population-grounded but does not define null_statistics "
                "(the cross-user null test of its pattern families)"
            )
        return {}


def _json_param(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {_json_key(k): _json_param(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_json_param(v) for v in value]
    return value


def _json_key(key: Any) -> str:
    if isinstance(key, tuple):
        return "|".join(_json_key(k) for k in key)
    return key if isinstance(key, str) else json.dumps(key)


def table(value: Mapping[K, V]) -> Mapping[K, V]:
    """A mapping-valued parameter default (each instance gets its own copy of ``value``)."""
    return cast(Mapping[K, V], field(default_factory=lambda: dict(value)))


_register = registered("question")


def question() -> Any:
    """Class decorator registering a :class:`QuestionType` subclass under its ``name``."""

    def decorate(cls: type[QuestionType]) -> type[QuestionType]:
        labels = cls.labels
        _register(name=cls.name, **labels.to_dict(), version=cls.version)(cls)
        return cls

    return decorate


def question_type(name: str) -> type[QuestionType]:
    """The registered question type class called ``name`` (close-match suggestions if unknown)."""
    return cast(type[QuestionType], registry.get("question", name).obj)
