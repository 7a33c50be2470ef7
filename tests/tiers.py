"""Tests in two sizes: a quick one in the fast tier and the whole one in the slow tier.

The fast tier keeps a quick check of each capability (docs/development.md, "Tests"); where a
test's cost is its number of cases (values tried, hypothesis examples), the fast tier tries a
few and the slow tier all of them, through the same test body: `sizes` for a parameter,
`diagonal` for a product, `properties` for a hypothesis test.
"""

from collections.abc import Callable

import pytest
from hypothesis import given, settings


def sizes(quick: object, whole: object) -> list:
    """Parameters for `@pytest.mark.parametrize`: `quick` in the fast tier, `whole` marked slow."""
    return [
        pytest.param(quick, id="quick"),
        pytest.param(whole, id="whole", marks=pytest.mark.slow),
    ]


def diagonal(rows: list, columns: list) -> list:
    """Every pair of `rows` and `columns` as parameters: in the fast tier each row meets one
    column (in turn, so every column is met too), the rest of the product in the slow tier."""
    return [
        pytest.param(row, column, marks=() if j == i % len(columns) else pytest.mark.slow)
        for i, row in enumerate(rows)
        for j, column in enumerate(columns)
    ]


def properties(quick: int, whole: int, *strategies: object, **named: object) -> Callable:
    """`@properties(quick, whole, *strategies)` in place of `@settings(max_examples=...)` and
    `@given(*strategies)` on a property test that takes no fixtures: the property is tried on
    `quick` examples in the fast tier and on `whole` in the slow tier (test ids quick, whole),
    through the same body and the same derandomised examples."""

    def decorate(body: Callable) -> Callable:
        def test(examples: int) -> None:
            settings(max_examples=examples)(given(*strategies, **named)(body))()

        test.__name__, test.__qualname__, test.__doc__ = (
            body.__name__,
            body.__qualname__,
            body.__doc__,
        )
        test.__module__ = body.__module__
        return pytest.mark.parametrize("examples", sizes(quick, whole))(test)

    return decorate
