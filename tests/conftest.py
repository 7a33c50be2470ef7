"""Shared fixtures and hypothesis settings for the bmn test suite."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "bmn",
    deadline=None,
    derandomize=True,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "bmn"))
