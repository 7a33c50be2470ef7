"""The library's refusals, as a hostile user found them wanting (issue 35): a name where an
object is expected, a text where a flag is, numpy's largest unsigned index, digits of other
scripts, and a deck given as text or as numbers. Each is refused with the documented
exception, in one line, or taken, the same way in every form it can be given."""

from __future__ import annotations

import click
import numpy as np
import pytest
from errors import COMMANDS, parses
from hypothesis import strategies as st
from samples import CASELLA
from tiers import properties

import bmn.kernels as game
import bmn.search as searching
from bmn.search.runs import start

LARGEST = np.uint64(2**64 - 1)
# Digits of other scripts: str.isdigit() and int() take them; bmn reads ASCII digits only.
SCRIPTS = {
    "arabic-indic": "٠١٢٣٤٥٦٧٨٩",
    "devanagari": "०१२३४५६७८९",
    "fullwidth": "０１２３４５６７８９",
}


def in_script(text: str, script: str) -> str:
    return text.translate(str.maketrans("0123456789", SCRIPTS[script]))


# -- numpy's largest unsigned index ------------------------------------------------------------


@pytest.mark.parametrize("index", [LARGEST, 2**64 - 1, 2**63, -(2**63) - 1, np.int64(-4), 3])
def test_an_index_out_of_range_is_index_error_however_large(index):
    deals = game.random_deals(3, seed=1)
    scores = game.score_deals(deals)
    calls = [
        lambda: deals[index],
        lambda: deals.text(index),
        lambda: scores[index],
        lambda: scores.result(index),
        lambda: scores.as_dict(index),
    ]
    for call in calls:
        with pytest.raises(IndexError, match="out of bounds for axis 0 with size 3"):
            call()
    assert deals[-3] == deals[0] and scores[-3] == scores[0]


@pytest.mark.parametrize(
    "keys", [[2**64 - 1], np.array([2**64 - 1], np.uint64), [LARGEST, LARGEST]]
)
def test_unsigned_indices_past_int64_are_not_wrapped_round(keys):
    """numpy reads 2**64 - 1 in an index array as -1, the last deal: bmn refuses it."""
    deals = game.random_deals(3, seed=1)
    scores = game.score_deals(deals)
    for call in (lambda: deals[keys], lambda: scores[keys]):
        with pytest.raises(IndexError, match="18446744073709551615 is out of bounds"):
            call()
    assert len(deals[np.array([2, 0], np.uint64)]) == 2


# -- search's arguments that are no setting ----------------------------------------------------


@pytest.mark.parametrize(
    "given, words",
    [
        ({"backend": "threads"}, "backend is a backend object"),
        ({"backend": 1}, "backend is a backend object"),
        ({"backend": object()}, "backend is a backend object"),
        ({"display": "no"}, "display is True or False, not 'no'"),
        ({"display": "yes"}, "display is True or False"),
        ({"display": 1}, "display is True or False, not 1"),
        ({"display": None}, "display is True or False, not None"),
    ],
)
def test_search_refuses_a_name_or_a_text_where_an_object_or_a_flag_belongs(tmp_path, given, words):
    store = tmp_path / "s.sqlite"
    with pytest.raises(searching.SearchOptionError) as caught:
        searching.search(store, iterations=10, **given)
    assert caught.value.option == next(iter(given)) and words in str(caught.value)
    assert "\n" not in str(caught.value) and not store.exists()


def test_search_takes_a_real_backend_and_a_numpy_flag(tmp_path, monkeypatch):
    from bmn.search.backends.registry import get_backend

    class Accepted(Exception):
        pass

    def accepted(*args, **kwargs):
        raise Accepted

    monkeypatch.setattr(start, "open_run", accepted)  # taken: the run would be made now
    for given in ({"backend": get_backend("threads")}, {"display": np.bool_(False)}):
        with pytest.raises(Accepted):
            searching.search(tmp_path / "s.sqlite", iterations=10, **given)


# -- a deck in every form --------------------------------------------------------------------

COUNTS = st.lists(st.integers(0, 1_100), min_size=5, max_size=5)


