"""One deal, one reading: the same deal text given to every surface that reads deals (the
library's play, score_deals and cycle; `bmn play`, `bmn score` and `bmn loop`; the web page's
replay) is either played to the same result everywhere or refused everywhere with the same
DealError. A stray '/' ('-J/Q-/', '/-J/Q-') and a hand with nothing written in it are refused on
every surface; an empty hand is written '.'.

A surface that reads a line or a form field (`bmn score`, the web page) reads it stripped of
spaces at its ends, so its refusal is the library's for the stripped text; a text that is blank
once stripped names no deal there (a blank line is skipped, the page asks for a deal), so the
property draws texts that are not. The page's form takes a deal as the README writes it too:
a text with no '/' is split at its spaces, as a shell splits `bmn play`'s arguments, so the
page reads what the library reads for those hands, and words a wrong number of hands for the
form rather than the command line.
"""

from __future__ import annotations

import asyncio
import html
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from samples import CASELLA
from tiers import sizes

import bmn.kernels as game
from bmn.frontends.serve import pages
from bmn.records.store import Store

FIELDS = ("status", "cards", "tricks", "winner")
LOOP_FIELDS = ("period_cards", "period_tricks")

# Slips people make and forms the notation allows, beside the drawn ones.
TEXTS = [
    *("-J/Q-/", "/-J/Q-", "-J/Q-/.", "-J//Q-", "-J/ /Q-", "-J/Q-/ ", " -J/Q- ", "./-J/Q-"),
    *("-J Q-", "-J/Q-/./.", "././.", "./.", "-J/./Q-/.", "AS 3H/QD 10C", "AS AS/Q-", "-Z/Q-"),
    *("-J;Q-/Q,-", "J--/-J-/-J-", "2 TA/.", "-J/Q-//", "//", "-J", "-J/Q-/-/-/-", CASELLA),
]
HAND = st.text(alphabet="-JQKA", max_size=5) | st.sampled_from([".", "", " ", "2 TA", "AS", "x"])
DEALS = st.sampled_from(TEXTS) | st.lists(HAND, min_size=1, max_size=5).map("/".join)


def outcome(read: str | list[str]) -> dict | str:
    """The library's reading of a text: the result's fields, or the DealError's message."""
    try:
        result = game.play(read).as_dict()
    except game.DealError as err:
        return str(err)
    return {key: result[key] for key in (*FIELDS, *LOOP_FIELDS) if key in result}


def same(found: dict, expected: dict) -> dict:
    return {key: found.get(key) for key in expected}


@pytest.fixture(scope="module")
def replay_page(tmp_path_factory):
    """get(deal text) -> (status, page) from the web page's replay route, in this process."""
    from bmn.frontends.serve.server import app

    path = tmp_path_factory.mktemp("one-reading") / "records.sqlite"
    Store(path).close()
    datasette = app(path)

    def get(text: str) -> tuple[int, str]:
        response = asyncio.run(datasette.client.get(pages.deal_url(text)))
        return response.status_code, response.content.decode("utf-8")

    return get


def library(text: str, expected: dict | str) -> None:
    """play, score_deals and cycle in Python."""
    calls = {
        "play": lambda: game.play(text).as_dict(),
        "score_deals": lambda: game.score_deals(text)[0].as_dict(),
        "cycle": lambda: game.cycle(text).as_dict(),
    }
    for name, call in calls.items():
        try:
            found = call()
        except game.DealError as err:
            assert str(err) == expected or str(err) == f"deal 1: {expected}", (name, text, err)
        else:
            assert same(found, expected) == expected, (name, text, found)  # type: ignore[arg-type]


def command_line(bmn, text: str, expected: dict | str) -> None:
    """`bmn play` and `bmn loop` (the deal after a bare '--', so it is a hand whatever it looks
    like) and `bmn score` (one line)."""
    line = outcome(text.strip())
    argued = (
        expected.replace(HANDS_JOINED, ARGUMENTS_WORDS) if isinstance(expected, str) else expected
    )
    runs = {  # hands are the arguments of play and loop; score reads a line, as the library
        "play": (bmn("play", "--json", "--", text), argued, ""),
        "loop": (bmn("loop", "--json", "--", text), argued, ""),
        "score": (bmn("score", "--json", input=text + "\n"), line, "line 1: "),
    }
    for name, (result, wanted, where) in runs.items():
        if isinstance(wanted, str):
            assert result.exit_code == 2, (name, text, result.output)
            error = result.stderr.strip().splitlines()
            error = [e for e in error if e.startswith("Error: ")]
            assert len(error) == 1 and error[0].endswith(f": {where}{wanted}"), (name, text, error)
        else:
            assert result.exit_code == 0, (name, text, result.output)
            found = json.loads(result.stdout.splitlines()[-1])
            assert same(found, wanted) == wanted, (name, text, found)


