"""Fixtures the run tests share."""

import pytest

from bmn.search.runs.kinds import every_base as every


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 100 deals, a commit after each: many chunks and interim bests, whatever the
    machine's speed."""
    monkeypatch.setattr(every, "FIRST_CHUNK", 100)
    monkeypatch.setattr(every, "LEAST_CHUNK", 100)
    monkeypatch.setattr(every, "CHUNK_SECONDS", 1e-9)
    monkeypatch.setattr(every, "COMMIT_SECONDS", 0.0)
