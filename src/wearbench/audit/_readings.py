"""Do the health readings hold against what the generator planted, and do they fire on noise?

For every reading and cause option of the health types (:data:`AUDITED_TYPES`) this audit
measures, on a synthetic cohort with ground truth (``cohort.truth``):

- **PPV**: of the items keyed with the reading, the share where the planted truth that makes
  the reading true holds (:data:`TRUTH`; e.g. an illness reading is true when a planted illness
  episode overlaps the item's focus days);
- **noise rate**: items keyed with the reading on a *cross-user-permuted* copy of the cohort
  (:func:`permute_cohort`: each metric's whole series, and each biomarker, shuffled across
  users, so no within-user structure is left), over items keyed with it on the real cohort.

A causal or clinical reading is kept only with PPV ≥ :data:`MIN_PPV` and a noise ratio ≤
:data:`MAX_NOISE_RATIO`; otherwise a type states the pattern instead (a *description*, true by
its own rule on any data). Descriptions carry no truth (their PPV is not defined) and are
listed with their noise ratio only. Items are the generated ones (before the build's
answer-class balancing), made by the same code and seeds as :func:`wearbench.bench.build_benchmark`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.bench import Pending, UserTask, build_pool, generate_user
from wearbench.cohort import BIOMARKER_NAMES, METRIC_NAMES, Cohort, table_kind
from wearbench.questions import contexts_from_cohort
from wearbench.sources.synthetic import Episode, TrainingBlock, UserPlan, effects

AUDITED_TYPES = (
    "acute_strain",
    "differential_rhr",
    "sleep_phenotype",
    "blood_state",
    "activity_recommendation",
)
MIN_PPV = 0.8
MAX_NOISE_RATIO = 0.25
#: Days at the end of a window that acute_strain / differential_rhr read (their focus).
FOCUS_DAYS = 3
#: Baseline days before the focus (acute_strain / differential_rhr).
BASELINE_DAYS = 28
#: Least planted fall of the training-adaptation resting HR (bpm), focus mean against the
#: baseline mean, that makes "improved fitness" true.
FITNESS_DROP_BPM = 1.0


@dataclass(frozen=True)
class PlantedDays:
    """One user's planted events as day masks over the record.

    Attributes:
        episodes: Episode kind → bool mask (days inside an episode of that kind).
        training: Bool mask of training-block days.
        adaptation_rhr: Planted training-adaptation change of resting HR per day (bpm, ≤ 0),
            the generator's ``−drop · adapted`` with its 21-day time constant.
        draws: The user's blood draws (``draw_date`` ISO and biomarker → value), oldest first.
        sex: ``F`` or ``M``.
    """

    episodes: Mapping[str, np.ndarray]
    training: np.ndarray
    adaptation_rhr: np.ndarray
    draws: tuple[Mapping[str, Any], ...] = ()
    sex: str = "F"

    def any_episode(self, sl: slice, *kinds: str) -> bool:
        """Whether an episode of one of ``kinds`` (every kind when none named) touches ``sl``."""
        names = kinds or tuple(self.episodes)
        return any(bool(self.episodes[k][sl].any()) for k in names if k in self.episodes)


#: ``(planted days, end index of the item's window, keyed claim) → holds``; None = undefined.
Judge = Callable[[PlantedDays, int, Mapping[str, Any]], "bool | None"]


def _focus(end: int) -> slice:
    return slice(max(0, end - FOCUS_DAYS + 1), end + 1)


def _episode(*kinds: str) -> Judge:
    return lambda p, end, claim: p.any_episode(_focus(end), *kinds)


def _training(p: PlantedDays, end: int, claim: Mapping[str, Any]) -> bool:
    return bool(p.training[_focus(end)].any())


def _nothing(p: PlantedDays, end: int, claim: Mapping[str, Any]) -> bool:
    sl = _focus(end)
    return not p.any_episode(sl) and not bool(p.training[sl].any())


def _fitness(p: PlantedDays, end: int, claim: Mapping[str, Any]) -> bool:
    sl = _focus(end)
    base = p.adaptation_rhr[max(0, sl.start - BASELINE_DAYS) : sl.start]
    return bool(base.size) and bool(p.adaptation_rhr[sl].mean() <= base.mean() - FITNESS_DROP_BPM)


def _other_draw(part: str) -> Judge:
    """A blood reading confirmed on the user's other draw; undefined for users with one draw."""

    def judge(p: PlantedDays, end: int, claim: Mapping[str, Any]) -> bool | None:
        from wearbench.questions.types.blood_state import blood_state_of

        if len(p.draws) < 2:
            return None
        used = _draw_used(p.draws, end)
        other = p.draws[1] if used == 0 else p.draws[0]
        got = blood_state_of({k: float(v) for k, v in other.items() if k in BIOMARKER_NAMES}, p.sex)
        return None if got is None else bool(got[part] == claim[part])

    return judge


