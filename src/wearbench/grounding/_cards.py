"""Literature cards: the structured evidence behind literature-grounded question types.

A card (one JSON file in ``grounding/cards/``) records one physiological relationship usable on
daily wearable data: its direction, at least two independent studies that report it in that
direction (each with a DOI or PMID, the claim, the cohort and how the identifiers were checked),
what the sources do *not* establish, and how wearbench instantiates it with personal baselines
and cohort-relative statistics (never with a study's own cut-offs). Cards are validated strictly
on load: an unknown or missing key, a malformed identifier or a single study is an error that
names the file and the key.

Example:
    >>> from wearbench.grounding import card
    >>> card("rhr_elevation_acute_illness").direction
    'positive'
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from wearbench._errors import UnknownNameError, WearbenchError

Direction = Literal["positive", "negative"]

CARD_KEYS = (
    "id",
    "relationship",
    "exposure",
    "outcome",
    "direction",
    "studies",
    "does_not_establish",
    "instantiation",
    "question_types",
)
STUDY_KEYS = (
    "citation",
    "doi",
    "pmid",
    "pmcid",
    "design",
    "cohort",
    "claim",
    "claim_is_verbatim",
    "verification",
)
DOI_RE = re.compile(r"^10\.\d{4,9}/\S+$")
PMID_RE = re.compile(r"^[1-9]\d{0,8}$")
PMCID_RE = re.compile(r"^PMC\d{1,9}$")
ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")


class CardError(WearbenchError):
    """A literature card file is malformed (the message names the file and the key)."""


@dataclass(frozen=True)
class Study:
    """One study supporting a card.

    Attributes:
        citation: ``Authors. Title. Journal. Year;Vol:pages.``
        doi: DOI (``10.xxxx/...``) or None.
        pmid: PubMed id (digits) or None; at least one of ``doi`` and ``pmid`` is set.
        pmcid: PubMed Central id (``PMC...``) or None.
        design: Study design.
        cohort: Size, population and device.
        claim: The claim (verbatim when ``claim_is_verbatim``, else a careful paraphrase).
        claim_is_verbatim: Whether ``claim`` was copied from the source.
        verification: How each identifier was checked (or ``not verified: ...``).
    """

    citation: str
    doi: str | None
    pmid: str | None
    pmcid: str | None
    design: str
    cohort: str
    claim: str
    claim_is_verbatim: bool
    verification: str


@dataclass(frozen=True)
class Card:
    """One literature card (see the module docstring).

    Attributes:
        id: Card id (equals the file stem); question items cite it as ``grounding_ref``.
        relationship: The relationship in one sentence.
        exposure: Exposure (a wearbench metric name where one applies).
        outcome: Outcome.
        direction: ``positive`` or ``negative`` (shared by every study).
        studies: Two or more supporting studies.
        does_not_establish: What the sources do not establish.
        instantiation: How wearbench operationalises it (personal / cohort-relative statistics).
        question_types: Question types grounded on this card.
    """

    id: str
    relationship: str
    exposure: str
    outcome: str
    direction: Direction
    studies: tuple[Study, ...]
    does_not_establish: tuple[str, ...]
    instantiation: str
    question_types: tuple[str, ...]


def _keys(data: Any, expected: tuple[str, ...], where: str) -> None:
    if not isinstance(data, Mapping):
        raise CardError(f"{where}: expected a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(expected))
    missing = [k for k in expected if k not in data]
    if unknown:
        raise CardError(f"{where}: unknown key {unknown[0]!r} (valid keys: {', '.join(expected)})")
    if missing:
        raise CardError(f"{where}: missing key {missing[0]!r}")


def _text(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise CardError(f"{where}: key {key!r} must be a non-empty string, got {value!r}")
    return value


def _ident(data: Mapping[str, Any], key: str, pattern: re.Pattern[str], where: str) -> str | None:
    value = data[key]
    if value is None:
        return None
    if not isinstance(value, str) or not pattern.match(value):
        raise CardError(f"{where}: key {key!r} is not a well-formed identifier: {value!r}")
    return value


def _texts(data: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = data[key]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise CardError(f"{where}: key {key!r} must be a non-empty list of non-empty strings")
    return tuple(value)


def _study(data: Any, where: str) -> Study:
    _keys(data, STUDY_KEYS, where)
    doi = _ident(data, "doi", DOI_RE, where)
    pmid = _ident(data, "pmid", PMID_RE, where)
    if doi is None and pmid is None:
        raise CardError(f"{where}: key 'doi'/'pmid': a study needs a DOI or a PMID")
    if not isinstance(data["claim_is_verbatim"], bool):
        raise CardError(f"{where}: key 'claim_is_verbatim' must be true or false")
    text = {k: _text(data, k, where) for k in ("citation", "design", "cohort", "claim", "verification")}
    return Study(
        doi=doi,
        pmid=pmid,
        pmcid=_ident(data, "pmcid", PMCID_RE, where),
        claim_is_verbatim=data["claim_is_verbatim"],
        **text,
    )


def parse_card(data: Any, source: str, stem: str | None = None) -> Card:
    """Validate one card's parsed JSON.

    Args:
        data: Parsed JSON.
        source: Where it came from (used in error messages).
        stem: File stem the id must equal (None: not checked).

    Returns:
        The validated card.

    Raises:
        CardError: Naming ``source`` and the offending key.
    """
    _keys(data, CARD_KEYS, source)
    card_id = _text(data, "id", source)
    if not ID_RE.match(card_id) or (stem is not None and card_id != stem):
        raise CardError(f"{source}: key 'id' must be snake_case and equal the file name, got {card_id!r}")
    if data["direction"] not in ("positive", "negative"):
        raise CardError(
            f"{source}: key 'direction' must be 'positive' or 'negative', got {data['direction']!r}"
        )
    studies = data["studies"]
    if not isinstance(studies, list) or len(studies) < 2:
        raise CardError(f"{source}: key 'studies' needs at least 2 same-direction studies")
    parsed = tuple(_study(s, f"{source}: studies[{i}]") for i, s in enumerate(studies))
    return Card(
        id=card_id,
        relationship=_text(data, "relationship", source),
        exposure=_text(data, "exposure", source),
        outcome=_text(data, "outcome", source),
        direction=data["direction"],
        studies=parsed,
        does_not_establish=_texts(data, "does_not_establish", source),
        instantiation=_text(data, "instantiation", source),
        question_types=_texts(data, "question_types", source),
    )


def load_card_file(path: Path | str) -> Card:
    """Load and validate one card file.

    Raises:
        CardError: If the file is not valid JSON or not a valid card.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise CardError(f"{path.name}: not valid JSON ({e})") from e
    return parse_card(data, path.name, path.stem)


