"""WearableQA question generation: contexts, computation graphs, question types, items."""

from wearbench._labels import Dependency, Grounding, Labels, PairKind, Reasoning, Signals
from wearbench.cohort import UserContext, contexts_from_cohort
from wearbench.questions._graph import Graph, Ref, graph_references, jsonable, run_graph
from wearbench.questions._item import LETTERS, Item, item_id
from wearbench.questions._qtype import (
    HISTORY_DAYS,
    WINDOW_DAYS,
    CohortPool,
    Draft,
    Drop,
    Option,
    QuestionType,
    question,
    question_type,
)

__all__ = [
    "HISTORY_DAYS",
    "LETTERS",
    "WINDOW_DAYS",
    "CohortPool",
    "Dependency",
    "Draft",
    "Drop",
    "Graph",
    "Grounding",
    "Item",
    "Labels",
    "Option",
    "PairKind",
    "QuestionType",
    "Reasoning",
    "Ref",
    "Signals",
    "UserContext",
    "contexts_from_cohort",
    "graph_references",
    "item_id",
    "jsonable",
    "question",
    "question_type",
    "run_graph",
]