def _draw_used(draws: Sequence[Mapping[str, Any]], end: int) -> int:
    """Index of the latest draw on or before day ``end`` (draw days are stored as offsets)."""
    days = [int(d["_day"]) for d in draws]
    before = [i for i, d in enumerate(days) if d <= end]
    return before[-1] if before else 0


#: Reading key → (what planted truth makes it true, judge). Keys are ``type:reading`` for the
#: strain types and ``type:part=value`` for the others. Readings without an entry are
#: descriptions (no causal or clinical claim; true by their rule).
TRUTH: dict[str, tuple[str, Judge]] = {
    "acute_strain:illness": ("illness episode overlaps the focus days", _episode("illness")),
    "acute_strain:overreaching": ("training block overlaps the focus days", _training),
    "acute_strain:sleep_loss": (
        "stress or travel episode overlaps the focus days",
        _episode("stress", "travel"),
    ),
    "acute_strain:stress": ("stress episode overlaps the focus days", _episode("stress")),
    "acute_strain:isolated_rhr": ("no episode or training block in the focus days", _nothing),
    "acute_strain:fitness": (
        f"planted training adaptation lowers resting HR by >= {FITNESS_DROP_BPM:g} bpm vs the baseline",
        _fitness,
    ),
    "differential_rhr:illness_full": ("illness episode overlaps the focus days", _episode("illness")),
    "differential_rhr:illness_hrv_sleep": ("illness episode overlaps the focus days", _episode("illness")),
    "differential_rhr:illness_hrv_steps": ("illness episode overlaps the focus days", _episode("illness")),
    "differential_rhr:illness_rest": ("illness episode overlaps the focus days", _episode("illness")),
    "differential_rhr:training": ("training block overlaps the focus days", _training),
    "differential_rhr:sleep_loss": (
        "stress or travel episode overlaps the focus days",
        _episode("stress", "travel"),
    ),
    "differential_rhr:stress": ("stress episode overlaps the focus days", _episode("stress")),
    "differential_rhr:circadian": ("travel episode overlaps the focus days", _episode("travel")),
    "differential_rhr:inactivity": ("injury episode overlaps the focus days", _episode("injury")),
    "differential_rhr:unexplained": ("no episode or training block in the focus days", _nothing),
    **{
        f"blood_state:glycaemia={g}": (f"the user's other draw is also {g}", _other_draw("glycaemia"))
        for g in ("prediabetes", "diabetes")
    },
    "blood_state:insulin_resistance=True": (
        "the user's other draw is also insulin-resistant",
        _other_draw("insulin_resistance"),
    ),
}


def reading_keys(item: Pending) -> list[str]:
    """The audited readings an item is keyed with (``type:reading`` or ``type:part=value``)."""
    claim = item.correct[1]
    if item.type == "acute_strain":
        return [f"acute_strain:{claim['reading']}"]
    if item.type == "differential_rhr":
        return [f"differential_rhr:{claim['explanation']}"]
    parts = {
        "sleep_phenotype": ("duration", "continuity", "timing"),
        "blood_state": ("glycaemia", "insulin_resistance", "lipids", "activity"),
        "activity_recommendation": ("level", "relation"),
    }[item.type]
    return [f"{item.type}:{p}={claim[p]}" for p in parts]


@dataclass(frozen=True)
class ReadingRow:
    """One reading's audit numbers.

    Attributes:
        key: ``type:reading`` or ``type:part=value``.
        truth: What planted truth makes it true; empty for a description.
        n: Items keyed with it on the real cohort.
        judged: Of those, items where the truth is defined.
        hits: Of the judged, items where the truth holds.
        n_noise: Items keyed with it on the permuted cohort.
    """

    key: str
    truth: str
    n: int
    judged: int
    hits: int
    n_noise: int

    @property
    def ppv(self) -> float:
        """``hits / judged`` (NaN for a description or when nothing was judged)."""
        return self.hits / self.judged if self.truth and self.judged else math.nan

    @property
    def noise_ratio(self) -> float:
        """``n_noise / n`` (NaN when the reading never fired on the real cohort)."""
        return self.n_noise / self.n if self.n else math.nan

    @property
    def holds(self) -> bool:
        """Whether a causal reading passes both rules (PPV ≥ 0.8, noise ratio ≤ 0.25)."""
        return bool(self.ppv >= MIN_PPV and self.noise_ratio <= MAX_NOISE_RATIO)


