"""Suite-wide settings: property tests are derandomised so every run checks the same cases."""

from hypothesis import settings

settings.register_profile("wearbench", derandomize=True, deadline=None, database=None)
settings.load_profile("wearbench")
