"""Deals on the command line: hands as arguments (a bare '--' ends the options), read as
`bmn play` reads them; a deal of the standard deck's court cards with other than 36 numerals
refused unless --any-deck says it is meant, and the warning for a deal that is not the
standard deck."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from typing import Any

import click

from bmn.kernels.api import (
    HANDS_JOINED,
    Deal,
    DealError,
    not_standard_warning,
    parse_hand,
    parse_typed,
    unmeant_deck,
)

# -- deals on the command line ---------------------------------------------------------------

DASHES = "bmn.dashes"  # ctx.meta key: the arguments after a bare '--', when one was given
ANY_DECK = "bmn.any_deck"  # ctx.meta key: --any-deck was given


class HandCommand(click.Command):
    """A command whose arguments are hands. Hands in record notation start with '-', so an
    argument that is no option of the command is kept as a hand (read_deal sorts out the ones
    that are neither), and a bare '--' (click's end of options) is noted: before every hand
    it ends the options (`bmn play -- -J Q-`); after a hand it may be meant as a hand of two
    numerals, which click drops, so read_deal explains it."""

    def __init__(self, *args: Any, **kwargs: Any):
        settings = kwargs.setdefault("context_settings", {})
        settings.setdefault("ignore_unknown_options", True)
        super().__init__(*args, **kwargs)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            ctx.meta[DASHES] = len(args) - args.index("--") - 1
        return super().parse_args(ctx, args)


HANDS_ARGUMENT = click.argument("hands", nargs=-1, required=True, metavar="HAND...")
# parse_deal's advice for a wrong number of hands, in the command line's words
ARGUMENTS_WORDS = "give them as separate arguments or join them with '/'"


def in_cli_words(message: str) -> str:
    """A deal's refusal as the command line says it: hands are its arguments."""
    return message.replace(HANDS_JOINED, ARGUMENTS_WORDS)


def _note_any_deck(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    ctx.meta[ANY_DECK] = value
    return value


# Kept in ctx.meta, not passed to the command: read_deal and `score` read it.
ANY_DECK_OPTION = click.option(
    "--any-deck",
    is_flag=True,
    expose_value=False,
    callback=_note_any_deck,
    help="Take a deal of the standard deck's 16 court cards with more or fewer than 36"
    " numerals (51, 53 cards...), refused otherwise as the slip it usually is.",
)


# A table's deals (`score`, `records import`): one deck a table, its first deal's.
TABLE_ANY_DECK_OPTION = click.option(
    "--any-deck",
    is_flag=True,
    expose_value=False,
    callback=_note_any_deck,
    help="Take deals of several decks in one table. Without it every deal is of the table's"
    " deck (its first deal's, or the deck_counts its row names) and a deal of another is"
    " refused as the slip it usually is (a card dropped, a number read as cards); so is a"
    " first deal of the standard deck's court cards with other than 36 numerals.",
)


def any_deck() -> bool:
    """Whether the command was given --any-deck."""
    return bool(click.get_current_context().meta.get(ANY_DECK))


def any_deck_words(problem: str) -> str:
    """decks.unmeant_deck's words, with the way to say the deck is meant."""
    return f"{problem}; give --any-deck if this deck is meant"


def table_deck_words(problem: str) -> str:
    """A table's deal of another deck, with the way to say several decks are meant."""
    return f"{problem}; give --any-deck if the table holds several decks, or this deck is meant"


# A long option as people type them: --json, --limit-cards, --hand-sizes=26,26.
_LONG_OPTION = re.compile(r"--[a-zA-Z]{2,}(-[a-zA-Z0-9]+)*(=.*)?", re.DOTALL)


def read_deal(hands: Sequence[str]) -> Deal:
    """Parse HAND... arguments: a usage error for notation errors, unknown options, a bare
    '--', a suited card given twice and (without --any-deck) the standard deck's court cards
    with other than 36 numerals; one warning on stderr for a deal that is not the standard
    52-card deck."""
    ctx = click.get_current_context()
    after = ctx.meta.get(DASHES)  # the hands after a '--': hands, whatever they look like
    if after is not None and after != len(hands):  # a hand came before the '--'
        raise click.BadParameter(
            "a bare '--' is read as the end of options, not as a hand of two numerals;"
            " join the deal with '/' instead, as in '-J/--/Q-'",
            ctx,
            param_hint="HAND...",
        )
    for text in hands[: len(hands) - (after or 0)]:
        if text.startswith("-"):
            check_option(ctx, text)
    try:
        deal = parse_typed(hands, typed=True)  # an empty hand only as '.': no stray '/'
    except DealError as err:
        raise click.BadParameter(in_cli_words(str(err)), ctx, param_hint="HAND...") from err
    problem = unmeant_deck(v for hand in deal for v in hand)
    if problem is not None and not any_deck():
        raise click.BadParameter(any_deck_words(problem), ctx, param_hint="HAND...")
    warn_if_not_standard(deal)
    return deal


def check_option(ctx: click.Context, text: str) -> None:
    """Refuse an argument that is not a hand but looks like an option: click's 'no such
    option', with the command's option it most resembles."""
    try:
        for part in text.split("/"):
            parse_hand(part)
        return  # a hand after all
    except DealError:
        pass
    name = text.split("=", 1)[0]
    options = [opt for p in ctx.command.get_params(ctx) for opt in (*p.opts, *p.secondary_opts)]
    if name == "--debug":
        raise click.NoSuchOption(name, ctx=ctx)  # the group explains where --debug goes
    if _LONG_OPTION.fullmatch(text) or difflib.get_close_matches(name, options):
        raise click.NoSuchOption(name, possibilities=options, ctx=ctx)


def warn_if_not_standard(deal: Deal) -> None:
    """One warning line on stderr, at most once per command."""
    warning = not_standard_warning([v for hand in deal for v in hand])
    ctx = click.get_current_context(silent=True)
    if warning is None or (ctx is not None and ctx.meta.get("bmn.warned")):
        return
    if ctx is not None:
        ctx.meta["bmn.warned"] = True
    from bmn.frontends.output.wrap import fit, stderr_width

    click.echo(fit(warning, stderr_width()), err=True)
