"""blood_state: ranges of the shown draw by the cut-offs the stem states, and steps vs the reference P50."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from tests.validity.prompt import Prompt
from tests.validity.solvers._common import Unsolvable, dates_in, number, pick
from tests.validity.solvers.cohort_position import item_reference

_NUM = r"(\d+(?:\.\d+)?)"
_TEXT = re.compile(
    r"Steps (above|below) the peer median; on this draw glycaemia in the (\w+) range, HOMA-IR in the "
    r"(insulin-sensitive|insulin-resistant) range, (typical|raised) triglycerides, (healthy|reduced) HDL"
)


@dataclass(frozen=True)
class Cuts:
    """Cut-offs the stem states (mg/dL, %, HOMA-IR index)."""

    glucose: tuple[float, float]
    hba1c: tuple[float, float]
    homa: float
    tg: float
    hdl: Mapping[str, float]


@dataclass(frozen=True)
class Facts:
    """The five parts an option states."""

    steps_above: bool
    glycaemia: str
    resistant: bool
    tg_raised: bool
    hdl_reduced: bool


def cuts(stem: str) -> Cuts:
    """The cut-offs from the stem's sentences."""
    g = re.search(
        rf"fasting-glucose range \(normal under {_NUM} mg/dL, .*?, diabetes from {_NUM} mg/dL\)", stem
    )
    a = re.search(rf"HbA1c range \(normal under {_NUM} %, .*?, diabetes from {_NUM} %\)", stem)
    h = re.search(rf"insulin-resistant from {_NUM}", stem)
    t = re.search(rf"Triglycerides are typical under .*? and raised from {_NUM} mg/dL", stem)
    d = re.search(rf"HDL is healthy from {_NUM} mg/dL in men and {_NUM} mg/dL in women", stem)
    if g is None or a is None or h is None or t is None or d is None:
        raise Unsolvable("the stem does not state every cut-off")
    return Cuts(
        (number(g.group(1)), number(g.group(2))),
        (number(a.group(1)), number(a.group(2))),
        number(h.group(1)),
        number(t.group(1)),
        {"M": number(d.group(1)), "F": number(d.group(2))},
    )


def facts(panel: Mapping[str, float], sex: str, steps_above: bool, c: Cuts) -> Facts:
    """The state of a draw: glucose mg/dL, HbA1c %, insulin µIU/mL (or ``homa_ir``), lipids mg/dL."""
    homa = panel["homa_ir"] if "homa_ir" in panel else panel["fasting_glucose"] * panel["insulin"] / 405.0
    level = max(
        sum(panel["fasting_glucose"] >= x for x in c.glucose), sum(panel["hba1c"] >= x for x in c.hba1c)
    )
    if sex not in c.hdl or not all(
        np.isfinite([homa, panel["fasting_glucose"], panel["hba1c"], panel["triglycerides"], panel["hdl"]])
    ):
        raise Unsolvable("sex or a needed biomarker is missing")
    glyc = ("normal", "prediabetes", "diabetes")[level]
    return Facts(steps_above, glyc, homa >= c.homa, panel["triglycerides"] >= c.tg, panel["hdl"] < c.hdl[sex])


def holds(text: str, f: Facts) -> bool:
    """Whether an option states exactly these facts."""
    m = _TEXT.fullmatch(text)
    if m is None:
        return False
    said = Facts(
        m.group(1) == "above",
        m.group(2),
        m.group(3) == "insulin-resistant",
        m.group(4) == "raised",
        m.group(5) == "reduced",
    )
    return said == f


def solve(p: Prompt) -> str:
    """Letter of the description of the shown draw and the window's steps."""
    m = re.search(r"median daily steps over the (\d+) days ending", p.question)
    if m is None or p.blood_date is None:
        raise Unsolvable("no window stated or no draw shown")
    if dates_in(p.question)[0] != str(p.dates[-1]):
        raise Unsolvable("window end is not the last shown day")
    ref = item_reference(p.text, "steps")
    if 50 not in ref:
        raise Unsolvable("the steps reference has no P50")
    median = float(np.nanmedian(p.span("steps", int(m.group(1)))))
    f = facts(p.blood, p.profile.get("sex", ""), median > ref[50], cuts(p.question))
    return pick(p.options, lambda text: holds(text, f))