@properties(40, 400, COUNTS)
def test_a_deck_is_taken_or_refused_alike_as_text_list_tuple_or_array(counts):
    forms = [",".join(map(str, counts)), counts, tuple(counts), np.array(counts)]
    forms.append(" " + ", ".join(map(str, counts)) + " ")  # spaces anywhere, as before
    outcomes = []
    for deck in forms:
        try:
            outcomes.append(game.random_deals(2, seed=5, deck=deck).texts())
        except game.DealError as err:
            outcomes.append(str(err))
    assert all(outcome == outcomes[0] for outcome in outcomes), (counts, outcomes)


def test_the_deck_the_hunt_tried_is_taken_in_both_forms():
    """'200,20,20,20,20' was refused (a bound of the compiled kernels) while the list form was
    taken; random_deals takes a deck of up to MAX_DEAL_CARDS cards in each."""
    text = game.random_deals(1, seed=2, deck="200,20,20,20,20")
    values = game.random_deals(1, seed=2, deck=[200, 20, 20, 20, 20])
    assert text.texts() == values.texts() and text.sizes.tolist() == [[140, 140]]


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_a_deck_in_other_digits_is_refused_in_the_library(script):
    with pytest.raises(game.DealError, match="in ASCII digits"):
        game.random_deals(1, deck=in_script("14,2,2,2,0", script))
    for text in ("+14,2,2,2,0", "1_4,2,2,2,0", "14,2,2,2"):
        with pytest.raises(game.DealError, match="five counts"):
            game.random_deals(1, deck=text)


def test_hand_sizes_given_as_text_are_refused_whole_not_read_a_character_at_a_time():
    with pytest.raises(
        game.DealError, match="hand_sizes is two to four whole numbers, got '3,3,3'"
    ):
        game.reaching_deals("J--/-J-/-J-", "3,3,3")


# -- numbers are ASCII digits on the command line ---------------------------------------------

NUMBER_TYPES = ("Whole", "Seed", "SeedList", "Duration", "SettingType", "SchedulerAddress")
SAMPLE = {"--deck": "14,2,2,2,0", "--loop-deck": "14,2,2,2,0", "--hand-sizes": "10,10"}
SAMPLE |= {"--scheduler": "tcp://host:8786", "--seeds": "1,2", "--to-rank": "5"}
SAMPLE |= {"--players": "3", "--strategies": "walk"}
NUMBERED = sorted(
    (path, option.opts[0])
    for path, command in COMMANDS.items()
    for option in command.params
    if isinstance(option, click.Option) and type(option.type).__name__ in NUMBER_TYPES
)


def command_line(path: tuple[str, ...], name: str, value: str) -> list[str]:
    extra = [CASELLA] if path in (("play",), ("loop",), ("plot",), ("preimages",)) else []
    if path == ("records", "import"):
        extra = ["table.txt"]
    if name in ("--from-rank", "--to-rank"):
        extra = ["--strategy", "every", "--deck", "6,2,1,1,0"]
    return [*path, name, value, *extra]


@pytest.mark.parametrize("path, name", NUMBERED, ids=[f"{' '.join(p)} {n}" for p, n in NUMBERED])
def test_every_number_option_reads_ascii_digits_only(path, name):
    value = SAMPLE.get(name, "3")
    assert parses(command_line(path, name, value)), (path, name, value)
    for script in SCRIPTS:
        assert not parses(command_line(path, name, in_script(value, script))), (path, name)


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_preimages_hand_sizes_read_ascii_digits_only(bmn, failed, script):
    sizes = in_script("26,26", script)
    failed(bmn("preimages", "--hand-sizes", sizes, "--", CASELLA), 2, "--hand-sizes", repr(sizes))
    done = bmn("preimages", "--hand-sizes", " 26, 26", "--max-states", "10", "--", CASELLA)
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_search_deck_reads_ascii_digits_only(bmn, failed, script, tmp_path):
    deck = in_script("14,2,2,2,0", script)
    store = tmp_path / "s.sqlite"
    failed(bmn("search", "--deck", deck, "--store", store), 2, "--deck", "five counts")
    failed(bmn("search", "--objective", "loop", "--deck", deck, "--store", store), 2, "--deck")
    assert not store.exists()
