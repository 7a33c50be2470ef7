"""Tests in two sizes: a quick one in the fast tier and the whole one in the slow tier.

The fast tier keeps a quick check of each capability (docs/development.md, "Tests"); where a
test's cost is its number of cases (values tried, hypothesis examples), the fast tier tries a
few and the slow tier all of them, through the same test body.
"""

import pytest


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