@dataclass(frozen=True)
class ReadingsTable:
    """The audit of every reading that fired on either cohort.

    Attributes:
        rows: One row per reading, sorted by key.
        n_users: Users in the cohort.
        n_days: Days per user.
        seed: Cohort seed (generator parameters), or None when unknown.
        build_seed: Seed of the item generation.
        permute_seed: Seed of :func:`permute_cohort`.
    """

    rows: tuple[ReadingRow, ...]
    n_users: int
    n_days: int
    seed: int | None
    build_seed: int
    permute_seed: int

    def to_markdown(self) -> str:
        """The table as Markdown (PPV and noise ratio to two decimals; ``—`` where undefined)."""
        claimed = claimed_readings()
        lines = [
            "| reading | planted truth that makes it true | items | PPV (judged) | permuted items "
            "| noise ratio | verdict |",
            "|---|---|---:|---:|---:|---:|---|",
        ]
        lines += [
            f"| `{r.key}` | {r.truth or '—'} | {r.n} | {_num(r.ppv, r.judged)} | {r.n_noise} "
            f"| {_num(r.noise_ratio)} | {verdict(r, r.key in claimed)} |"
            for r in self.rows
        ]
        return "\n".join(lines) + "\n"


def verdict(row: ReadingRow, claimed: bool) -> str:
    """``claim kept`` / ``claim kept, FAILS`` for a causal label in use, else how it is stated."""
    if claimed:
        return "claim kept" if row.holds else "claim kept, FAILS"
    if not row.truth:
        return "description"
    return "description (claim would hold)" if row.holds else "description (claim fails)"


def claimed_readings() -> set[str]:
    """Readings whose option text carries a causal or clinical label (the types' ``KEPT``)."""
    from wearbench.questions.types import acute_strain, differential_rhr

    return {f"acute_strain:{k}" for k in acute_strain.KEPT} | {
        f"differential_rhr:{k}" for k in differential_rhr.KEPT
    }


def _num(x: float, judged: int | None = None) -> str:
    if math.isnan(x):
        return "—"
    return f"{x:.2f}" if judged is None else f"{x:.2f} ({judged})"


def permute_cohort(cohort: Cohort, seed: int = 1) -> Cohort:
    """A copy of ``cohort`` with each metric's series and each biomarker shuffled across users.

    Every metric gets its own permutation of users, so a user's resting HR, HRV, sleep ...
    come from different people and no within-user structure (episodes, couplings) is left;
    dates, demographics, draw dates and the reference are kept. Ground truth is dropped.

    Raises:
        WearbenchError: If the users do not share one calendar.
    """
    daily = cohort.daily.sort_values(["user_id", "date"], ignore_index=True)
    users = daily["user_id"].astype(str).unique()
    n_days = len(daily) // max(len(users), 1)
    dates = daily["date"].to_numpy()
    if len(daily) != len(users) * n_days or not (dates.reshape(len(users), n_days) == dates[:n_days]).all():
        raise WearbenchError("permute_cohort needs every user on the same calendar (one row per user-day)")
    rng = np.random.default_rng(seed)
    out = daily.copy()
    for m in METRIC_NAMES:
        block = daily[m].to_numpy(dtype=float).reshape(len(users), n_days)
        out[m] = block[rng.permutation(len(users))].ravel()
    blood = cohort.blood.copy()
    for b in BIOMARKER_NAMES:
        blood[b] = blood[b].to_numpy()[rng.permutation(len(blood))]
    # the reference table is the original's, so it stays as independent of the users as it was
    source = {
        "name": "permuted",
        "params": {"seed": seed, "of": dict(cohort.source)},
        "reference": {"kind": table_kind(cohort.source)},
    }
    return Cohort(out, cohort.demographics, blood, cohort.reference, source=source, truth=None)


