"""Any deck searched (`--deck`, `--hand-sizes`): walk, random, climb and lahc on small decks,
every deal they keep checked by the reference engine and the best against the enumeration of
every deal of the deck (search/runs/kinds/every.py); a resumed run keeps its deck; what cannot
work is refused before a store is made."""

import json

import pytest
from tiers import diagonal

from bmn.kernels import reference
from bmn.kernels.deal import parse_deal
from bmn.kernels.decks import counts_of
from bmn.records.store import Store
from bmn.search.runs.kinds import longest
from bmn.search.runs.kinds.every import EveryJob, EveryOptions
from bmn.search.runs.kinds.longest import LongestJob, LongestOptions
from bmn.search.runs.kinds.longest_base import LongestProgress
from bmn.search.runs.loop import RunLoop
from bmn.search.strategies.registry import STRATEGIES

TINY = "6,2,1,1,0"  # 2,520 deals at 5/5, 14 of them loop
SMALL = "8,2,2,1,0"  # 38,610 deals


def counts(deck: str) -> tuple[int, ...]:
    return tuple(int(n) for n in deck.split(","))


@pytest.fixture(scope="module")
def enumerated(tmp_path_factory):
    """The longest finished game of each (deck, hand sizes, objective) asked for, by visiting
    every deal of the deck."""
    done = {}

    def longest_of(deck: str, sizes: tuple[int, ...], objective: str = "cards"):
        if (deck, sizes, objective) not in done:
            path = tmp_path_factory.mktemp("every") / "e.sqlite"
            options = EveryOptions(deck=deck, hand_sizes=sizes, objective=objective, workers=2)
            with Store(path) as store:
                summary = RunLoop(store, EveryJob, options).run()
            assert summary.complete
            done[deck, sizes, objective] = summary
        return done[deck, sizes, objective]

    return longest_of


def search(path, **changes):
    """A run into its own store: (summary, its finds, its stored run)."""
    options = {**dict(deck=TINY, iterations=20_000, workers=2, seed=7, keep_above=40), **changes}
    with Store(path) as store:
        summary = RunLoop(store, LongestJob, LongestOptions(**options)).run()
        return summary, store.run_finds(summary.run), store.get_run(summary.run)


def assert_of_the_deck(deal: str, deck: str, sizes: tuple[int, ...]) -> None:
    hands = parse_deal(deal)
    assert tuple(len(hand) for hand in hands) == sizes
    assert counts_of(card for hand in hands for card in hand) == counts(deck)


@pytest.mark.parametrize(
    "strategy, sizes", diagonal(sorted(STRATEGIES), [(5, 5), (4, 3, 3), (2, 8)])
)
def test_finds_are_deals_of_the_deck_as_the_reference_plays_them(
    tmp_path, enumerated, strategy, sizes
):
    summary, finds, run = search(
        tmp_path / "s.sqlite", strategy=strategy, hand_sizes=sizes, patience=300, history=50
    )
    assert summary.games == 20_000 and summary.deck == TINY and summary.hand_sizes == [*sizes]
    assert summary.odds is None  # the odds of random deals are the standard deck's
    want = reference.play(parse_deal(summary.best_deal))
    assert want.status == "finished"
    assert (summary.best_cards, summary.best_tricks) == (want.cards, want.tricks)
    assert (run.best_deal, run.best_cards, run.best_tricks) == (
        summary.best_deal, summary.best_cards, summary.best_tricks,
    )  # fmt: skip
    assert run.params["deck"] == TINY and run.params["hand_sizes"] == [*sizes]
    assert finds and any(find.status == "loop" for find in finds)  # kept, never the best
    for find in finds:  # every deal of at least 40 cards, every loop and every improvement
        assert_of_the_deck(find.deal, TINY, sizes)
        played = reference.play(parse_deal(find.deal))
        assert (find.cards, find.tricks, find.status) == (
            played.cards,
            played.tricks,
            played.status,
        )
    # No search finds a finished game longer than the longest of every deal; a loop is never
    # the best, however far it runs before it repeats.
    assert summary.best_cards <= enumerated(TINY, sizes).best_cards


@pytest.mark.parametrize("objective", ["cards", "tricks"])
def test_a_climb_on_a_tiny_deck_finds_the_longest_of_every_deal(tmp_path, enumerated, objective):
    whole = enumerated(TINY, (5, 5), objective)
    summary, _, _ = search(
        tmp_path / "c.sqlite", strategy="climb", objective=objective, patience=200
    )
    figure = "best_tricks" if objective == "tricks" else "best_cards"
    assert getattr(summary, figure) == getattr(whole, figure)


@pytest.mark.parametrize("strategy", ["walk", "lahc"])
def test_a_short_search_of_a_larger_deck_stays_at_or_below_its_longest(
    tmp_path, enumerated, strategy
):
    summary, finds, _ = search(
        tmp_path / "l.sqlite", deck=SMALL, strategy=strategy, iterations=5000, history=100
    )
    assert_of_the_deck(summary.best_deal, SMALL, (7, 6))
    assert 0 < summary.best_cards <= enumerated(SMALL, (7, 6)).best_cards