# The advice for a wrong number of hands: the library's, the command line's, the page's form's.
HANDS_JOINED = "join the hands with '/', or give them as a list"
ARGUMENTS_WORDS = "give them as separate arguments or join them with '/'"
FORM_WORDS = "separate the hands with '/' (or with spaces, when no hand has a space in it)"


def web_page(replay_page, text: str) -> None:
    """The replay route: the figures of the page, or a 400 page saying the library's words
    for the hands the form reads (split at spaces when no '/' joins them)."""
    stripped = text.strip()
    expected = outcome(stripped if "/" in stripped else stripped.split())
    if isinstance(expected, str):
        expected = expected.replace(HANDS_JOINED, FORM_WORDS)
    status, page = replay_page(text)
    if isinstance(expected, str):
        assert status == 400 and expected in html.unescape(page), (text, status, page[-2000:])
        return
    assert status == 200, (text, status)
    shown = {
        "status": re.search(r'id="bmn-status">([^<]*)<', page).group(1),  # type: ignore[union-attr]
        "cards": re.search(r'id="bmn-cards">([\d,]*)<', page).group(1),  # type: ignore[union-attr]
        "tricks": re.search(r'id="bmn-tricks">([\d,]*)<', page).group(1),  # type: ignore[union-attr]
        "winner": re.search(r'data-seat="(\d*)"', page).group(1),  # type: ignore[union-attr]
    }
    winner = expected["winner"]
    assert shown == {
        "status": expected["status"],
        "cards": f"{expected['cards']:,}",
        "tricks": f"{expected['tricks']:,}",
        "winner": "" if winner is None else str(winner),
    }, (text, shown)
    if expected["status"] == "loop":
        period = f"{expected['period_cards']:,} cards, {expected['period_tricks']:,} tricks"
        assert period in page, (text, period)


@pytest.mark.parametrize("examples", sizes(25, 250))
def test_every_surface_reads_a_deal_the_same_way(bmn, replay_page, examples):
    @settings(
        max_examples=examples,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(text=DEALS.filter(lambda t: t.strip() != ""))
    def reads(text):
        expected = outcome(text)
        library(text, expected)
        command_line(bmn, text, expected)
        web_page(replay_page, text)

    reads()


@pytest.mark.parametrize("text", ["-J/Q-/", "/-J/Q-", "-J//Q-", "-J/ /Q-", "-J/Q-//"])
def test_a_stray_slash_is_refused_by_every_reading_of_the_library(text):
    """Not played as an extra, empty seat: '-J/Q-/' once played three seats, 8 cards."""
    for call in (game.play, game.cycle, game.parse_deal, game.as_deal, game.format_deal):
        with pytest.raises(game.DealError, match="is empty; .*write '.'"):
            call(text)
    with pytest.raises(game.DealError, match="deal 1: hand . is empty"):
        game.score_deals(text)
    with pytest.raises(game.DealError, match="hand 2 is empty"):
        game.play(["-J", ""])  # an empty argument, as `bmn play -J ''`
    assert game.format_deal("-J/Q-/.") == "-J/Q-/." and game.play("-J/Q-/.").cards == 8


def test_a_store_is_asked_for_a_deal_as_bmn_play_reads_it(tmp_path):
    """StoreReader.finds_of refuses a stray '/' (it once answered [] for a deal of 3 seats)."""
    import bmn.records as records
    from bmn.records.store import Find

    path = tmp_path / "records.sqlite"
    with Store(path) as db:
        db.add_finds(db.create_run("walk", "cards", 1, {}), [Find("-J/Q-", 4, 1)])
    with records.open_store(path) as db:
        assert [find.cards for find in db.finds_of("-J/Q-")] == [4]
        for text in ("-J/Q-/", "/-J/Q-", "-J//Q-"):
            with pytest.raises(game.DealError, match="is empty"):
                db.finds_of(text)
