"""OpenMHC tracks over minute-level data: preprocessing, masking and imputation."""

from wearbench.tracks._masking import (
    MASKING_APPROACHES,
    MaskingApproach,
    apply_mask,
    draw_masks,
    intensity_failure,
    masking_approach,
    random_noise,
    signal_slice,
    sleep_gap,
    temporal_slice,
    temporal_slice_blocks,
    workout_gap,
)

__all__ = [
    "MASKING_APPROACHES",
    "MaskingApproach",
    "apply_mask",
    "draw_masks",
    "intensity_failure",
    "masking_approach",
    "random_noise",
    "signal_slice",
    "sleep_gap",
    "temporal_slice",
    "temporal_slice_blocks",
    "workout_gap",
]