def _load_all(files: Iterable[tuple[str, str]]) -> dict[str, Card]:
    out: dict[str, Card] = {}
    for name, text in sorted(files):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise CardError(f"{name}: not valid JSON ({e})") from e
        parsed = parse_card(data, name, name.removesuffix(".json"))
        out[parsed.id] = parsed
    return out


def load_cards_from(directory: Path | str) -> dict[str, Card]:
    """Load every ``*.json`` card in ``directory`` (id → card, sorted by id)."""
    return _load_all((p.name, p.read_text(encoding="utf-8")) for p in Path(directory).glob("*.json"))


@functools.cache
def _packaged() -> dict[str, Card]:
    root = resources.files("wearbench.grounding") / "cards"
    return _load_all(
        (entry.name, entry.read_text(encoding="utf-8"))
        for entry in root.iterdir()
        if entry.name.endswith(".json")
    )


def load_cards() -> dict[str, Card]:
    """The packaged literature cards, id → card (validated once, cached)."""
    return dict(_packaged())


def card(card_id: str) -> Card:
    """The packaged card ``card_id``.

    Raises:
        UnknownNameError: With close matches when no card has that id.
    """
    cards = _packaged()
    if card_id not in cards:
        raise UnknownNameError(
            "literature card", card_id, difflib.get_close_matches(card_id, list(cards), n=3)
        )
    return cards[card_id]


def _ids(study: Study) -> str:
    parts = [
        f"DOI [{study.doi}](https://doi.org/{study.doi})" if study.doi else "",
        f"PMID {study.pmid}" if study.pmid else "",
    ]
    return "; ".join(p for p in parts if p)


def cards_markdown(cards: Mapping[str, Card]) -> str:
    """The ``docs/literature-cards.md`` page: one table row per card."""
    lines = [
        "# Literature cards",
        "",
        "Generated from `src/wearbench/grounding/cards/*.json` by",
        "`wearbench.grounding.cards_markdown(load_cards())`; do not edit by hand.",
        "Claims marked *(paraphrase)* were not copied verbatim; see each card's `verification`.",
        "",
        "| id | relationship | direction | studies | does not establish |",
        "|---|---|---|---|---|",
    ]
    for c in cards.values():
        studies = "<br>".join(
            f"{s.citation.split('.')[0]} ({_ids(s)}){'' if s.claim_is_verbatim else ' *(paraphrase)*'}"
            for s in c.studies
        )
        cells = [f"`{c.id}`", c.relationship, c.direction, studies, "; ".join(c.does_not_establish)]
        lines.append("| " + " | ".join(x.replace("|", "\\|") for x in cells) + " |")
    return "\n".join(lines) + "\n"
