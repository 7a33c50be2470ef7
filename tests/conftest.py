"""Shared fixtures and hypothesis settings for the bmn test suite.

Shared deals (the published records, tiny decks) are plain constants in samples.py.
"""

import os
from collections.abc import Callable

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, settings

from bmn.search.cli import cli

settings.register_profile(
    "bmn",
    deadline=None,
    derandomize=True,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "bmn"))


@pytest.fixture
def bmn() -> Callable[..., Result]:
    """Run a bmn command in this process: `bmn("play", "-J/Q-", input=..., env=...)` gives
    click's Result (exit_code, stdout and stderr apart). Paths and numbers may be passed as
    they are."""

    def invoke(*args: object, input: str | None = None, env: dict | None = None) -> Result:
        return CliRunner().invoke(cli, [str(arg) for arg in args], input=input, env=env)

    return invoke
