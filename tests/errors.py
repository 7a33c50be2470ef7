"""bmn's error contract as the tests check it: `error_line(result, code)`; every command
(`COMMANDS`, found by walking the click group) and whether a command line parses.

The `failed` fixture in conftest.py wraps error_line; modules import these by name
(`from errors import COMMANDS, error_line, parses`).
"""

from collections.abc import Iterator

import click
from click.testing import Result

from bmn.frontends.cli.main import cli


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


def leaves(group: click.Group = cli, path: tuple[str, ...] = ()) -> Iterator[tuple]:
    """(path, command) for every command under the group."""
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from leaves(command, (*path, name))
        else:
            yield (*path, name), command


COMMANDS = dict(leaves())


def parses(args: list[str]) -> bool:
    """Whether bmn would accept this command line's options and arguments."""
    ctx = click.Context(cli, info_name="bmn")
    command, rest = cli, list(args)
    try:
        while isinstance(command, click.Group):
            name, command, rest = command.resolve_command(ctx, rest)
            ctx = click.Context(command, info_name=name, parent=ctx)
        with command.make_context(ctx.info_name, rest, parent=ctx.parent):
            return True
    except click.UsageError:
        return False