def planted_days(cohort: Cohort) -> dict[str, PlantedDays]:
    """Planted events of every user as day masks (see :class:`PlantedDays`).

    Raises:
        WearbenchError: If the cohort carries no ground truth.
    """
    if not cohort.truth:
        raise WearbenchError("this cohort has no planted ground truth (only synthetic cohorts do)")
    truth = cohort.truth
    start = np.datetime64(str(cohort.daily["date"].min())[:10], "D")
    n_days = int((np.datetime64(str(cohort.daily["date"].max())[:10], "D") - start).astype(int)) + 1

    def day(iso: Any) -> int:
        return int((np.datetime64(str(iso)[:10], "D") - start).astype(int))

    sexes = cohort.demographics.set_index("user_id")["sex"].astype(str).to_dict()
    draws: dict[str, list[dict[str, Any]]] = {}
    for _, r in cohort.blood.sort_values(["user_id", "draw_date"]).iterrows():
        draws.setdefault(str(r["user_id"]), []).append(
            {"_day": day(r["draw_date"])} | {b: r[b] for b in BIOMARKER_NAMES}
        )
    out: dict[str, PlantedDays] = {}
    for uid in cohort.user_ids:
        eps = tuple(
            Episode(e["kind"], day(e["start"]), day(e["end"]), float(e["magnitude"]))
            for e in truth.get("episodes", [])
            if e["user_id"] == uid
        )
        blocks = tuple(
            TrainingBlock(
                day(b["start"]), day(b["end"]), float(b["vo2max_gain"]), float(b["resting_hr_drop"])
            )
            for b in truth.get("training_blocks", [])
            if b["user_id"] == uid
        )
        eff = effects([UserPlan(eps, blocks)], n_days)
        drop = np.zeros(n_days)
        for b in blocks:
            drop[b.start :] = b.resting_hr_drop
        masks = {k: np.asarray(getattr(eff, k)[0] > 0) for k in ("illness", "stress", "travel", "injury")}
        out[uid] = PlantedDays(
            masks, eff.training[0] > 0, -drop * eff.adapted[0], tuple(draws.get(uid, [])), sexes.get(uid, "F")
        )
    return out


def keyed_items(cohort: Cohort, types: Sequence[str] = AUDITED_TYPES, seed: int = 0) -> list[Pending]:
    """Items the build's generation step makes for ``types`` (before answer-class balancing)."""
    contexts = contexts_from_cohort(cohort)
    pool = build_pool(list(contexts.values()), types=types)
    items: list[Pending] = []
    for ctx in contexts.values():
        items.extend(generate_user(UserTask(ctx, tuple(types), seed, pool)).items)
    return items


def readings_table(
    cohort: Cohort, *, types: Sequence[str] = AUDITED_TYPES, seed: int = 0, permute_seed: int = 1
) -> ReadingsTable:
    """PPV against planted truth and noise ratio on a permuted copy, per reading.

    Args:
        cohort: A synthetic cohort with ground truth (e.g. :func:`wearbench.synth`).
        types: Question types to audit.
        seed: Item-generation seed (as ``build --seed``).
        permute_seed: Seed of :func:`permute_cohort`.

    Returns:
        One row per reading keyed on either cohort.

    Raises:
        WearbenchError: If the cohort carries no ground truth.
    """
    planted = planted_days(cohort)
    first = np.datetime64(str(cohort.daily["date"].min())[:10], "D")
    n, judged, hits = Counter[str](), Counter[str](), Counter[str]()
    for item in keyed_items(cohort, types, seed):
        end = int((np.datetime64(item.end_date, "D") - first).astype(int))
        for key in reading_keys(item):
            n[key] += 1
            if key in TRUTH:
                got = TRUTH[key][1](planted[item.user_id], end, item.correct[1])
                judged[key] += got is not None
                hits[key] += bool(got)
    noise = Counter(
        k
        for item in keyed_items(permute_cohort(cohort, permute_seed), types, seed)
        for k in reading_keys(item)
    )
    rows = tuple(
        ReadingRow(k, TRUTH[k][0] if k in TRUTH else "", n[k], judged[k], hits[k], noise[k])
        for k in sorted(set(n) | set(noise))
    )
    gen = (cohort.truth or {}).get("generator", {})
    n_days = int(len(cohort.daily) // max(cohort.n_users, 1))
    return ReadingsTable(rows, cohort.n_users, n_days, gen.get("seed"), seed, permute_seed)