def test_an_interrupted_run_resumes_with_its_deck(tmp_path, monkeypatch):
    monkeypatch.setattr(longest, "CHUNK_SECONDS", 0.001)  # small chunks: the stop lands mid-run
    monkeypatch.setattr(longest, "FIRST_CHUNK", 1000)
    monkeypatch.setattr(longest, "COMMIT_SECONDS", 0.0)  # a commit per chunk: stop at the first
    options = dict(deck=SMALL, hand_sizes=(6, 4, 3), strategy="climb", iterations=50_000,
                   workers=2, seed=3, patience=500, keep_above=60)  # fmt: skip
    with Store(tmp_path / "a.sqlite") as store:
        whole = RunLoop(store, LongestJob, LongestOptions(**options)).run()
        whole_finds = {(f.deal, f.cards, f.tricks) for f in store.run_finds(whole.run)}
    assert len(whole_finds) >= 100  # 458: finds on both sides of the stop to compare
    with Store(tmp_path / "b.sqlite") as store:
        job = RunLoop(store, LongestJob, LongestOptions(**options))
        first = job.run(lambda progress: job.stop.set())
        assert first.status == "interrupted" and first.games < 50_000
        again = RunLoop.resume(store, LongestJob, first.run)
        assert (again.options.deck, again.options.sizes) == (SMALL, (6, 4, 3))
        resumed = again.run()
        resumed_finds = {(f.deal, f.cards, f.tricks) for f in store.run_finds(first.run)}
    keys = ("best_deal", "best_cards", "best_tricks", "games", "deck", "hand_sizes")
    assert [getattr(resumed, k) for k in keys] == [getattr(whole, k) for k in keys]
    assert resumed_finds == whole_finds
    assert_of_the_deck(resumed.best_deal, SMALL, (6, 4, 3))


def test_the_command_line_searches_a_deck_and_resume_keeps_it(bmn, tmp_path):
    store = tmp_path / "s.sqlite"
    args = ["search", "--deck", " 8, 2,2,1,0 ", "--iterations", "3000", "--workers", "2",
            "--seed", "5", "--store", store, "--quiet"]  # fmt: skip
    result = bmn(*args, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert (out["deck"], out["hand_sizes"], out["games"]) == (SMALL, [7, 6], 3000)
    assert_of_the_deck(out["best_deal"], SMALL, (7, 6))
    text = bmn(*args, "--players", "3")
    assert text.exit_code == 0, text.output
    assert "; deck 8,2,2,1,0, hands 5/4/4\nbest: " in text.stdout
    assert "odds" not in text.stdout
    with Store(store) as db:
        assert [run.params["hand_sizes"] for run in db.runs()] == [[7, 6], [5, 4, 4]]
        assert [run.seats for run in db.runs()] == [2, 3]


def test_the_standard_deck_is_stored_as_standard_dealt_evenly(tmp_path):
    for deck in ("standard", "36,4,4,4,4"):
        options = LongestOptions(deck=deck, players=3, iterations=10)
        assert (options.deck, options.sizes, options.standard) == ("standard", (18, 17, 17), True)
    assert not LongestOptions(hand_sizes=(27, 25)).standard
    assert LongestOptions().sizes == (26, 26)  # and a run stored before --deck reads as one
    summary, _, run = search(tmp_path / "s.sqlite", deck="standard", iterations=2000)
    assert (summary.deck, summary.hand_sizes) == ("standard", [26, 26])
    assert "deck" not in summary.text().splitlines()[0]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--deck", "10,0,0,0,0"], "holds one card value: it has a single deal"),
        (["--deck", "0,0,0,4,0", "--strategy", "climb"], "holds one card value"),
        (["--deck", "60,4,4,0,0"], "the compiled kernels play at most 64 cards"),
        (["--deck", "14,2,2,2,0", "--hand-sizes", "10,9"], "add up to 19; the deck"),
        (["--deck", "14,2,2,2,0", "--hand-sizes", "10,10", "--players", "3"], "gives 2 hands"),
        (["--hand-sizes", "20,20"], "add up to 40; the deck 36,4,4,4,4 has 52 cards"),
        (["--deck", "mixed"], "expected five counts"),
        (["--deck", "14,2,2"], "expected five counts"),
        (["--deck", "14,2,2,2,0", "--device", "cuda"], "--device cuda deals the standard deck"),
        (["--deck", "14,2,2,2,0", "--loop-deck", "14,2,2,2,0"], "--loop-deck is for"),
    ],
)
def test_what_a_search_cannot_deal_is_one_line_exit_2_and_no_store(
    bmn, failed, tmp_path, args, message
):
    store = tmp_path / "bad.sqlite"
    failed(bmn("search", *args, "--store", store), 2, message)
    assert not store.exists()


def test_the_display_names_the_deck_and_holds_it_against_no_record():
    words = LongestOptions(deck=SMALL).deck_words()
    assert words == "13 cards (8 numerals, 2 J, 2 Q, 1 K), hands 7/6"
    other = LongestProgress(1, best_cards=90, best_tricks=20, games=9, rate=9.0, deck=words)
    assert f"deck of {words}" in other.setting() and not other.standard
    assert not {"record", "rank"} & {name for name, _ in other.rows()}
    assert "of the record" not in other.line() and other.odds() is None
    standard = LongestProgress(1, best_cards=3000, best_tricks=400, games=9, rate=9.0)
    assert standard.standard and "deck" not in standard.setting()
    assert {"record", "rank"} <= {name for name, _ in standard.rows()}
