"""The one schema of ``wearbench score --format json``, for WearableQA and HealthLoopQA runs alike.

:data:`SCORE_JSON_SCHEMA` is a JSON Schema (the subset :func:`check_score_json` reads: ``type``,
``enum``, ``minimum``, ``maximum``, ``required``, ``properties``, ``additionalProperties``,
``items``), so any JSON Schema validator accepts it too. Each kind adds its own keys beside the
common ones (extra keys are allowed); ``docs/cgm-eval.md`` lists both. ``judges`` (a HealthLoopQA
run's LLM-judge grades, :data:`JUDGE_SCHEMA`) is optional: absent when the run has no judgements.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_SCORE: dict[str, Any] = {"type": ["number", "null"], "minimum": 0, "maximum": 100}
_COUNT: dict[str, Any] = {"type": "integer", "minimum": 0}

#: One group of a breakdown: mean score on 0–100 with its 95% interval, items, parse failures.
GROUP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["score", "ci_low", "ci_high", "n", "parse_failures"],
    "properties": {
        "score": _SCORE,
        "ci_low": _SCORE,
        "ci_high": _SCORE,
        "n": _COUNT,
        "parse_failures": _COUNT,
    },
}

_GRADE: dict[str, Any] = {"type": ["number", "null"], "minimum": 1, "maximum": 5}
_SHARE: dict[str, Any] = {"type": ["number", "null"], "minimum": 0, "maximum": 1}
_COUNTED: dict[str, Any] = {
    "type": "object",
    "required": ["count", "share"],
    "properties": {"count": _COUNT, "share": _SHARE},
}

#: One judge (spec + prompt version) of a HealthLoopQA run: counts, each grade's mean on 1–5 with
#: its patient-clustered 95% interval, failure-type counts and shares of the parsed judgements.
JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": [
        *("judge", "prompt_version", "n", "parsed", "parse_failures", "errors", "patients"),
        *("ci_method", "grades", "failure_types", "no_failure"),
    ],
    "properties": {
        "judge": {"type": "string"},
        "prompt_version": {"type": "string"},
        **dict.fromkeys(("n", "parsed", "parse_failures", "errors", "patients"), _COUNT),
        "ci_method": {"enum": ["patient_bootstrap"]},
        "grades": {
            "type": "object",
            "required": ["instruction_following", "reasoning_quality", "format_compliance"],
            "additionalProperties": {
                "type": "object",
                "required": ["mean", "ci_low", "ci_high", "n"],
                "properties": {"mean": _GRADE, "ci_low": _GRADE, "ci_high": _GRADE, "n": _COUNT},
            },
        },
        "failure_types": {"type": "object", "additionalProperties": _COUNTED},
        "no_failure": _COUNTED,
    },
}

_REQUIRED = [
    *("kind", "run_id", "model", "setting", "score", "ci_low", "ci_high", "ci_method", "n"),
    *("parse_failures", "errors", "missing", "n_items", "breakdowns"),
]

#: The score JSON of one run (``RunScore.to_dict`` / ``CGMRunScore.to_dict``).
SCORE_JSON_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "wearbench score",
    "type": "object",
    "required": _REQUIRED,
    "properties": {
        "kind": {"enum": ["wearableqa", "healthloopqa"]},
        "run_id": {"type": ["string", "null"]},
        "model": {"type": ["string", "null"]},
        "setting": {"type": ["string", "null"]},
        "score": _SCORE,
        "ci_low": _SCORE,
        "ci_high": _SCORE,
        "ci_method": {"enum": ["wilson", "patient_bootstrap"]},
        "n": _COUNT,
        "parse_failures": _COUNT,
        "errors": _COUNT,
        "missing": _COUNT,
        "n_items": _COUNT,
        "breakdowns": {
            "type": "object",
            "additionalProperties": {"type": "object", "additionalProperties": GROUP_SCHEMA},
        },
        "judges": {"type": "array", "items": JUDGE_SCHEMA},
    },
}

_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "null": (type(None),),
}


def _is(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("number", "integer"):
        return False
    return isinstance(value, _TYPES[name])


def _check(value: Any, schema: Mapping[str, Any], path: str) -> None:
    kinds = schema.get("type")
    if kinds is not None:
        names = [kinds] if isinstance(kinds, str) else list(kinds)
        if not any(_is(value, n) for n in names):
            raise ValueError(f"{path}: {value!r} is not of type {' or '.join(names)}")
    if "enum" in schema and value not in schema["enum"]:
        raise ValueError(f"{path}: {value!r} is not one of {schema['enum']}")
    if _is(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            raise ValueError(f"{path}: {value} is below {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            raise ValueError(f"{path}: {value} is above {schema['maximum']}")
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for i, sub in enumerate(value):
            _check(sub, schema["items"], f"{path}[{i}]")
    if not isinstance(value, dict):
        return
    missing = [k for k in schema.get("required", ()) if k not in value]
    if missing:
        raise ValueError(f"{path}: missing {', '.join(missing)}")
    props = schema.get("properties", {})
    extra = schema.get("additionalProperties")
    for key, sub in value.items():
        if key in props:
            _check(sub, props[key], f"{path}.{key}")
        elif isinstance(extra, Mapping):
            _check(sub, extra, f"{path}.{key}")


def check_score_json(result: Mapping[str, Any]) -> None:
    """Check one run's score JSON against :data:`SCORE_JSON_SCHEMA`.

    Raises:
        ValueError: Naming the first key path that breaks the schema (``$.breakdowns.by_level.memory:
            missing n``).
    """
    _check(dict(result), SCORE_JSON_SCHEMA, "$")
