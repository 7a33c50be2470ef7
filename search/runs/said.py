"""Messages that name settings, said in each front end's words from one structure.

A refusal or a note is written once, as `Words`: plain text with the settings it names
(`Named`) and any command to resume a run (`Resume`) left as parts. The command line says
them as options (`--keep-above`, `--objective loop or grow`, `bmn search --resume 3 --store
x.sqlite`), the library as Python (`keep_above`, `objective='loop' or 'grow'`, `search(store,
resume=3)`). Nothing rewrites text after the fact. Plain Python: `bmn --help` reads it.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass

from bmn.records.store import DEFAULT_PATH

# Settings whose command-line option is not their name with dashes.
FLAGS = {"seconds": "--time"}


def flag(name: str) -> str:
    """A setting's command-line option: 'keep_above' is '--keep-above', 'seconds' '--time'."""
    return FLAGS.get(name) or "--" + name.replace("_", "-")


def store_option(store: str) -> str:
    """' --store PATH' for a command line that must reach this store; '' for the default."""
    return "" if store == DEFAULT_PATH else f" --store {shlex.quote(store)}"


def rules_option(rules: str) -> str:
    """' --rules NAME' for a command line that lists what a run under `rules` stored; '' for
    bmn's rules."""
    return "" if rules == "bmn" else f" --rules {rules}"


def resume_command(run: int, store: str) -> str:
    """The command that resumes a run."""
    return f"bmn search --resume {run}{store_option(store)}"


@dataclass(frozen=True)
class Named:
    """A setting named in a message (its Python name), with the choices given it there:
    `Named('objective', ('loop', 'grow'))` is '--objective loop or grow' on the command line
    and "objective='loop' or 'grow'" in Python."""

    name: str
    values: tuple[str, ...] = ()

    def cli(self) -> str:
        return " ".join([flag(self.name), " or ".join(self.values)]).strip()

    def python(self) -> str:
        if not self.values:
            return self.name
        return f"{self.name}=" + " or ".join(repr(v) for v in self.values)


@dataclass(frozen=True)
class Resume:
    """The command that resumes run `run` of store `store`."""

    run: int
    store: str

    def cli(self) -> str:
        return resume_command(self.run, self.store)

    def python(self) -> str:
        return f"search(store, resume={self.run})"


def named(name: str, *values: str) -> Named:
    """A setting named in a message, with the choices given it (none: the setting alone)."""
    return Named(name, tuple(values))


class Words:
    """A message of plain text, settings named and resume commands, in that order."""

    def __init__(self, *parts: str | Named | Resume | Words):
        self.parts: tuple[str | Named | Resume, ...] = tuple(_flat(parts))

    def cli(self) -> str:
        """In the command line's words."""
        return "".join(p if isinstance(p, str) else p.cli() for p in self.parts)

    def python(self) -> str:
        """In Python's words."""
        return "".join(p if isinstance(p, str) else p.python() for p in self.parts)

    def __str__(self) -> str:
        return self.cli()

    def __repr__(self) -> str:
        return f"Words({self.cli()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Words) and other.parts == self.parts

    def __hash__(self) -> int:
        return hash(self.parts)


def _flat(parts: Iterable[str | Named | Resume | Words]) -> Iterable[str | Named | Resume]:
    for part in parts:
        if isinstance(part, Words):
            yield from part.parts
        else:
            yield part


def in_python(message: str | Words) -> str:
    """A message as the library says it."""
    return message.python() if isinstance(message, Words) else message


def on_command_line(message: str | Words) -> str:
    """A message as the command line says it."""
    return message.cli() if isinstance(message, Words) else message
