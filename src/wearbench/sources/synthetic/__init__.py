"""Realistic, deterministic synthetic cohort: wearbench's embedded default and ground truth.

:func:`synthesize` builds a :class:`~wearbench.cohort.Cohort` whose users have latent
traits (fitness, chronotype, sleep need, stress reactivity, metabolic health, activity
habit, wear diligence) that drive demographics, blood panel and 16 daily metrics
coherently; daily data carry weekly rhythm, annual season, training blocks, acute
episodes, planted lagged couplings, device noise, device changes and missingness.

Randomness: ``np.random.SeedSequence(seed)`` split per population, component and user
(see :mod:`._streams`); no global RNG, no clock. A user's data depend only on the seed,
their index, ``n_days`` and ``start`` — so ``synthesize(n_users=40)`` equals the first 40
users of ``synthesize(n_users=200)`` (same other arguments), whatever the chunk size.

Ground truth (``cohort.truth``; plain JSON types, every list sorted):

* ``generator``: ``{"name": "synthetic", "version": 1, "seed", "n_users", "n_days",
  "reference_users", "reference_days", "start"}``.
* ``traits``: one row per user: ``user_id``, the seven latent z-scores, ``hemisphere``
  (``north``/``south``), ``height_cm``, ``weight_kg`` (at the start), personal baselines
  ``baseline_vo2max`` (mL/kg/min), ``baseline_resting_hr`` (bpm), ``baseline_hrv`` (ms),
  ``baseline_steps`` (median non-exercise steps/day), ``baseline_sleep_minutes``,
  ``baseline_stress``, ``sleep_onset_min`` (minutes after midnight, negative = before) and
  ``exercise_p`` (daily exercise probability).
* ``episodes``: ``user_id``, ``kind`` (``illness`` | ``stress`` | ``travel`` | ``injury``),
  ``start``, ``end`` (ISO dates, inclusive), ``magnitude`` (illness: peak resting-HR rise,
  bpm, 7–16 = 3.5–4.5 personal day-to-day SDs; stress: intensity 0.7–1; travel: sleep-onset
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
  ``beta`` (standardised effect: response-innovation SDs per driver SD; 1.0 for
  definitional), ``kind`` (``empirical``: 2–4 per user from :data:`MENU`;
  ``definitional``: ``steps``/``exercise_minutes`` → ``active_kcal`` and
  ``exercise_minutes`` → ``mets``, lag 0, every user). Sorted by user, driver, response.
  Pearson ``lagged_correlation(driver, response, max_lag=3)`` on the raw recorded daily
  values over a user's whole record (no detrending, no weekly adjustment) recovers the
  planted lag and sign for ≥ 90 % of empirical couplings (99–100 % measured on 40 users ×
  200 days and 200 × 500), with |r| median ≈ 0.57, 5–95 % range ≈ 0.4–0.75. Planted
  effects also show through metrics derived from the driver (``active_kcal`` from
  ``steps``; ``mets`` from ``exercise_minutes``), and exercise adds steps on the same day.
* ``device_changes``: ``user_id``, ``date`` (first day on the new device), ``metrics``
  (``active_kcal``, ``hrv``, ``steps``), ``steps_scale`` (factor), ``hrv_offset_ms``.
* ``non_wear_gaps``: ``user_id``, ``start``, ``end`` of multi-day non-wear gaps (3–20 d).
* ``non_wear_days``: ``{user_id: number of days with every metric missing}``.
"""

from wearbench.sources.synthetic._couplings import DEFINITIONAL, MENU, Edge
from wearbench.sources.synthetic._synthesize import synthesize

__all__ = ["DEFINITIONAL", "MENU", "Edge", "synthesize"]
