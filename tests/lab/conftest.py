"""The lab's tests (lab/: research, method comparisons, diagnostics; not installed): each one
marked `lab`, and `slow`, so that CI runs them in its slow tier and the fast tier leaves them
out."""

from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.lab)
            item.add_marker(pytest.mark.slow)
