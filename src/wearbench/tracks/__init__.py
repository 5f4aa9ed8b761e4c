"""OpenMHC tracks over minute-level data: preprocessing, masking and imputation."""

__all__: list[str] = []
