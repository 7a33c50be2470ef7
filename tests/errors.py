"""bmn's error contract as the tests check it: `error_line(result, code)`.

The `failed` fixture in conftest.py wraps it; modules import it by name
(`from errors import error_line`) where a fixture does not fit.
"""

from click.testing import Result


def error_line(result: Result, code: int) -> str:
    """The error of a failed command, checked against bmn's error contract: exit status
    `code`, no traceback, and stderr ending in one line `Error: ...`, then, for a usage
    error, one line `Try 'bmn ... --help' for help.` (warnings and progress may come before).
    Returns the error line."""
    assert result.exit_code == code, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.strip().splitlines()
    if lines and lines[-1].startswith("Try 'bmn"):
        assert lines[-1].endswith(" --help' for help."), lines[-1]
        lines.pop()
    assert lines and lines[-1].startswith("Error: "), result.stderr
    assert sum(line.startswith("Error: ") for line in lines) == 1, result.stderr
    return lines[-1]
