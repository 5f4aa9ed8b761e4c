"""Realistic, deterministic synthetic cohort: wearbench's embedded default and ground truth.

:func:`synthesize` builds a :class:`~wearbench.cohort.Cohort` whose users have latent
traits (fitness, chronotype, sleep need, stress reactivity, metabolic health, activity
habit, wear diligence) that drive demographics, blood panel and 16 daily metrics
coherently; daily data carry weekly rhythm, annual season, training blocks, acute
episodes, planted lagged couplings, day-to-day persistence, device noise, device
changes and missingness.

Persistence: the day-to-day deviations of resting HR, HRV, sleep minutes, sleep
efficiency, stress and steps follow a stationary AR(1) state per user (coefficient
drawn uniformly per user and metric from :data:`._config.PERSISTENCE`: resting HR
0.35–0.75, HRV 0.30–0.70, sleep minutes and stress 0.10–0.40, sleep efficiency
0.05–0.35, steps 0.05–0.25), with unit stationary variance so each metric's day-to-day
SD is what it would be without persistence. Measured on the recorded data (200 users ×
500 days, seed 0; lag-1 autocorrelation of the value minus the user's mean on that
weekday, median over users): resting HR ≈ 0.55, HRV ≈ 0.48, sleep minutes ≈ 0.27,
stress ≈ 0.27, sleep efficiency ≈ 0.21, steps ≈ 0.17; exercise and sleep stages stay
close to white (≈ 0.02–0.03).

Randomness: ``np.random.SeedSequence(seed)`` split per population, component and user
(see :mod:`._streams`); no global RNG, no clock. A user's data depend only on the seed,
their index, ``n_days`` and ``start`` — so ``synthesize(n_users=40)`` equals the first 40
users of ``synthesize(n_users=200)`` (same other arguments), whatever the chunk size.

Ground truth (``cohort.truth``; plain JSON types, every list sorted):

* ``generator``: ``{"name": "synthetic", "version": 2, "seed", "n_users", "n_days",
  "reference_users", "reference_days", "start"}``.
* ``traits``: one row per user: ``user_id``, the seven latent z-scores, ``hemisphere``
  (``north``/``south``), ``height_cm``, ``weight_kg`` (at the start), personal baselines
  ``baseline_vo2max`` (mL/kg/min), ``baseline_resting_hr`` (bpm), ``baseline_hrv`` (ms),
  ``baseline_steps`` (median non-exercise steps/day), ``baseline_sleep_minutes``,
  ``baseline_stress``, ``sleep_onset_min`` (minutes after midnight, negative = before),
  ``exercise_p`` (daily exercise probability) and ``ar1_resting_hr``, ``ar1_hrv``,
  ``ar1_sleep_minutes``, ``ar1_sleep_efficiency``, ``ar1_stress``, ``ar1_steps`` (the
  user's AR(1) persistence coefficient of that metric's day-to-day deviation).
* ``episodes``: ``user_id``, ``kind`` (``illness`` | ``stress`` | ``travel`` | ``injury``),
  ``start``, ``end`` (ISO dates, inclusive), ``magnitude`` (illness: peak resting-HR rise,
  bpm, 7–16 = 3.5–4.5 personal day-to-day SDs: a 1.5-SD rise over the trailing 28-day
  mean marks 99–100 % of illnesses, missing one only when a persistent low resting-HR
  run coincides with it; stress: intensity 0.7–1; travel: sleep-onset
  shift, minutes, ±90–360; injury: severity 0.6–1). Sorted by user, start. Episodes never overlap, start on or
  after day 35 and have ≥ 28 clean days between them; no multi-day non-wear gap falls in
  an episode or the 28 days before it. Effects: illness 3–10 d (resting
  HR up, HRV −25 %, sleep +1 h, steps −50 %, stress +15, almost no exercise); stress
  2–4 wk (stress +18, sleep efficiency −5, HRV −14 %, sleep −25 min, more irregular
  bedtime); travel 3–10 d (sleep onset shifted, bedtime irregularity ×2, sleep −30 min,
  efficiency −4); injury 2–6 wk (exercise −90 %, steps −45 %, resting HR +1–2.5 bpm,
  VO2max down, recovering over the episode).
* ``training_blocks``: ``user_id``, ``start``, ``end``, ``vo2max_gain`` (mL/kg/min),
  ``resting_hr_drop`` (bpm) at full adaptation (time constant 21 days; detraining after).
* ``couplings``: ``user_id``, ``driver``, ``response``, ``lag_days`` (driver leads: the
  response on day ``t + lag`` moves with the driver on day ``t``), ``sign`` (+1/−1),
  ``beta`` (standardised effect: response-innovation SDs per driver-innovation SD; 1.0
  for definitional), ``kind`` (``empirical``: 2–4 per user from :data:`MENU`;
  ``definitional``: ``steps``/``exercise_minutes`` → ``active_kcal`` and
  ``exercise_minutes`` → ``mets``, lag 0, every user). Sorted by user, driver, response.
  An empirical coupling acts through the driver's white innovation (a persistent
  driver's own noise, an exercise driver's daily series) on the response's innovation;
  a persistent response carries it on, so ``corr(driver[t], response[t + L])`` peaks at
  the planted lag and decays after it roughly as ``ar1_<response> ** (L - lag)``.
  Pearson ``lagged_correlation(driver, response, max_lag=3)`` on the raw recorded daily
  values over a user's whole record (no detrending, no weekly adjustment) recovers the
  planted lag and sign for ≥ 90 % of empirical couplings (measured: 99.8–100 % on
  200 users × 500 days, seeds 0–3 and 7; 97–100 % on 40 × 200, seeds 0–2; 96 % on
  150 × 120), with |r| median ≈ 0.50, 5–95 % range ≈ 0.3–0.7. Planted effects also show
  through metrics derived from the driver (``active_kcal`` from ``steps``; ``mets`` from
  ``exercise_minutes``), and exercise adds steps on the same day.
* ``device_changes``: ``user_id``, ``date`` (first day on the new device), ``metrics``
  (``active_kcal``, ``hrv``, ``steps``), ``steps_scale`` (factor), ``hrv_offset_ms``.
* ``non_wear_gaps``: ``user_id``, ``start``, ``end`` of multi-day non-wear gaps (3–20 d).
* ``non_wear_days``: ``{user_id: number of days with every metric missing}``.

Minute data: :func:`synthesize_minutes` expands the same users to the 19 OpenMHC minute
channels (rules in :mod:`._minutes` and ``docs/openmhc-data.md``).
"""

from wearbench.sources.synthetic._couplings import DEFINITIONAL, MENU, Edge
from wearbench.sources.synthetic._episodes import Episode, TrainingBlock, UserPlan, effects
from wearbench.sources.synthetic._minutes import (
    MINUTE_GENERATOR,
    MINUTE_GENERATOR_VERSION,
    MinuteParams,
    expand_user,
    minute_users,
    synthesize_minutes,
)
from wearbench.sources.synthetic._sharded import synthesize_sharded
from wearbench.sources.synthetic._synthesize import synthesize

__all__ = [
    "DEFINITIONAL",
    "MENU",
    "MINUTE_GENERATOR",
    "MINUTE_GENERATOR_VERSION",
    "Edge",
    "Episode",
    "MinuteParams",
    "TrainingBlock",
    "UserPlan",
    "effects",
    "expand_user",
    "minute_users",
    "synthesize",
    "synthesize_minutes",
    "synthesize_sharded",
]
