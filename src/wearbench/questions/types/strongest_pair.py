"""Which of ten signal pairs is most strongly coupled over the 28-day window (data · cross · window).

Population-grounded. Every menu pair (:data:`ALL_PAIRS`: empirical and definitional) with
enough data in the window is scored by
``lagged_correlation(max_lag=3)`` (its best-lag ``r``). The ten pairs shown are then chosen
per window (:func:`_shown_sets`): an intended winner among the pairs strong enough for the
effect-size gate that beat at least nine other scored pairs by the margin, and nine of those
weaker pairs. Choosing the set from the scored pairs (rather than a fixed random menu) lets
pairs that often win appear as distractors where they are weaker. Both draws are weighted by
a cohort calibration (:meth:`StrongestPair.cohort_distributions`, in
``pool.extra["strongest_pair:winner_weight"]`` and ``["strongest_pair:distractor_weight"]``;
uniform when absent) fitted so that each pair is the answer in about one in ten of the items
that show it, so a pair's wording says little about whether it is the answer.
``argmax_pair(margin=0.15)`` over the ten shown picks the answer. The
item is kept only when the winner passes every gate (:func:`wearbench.grounding.strongest_gates`)
on the ten shown: it beats the runner-up by the margin (outside the margin dead-band), its
``|r|`` passes the effect-size gate and dead-band with the same sign in both halves, it stays
the winner in ≥ 24 of 30 day-bootstrap resamples and under every leave-one-day-out. Up to
``max_tries`` sets are tried per window.

Definitional vs empirical: the menu holds the definitional pairs of
:data:`wearbench.grounding.DEFINITIONAL_PAIRS` (steps ↔ exercise minutes / MET-hours / sessions,
sleep minutes ↔ sleep efficiency, deep ↔ REM share), whose device-made link varies in strength
between people and windows, so they win some windows and lose others like empirical pairs and
the same calibration keeps each at about one answer in ten showings. Near-deterministic links
(:data:`wearbench.grounding.LOCKSTEP_PAIRS`: active calories from steps, MET-hours from
minutes) are not offered: they would win whenever shown, a knowledge shortcut the prior baseline
exploits. Items carry ``pair_kind`` (the winner's kind) so scores are reported separately.
The seeds publish no definitional share; ours is what the calibrated draw and the balancing
leave: 62 of 305 items (20 %) on the default build (200 × 500 synthetic, seed 0). Forcing
definitional winners in 15 or 30 % of windows ended at 20–21 % too: the extra ones are what
the knowledge prior answers, and the balancing drops them. Per kind the prior (definitional
first) is right on 40 of the 62 definitional items and on 0 of the 243 empirical ones, where a
definitional pair it picks is shown and loses (13 % overall): knowing the definitional links
helps on definitional items only, which is the gap the breakdown measures.

Pattern family: ``strongest:<x>-><y>`` of the winning pair; its null test gates the pair's
coupling (effect size, bootstrap, leave-one-day-out) on matched vs mismatched users.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wearbench._labels import Labels
from wearbench.cohort import UserContext
from wearbench.grounding import (
    DEFINITIONAL_PAIRS,
    EMPIRICAL_PAIRS,
    MARGIN_DEAD_BAND,
    MAX_LAG,
    MIN_ABS_R,
    MIN_MARGIN,
    R_DEAD_BAND,
    Pair,
    best_lag_index,
    coupling_null,
    pair_by_name,
    strongest_gates,
    weighted_lag_corr,
)
from wearbench.questions._graph import Graph
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

#: Fewest days with both values for a lag's r to count (stated in the stem).
MIN_OVERLAP = 14
N_CANDIDATES = 10
MIN_COVERAGE = 0.7
#: Days between candidate window ends.
STEP_DAYS = 14
#: The scored menu, also the order of the cohort weight arrays in ``CohortPool.extra``.
ALL_PAIRS: tuple[Pair, ...] = tuple(sorted((*EMPIRICAL_PAIRS, *DEFINITIONAL_PAIRS), key=lambda p: p.name))
WINNER_WEIGHT = "strongest_pair:winner_weight"
DISTRACTOR_WEIGHT = "strongest_pair:distractor_weight"
WIN_RATE = "strongest_pair:win_rate"
#: Share of shown pairs that are the answer (one in ten).
TARGET_RATE = 1 / N_CANDIDATES


def _eligible(best: NDArray[np.float64]) -> tuple[list[int], NDArray[np.bool_], NDArray[np.float64]]:
    """Possible intended winners, finite mask and ``|r|`` of scored pairs."""
    ok = np.isfinite(best)
    mag = np.where(ok, np.abs(best), 0.0)
    gap = MIN_MARGIN + MARGIN_DEAD_BAND
    cands = [
        i
        for i in range(len(best))
        if mag[i] >= MIN_ABS_R + R_DEAD_BAND and int((ok & (mag <= mag[i] - gap)).sum()) >= N_CANDIDATES - 1
    ]
    return cands, ok, mag


def _below(w: int, ok: NDArray[np.bool_], mag: NDArray[np.float64]) -> NDArray[np.intp]:
    """Scored pairs weaker than ``w`` by the margin and its dead-band."""
    return np.flatnonzero(ok & (mag <= mag[w] - MIN_MARGIN - MARGIN_DEAD_BAND))


def _shown_sets(
    pairs: Sequence[Pair],
    best: NDArray[np.float64],
    rng: np.random.Generator,
    winner_weight: NDArray[np.float64] | None = None,
    distractor_weight: NDArray[np.float64] | None = None,
) -> Iterator[list[int]]:
    """Candidate sets of ten (indices into ``pairs``) to try, in a random order.

    The intended winner is drawn among the pairs strong enough for the effect-size gate that
    beat at least nine other scored pairs by the margin (so the window's strongest pair may be
    left out and a weaker one asked about), with probability proportional to
    ``winner_weight``; the nine shown alongside are drawn among those nine or more with
    probability proportional to ``distractor_weight`` (both uniform when ``None``). Every pair
    that can win is then shown as a distractor in the windows where it is weaker, instead of
    losing only to a fixed random menu.
    """
    cands, ok, mag = _eligible(best)
    if not cands:
        return
    order = np.asarray(cands, dtype=np.int64)
    if winner_weight is None:
        order = rng.permutation(order)
    else:
        u = np.asarray(winner_weight, dtype=float)[order]
        order = rng.choice(order, size=order.size, replace=False, p=u / u.sum())
    for w in order:
        below = _below(int(w), ok, mag)
        if distractor_weight is None:
            picks = rng.choice(below, size=N_CANDIDATES - 1, replace=False)
        else:
            v = np.asarray(distractor_weight, dtype=float)[below]
            picks = rng.choice(below, size=N_CANDIDATES - 1, replace=False, p=v / v.sum())
        yield sorted([int(w), *(int(j) for j in picks)])


def _calibrate(
    windows: Sequence[tuple[list[int], NDArray[np.bool_], NDArray[np.float64]]],
    n: int,
    iters: int,
    bounds: tuple[float, float],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Winner and distractor weights making each pair the answer in ~1/10 of the items showing it.

    Fixed-point iteration on the expected number of times each of ``n`` pairs is the intended
    winner (``A``) and a distractor (``D``) over the cohort windows ``(cands, ok, mag)``
    (first try only; distractor inclusion approximated by ``9 v / sum v`` clipped to 1), for
    ``iters`` iterations, the weights kept within ``bounds`` of their geometric mean.
    Returns the winner weights, the distractor weights and each pair's uniform-draw win rate.
    """
    u, v = np.ones(n), np.ones(n)
    belows = [{w: _below(w, ok, mag) for w in cands} for cands, ok, mag in windows]
    win_rate = np.zeros(n)
    for it in range(iters + 1):
        a, d = np.zeros(n), np.zeros(n)
        for (cands, _, _), below in zip(windows, belows, strict=True):
            pu = u[cands] / u[cands].sum()
            for w, pw in zip(cands, pu, strict=True):
                b = below[w]
                incl = np.minimum(1.0, (N_CANDIDATES - 1) * v[b] / v[b].sum())
                a[w] += pw
                d[b] += pw * incl
        if it == 0:
            win_rate = a / max(len(windows), 1)
        if it == iters:
            break
        wins = a > 0
        rate = np.where(wins, a / np.maximum(a + d, 1e-12), 0.0)
        step = np.sqrt(np.where(wins, rate / TARGET_RATE, 0.5))
        v = v * step
        u = np.where(wins, u / np.maximum(step, 1e-12), u)
        u, v = (np.clip(x / np.exp(np.log(x).mean()), *bounds) for x in (u, v))
    return u, v, win_rate


