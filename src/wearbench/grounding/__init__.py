"""Grounding: literature cards and population patterns with statistical gates (WearableQA §3.3)."""

# --- literature cards (grounding/_cards.py) ---
from wearbench.grounding._cards import (
    Card,
    CardError,
    Study,
    card,
    cards_markdown,
    load_card_file,
    load_cards,
    load_cards_from,
)

__all__ = [
    "Card",
    "CardError",
    "Study",
    "card",
    "cards_markdown",
    "load_card_file",
    "load_cards",
    "load_cards_from",
]
# --- end literature cards ---

# --- population gates (grounding/_gates.py and the other private modules but _cards.py) ---
from wearbench.grounding._concordance import (
    BIN_DEAD_BAND,
    POLARITY,
    R_EDGES,
    concordance_gates,
    concordance_label,
    concordance_pass_batch,
)
from wearbench.grounding._conditional import (
    EFFECT_DEAD_BAND,
    EFFECT_EDGES,
    conditional_gates,
    conditional_label,
    conditional_pass_batch,
    conditional_prefilter,
)
from wearbench.grounding._coupling import (
    MAX_LAG,
    CouplingOutcome,
    coupling_gates,
    coupling_pass_batch,
    effect_prefilter,
    strongest_gates,
)
from wearbench.grounding._families import coupling_null, family_null, window_stacks
from wearbench.grounding._gates import (
    MARGIN_DEAD_BAND,
    MAX_FDR,
    MIN_ABS_R,
    MIN_MARGIN,
    MIN_REPRODUCE,
    N_RESAMPLES,
    R_DEAD_BAND,
    GateResult,
    NullResult,
    bootstrap_gate,
    combine,
    derangement,
    effect_size_gate,
    lodo_gate,
    margin_gate,
    null_test,
    stability_gate,
)
from wearbench.grounding._kernels import best_lag_index, bootstrap_weights, lodo_lag_corr, weighted_lag_corr
from wearbench.grounding._pairs import DEFINITIONAL_PAIRS, EMPIRICAL_PAIRS, LOCKSTEP_PAIRS, Pair, pair_by_name
from wearbench.grounding._spread import position_weights, spread_window

__all__ += [
    "BIN_DEAD_BAND",
    "DEFINITIONAL_PAIRS",
    "EFFECT_DEAD_BAND",
    "EFFECT_EDGES",
    "EMPIRICAL_PAIRS",
    "LOCKSTEP_PAIRS",
    "MARGIN_DEAD_BAND",
    "MAX_FDR",
    "MAX_LAG",
    "MIN_ABS_R",
    "MIN_MARGIN",
    "MIN_REPRODUCE",
    "N_RESAMPLES",
    "POLARITY",
    "R_DEAD_BAND",
    "R_EDGES",
    "CouplingOutcome",
    "GateResult",
    "NullResult",
    "Pair",
    "best_lag_index",
    "bootstrap_gate",
    "bootstrap_weights",
    "combine",
    "concordance_gates",
    "concordance_label",
    "concordance_pass_batch",
    "conditional_gates",
    "conditional_label",
    "conditional_pass_batch",
    "conditional_prefilter",
    "coupling_gates",
    "coupling_null",
    "coupling_pass_batch",
    "derangement",
    "effect_prefilter",
    "effect_size_gate",
    "family_null",
    "lodo_gate",
    "lodo_lag_corr",
    "margin_gate",
    "null_test",
    "pair_by_name",
    "position_weights",
    "spread_window",
    "stability_gate",
    "strongest_gates",
    "weighted_lag_corr",
    "window_stacks",
]
# --- end population gates ---