def _menu_weights(
    menu: Sequence[Pair], pool: CohortPool
) -> tuple[NDArray[np.float64] | None, NDArray[np.float64] | None]:
    """The pool's calibrated winner and distractor weights for ``menu`` (``None``: uniform)."""
    index = {p.name: i for i, p in enumerate(ALL_PAIRS)}
    out: list[NDArray[np.float64] | None] = []
    for key in (WINNER_WEIGHT, DISTRACTOR_WEIGHT):
        w = pool.extra.get(key)
        if w is None or len(w) != len(ALL_PAIRS):
            out.append(None)
        else:
            out.append(np.asarray([float(w[index[p.name]]) for p in menu]))
    return out[0], out[1]


_GATE_ORDER = (
    "effect_size",
    "r_dead_band",
    "split_half_sign",
    "margin",
    "margin_dead_band",
    "bootstrap",
    "lodo",
)


def _first_failed(checks: Mapping[str, bool]) -> str:
    return next((k for k in _GATE_ORDER if not checks.get(k, True)), "definition")


#: One calibration window: eligible pair indices, gate passes and magnitudes per menu pair.
_Window = tuple[list[int], np.ndarray, np.ndarray]


@question()
@dataclass(frozen=True)
class StrongestPair(QuestionType):
    """Strongest lagged coupling among ten candidate signal pairs.

    Attributes:
        max_tries: Candidate sets tried per window before the window is dropped.
        calibration_windows: Latest candidate windows per user the cohort calibration scores.
        calibration_iters: Fixed-point iterations of the calibration.
        calibration_max_windows: Windows the calibration fits, the first users' in sorted
            order (4,000: all windows of the first 500 users). The fit is a Python loop in the
            build's main process, linear in windows; beyond a few thousand windows the weights
            hardly move, and a 20,000-user cohort spent minutes there with every worker idle.
        weight_bounds: Bounds of the calibrated weights, relative to their geometric mean.
    """

    max_tries: int = 3
    calibration_windows: int = 8
    calibration_iters: int = 60
    calibration_max_windows: int = 4000
    weight_bounds: tuple[float, float] = (1e-3, 1e3)

    name = "strongest_pair"
    version = 5
    labels = Labels("data", "cross", "population", "window")
    end_step = STEP_DAYS
    max_per_user = 2

    def _score(
        self, ctx: UserContext, end: int, menu: Sequence[Pair]
    ) -> tuple[list[Pair], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """Menu pairs with enough data in the window, their spans and best-lag ``r``."""
        spans = {m: ctx.span(m, end, self.window_days) for p in menu for m in (p.x, p.y)}
        kept = [
            p
            for p in menu
            if min(np.isfinite(spans[p.x]).mean(), np.isfinite(spans[p.y]).mean()) >= MIN_COVERAGE
        ]
        if len(kept) < N_CANDIDATES:
            raise Drop("too few days present in the window")
        xs = np.stack([spans[p.x] for p in kept])
        ys = np.stack([spans[p.y] for p in kept])
        r = weighted_lag_corr(xs, ys, np.ones((1, xs.shape[-1])), max_lag=MAX_LAG, min_overlap=MIN_OVERLAP)[
            :, 0
        ]
        _, best_r = best_lag_index(r, MAX_LAG)
        return kept, xs, ys, best_r

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Score the menu, show ten pairs and ask which one is most strongly coupled."""
        menu, xs, ys, best_r = self._score(ctx, end, ALL_PAIRS)
        uw, dw = _menu_weights(menu, pool)
        winner, gates, pairs = None, None, []
        for tries, shown in enumerate(_shown_sets(menu, best_r, rng, uw, dw)):
            if tries >= self.max_tries:
                break
            pairs = [menu[i] for i in shown]
            winner, gates = strongest_gates(xs[shown], ys[shown], [p.name for p in pairs], rng)
            if winner is not None and gates.passed:
                break
        if gates is None:
            raise Drop("no pair beats nine others by the margin")
        if winner is None or not gates.passed:
            raise Drop(f"winner fails the {_first_failed(gates.checks)} gate")
        g = Graph(ctx, str(ctx.dates[end]))
        scores = {}
        for p in pairs:
            lc = g.call(
                "lagged_correlation",
                g.series(p.x, self.window_days),
                g.series(p.y, self.window_days),
                max_lag=MAX_LAG,
                min_overlap=MIN_OVERLAP,
            )
            scores[p.name] = lc["best_r"]
        best = g.call("argmax_pair", scores, margin=MIN_MARGIN)
        g.output("winner", best["winner"])
        g.output("decisive", best["decisive"])
        if best.value.winner != winner or not best.value.decisive:
            raise Drop("primitive and gate kernel disagree")
        options = [Option(p.label(), {"pair": p.name}) for p in pairs]
        correct = next(o for o in options if o.claim["pair"] == winner)
        text = (
            f"Over the 28 days ending {g.end_date}, which of these signal pairs is most strongly coupled "
            f"in this user's data? (For each pair, the largest |Pearson r| between the first signal on "
            f"day t and the second on day t + lag, lags −{MAX_LAG} … +{MAX_LAG} days; a lag counts only "
            f"with at least {MIN_OVERLAP} days where both values are present.)"
        )
        return Draft(
            text,
            correct,
            tuple(o for o in options if o is not correct),
            g,
            tuple(dict.fromkeys(m for p in pairs for m in (p.x, p.y))),
            grounding_ref=f"strongest:{winner}",
            pair_kind=pair_by_name(winner).kind,
            gates=gates.to_dict(),
            variant=winner,
        )

    def cohort_summary(self, contexts: Sequence[UserContext]) -> list[_Window]:
        """Per candidate window of these users: eligible pairs, gate passes, magnitudes.

        Scores the menu on the latest ``calibration_windows`` candidate windows of each user
        (no gates), pairs aligned with :data:`ALL_PAIRS`.
        """
        menu = ALL_PAIRS
        index = {p.name: i for i, p in enumerate(ALL_PAIRS)}
        windows = []
        for ctx in contexts:
            for end in self.end_dates(ctx)[: self.calibration_windows]:
                try:
                    kept, _, _, best_r = self._score(ctx, end, menu)
                except Drop:
                    continue
                cands, ok, mag = _eligible(best_r)
                at = np.asarray([index[p.name] for p in kept])
                full_ok = np.zeros(len(ALL_PAIRS), dtype=bool)
                full_mag = np.zeros(len(ALL_PAIRS))
                full_ok[at], full_mag[at] = ok, mag
                windows.append(([int(at[i]) for i in cands], full_ok, full_mag))
        return windows

    def cohort_distributions_from(self, summaries: Sequence[list[_Window]]) -> dict[str, np.ndarray]:
        """Calibrated winner and distractor weights per pair (aligned with :data:`ALL_PAIRS`).

        Fits the weights with :func:`_calibrate` over every user's windows. The weights only
        choose which ten pairs are shown; the answer is still decided by the graph on those ten.
        """
        windows = [w for part in summaries for w in part][: self.calibration_max_windows]
        u, v, rate = _calibrate(windows, len(ALL_PAIRS), self.calibration_iters, self.weight_bounds)
        return {WINNER_WEIGHT: u, DISTRACTOR_WEIGHT: v, WIN_RATE: rate}

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The claimed pair is the decisive winner of ``argmax_pair``."""
        return bool(evidence["decisive"] and claim["pair"] == evidence["winner"])

    def null_statistics(
        self, contexts: Sequence[UserContext], rng: np.random.Generator
    ) -> Mapping[str, Mapping[str, float]]:
        """Coupling gates of each menu pair on matched vs mismatched users (``strongest:x->y``)."""
        return coupling_null(
            contexts, ALL_PAIRS, "strongest", rng, window_days=self.window_days, lag_margin=False
        )
