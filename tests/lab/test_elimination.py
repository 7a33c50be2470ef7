"""The elimination search (lab/cycles/elimination.py) and its steps back, one seat out
coming back in at a time, against forward play and the reference engine."""

import itertools
import random

import pytest
from tiers import sizes

from bmn.kernels import reference
from bmn.kernels.cycles.backward_seats import forward
from bmn.kernels.cycles.loops import analyse, rotation_key
from bmn.kernels.deal import parse_deal
from lab.cycles.elimination import imbalance, predecessors, search, seated


def random_states(seed: int, n: int):
    """Random 3- and 4-seat trick-boundary states of small decks, some with a seat out."""
    rng = random.Random(seed)
    while n:
        seats = rng.choice([3, 4])
        deck = [0] * rng.randint(3, 14) + [rng.randint(1, 4) for _ in range(rng.randint(1, 5))]
        rng.shuffle(deck)
        cuts = sorted(rng.randint(0, len(deck)) for _ in range(seats - 1))
        hands = [bytes(deck[a:b]) for a, b in zip([0, *cuts], [*cuts, len(deck)], strict=True)]
        if rng.random() < 0.3:
            hands[rng.randrange(seats)] = None
        leaders = [s for s in range(seats) if hands[s]]
        if leaders:
            n -= 1
            yield tuple(hands), rng.choice(leaders)


@pytest.mark.parametrize("states", sizes(1500, 6000))
def test_every_state_is_among_the_predecessors_of_its_successor(states):
    """Complete and sound where at most one seat goes out in the trick: the state one trick
    back is listed, and every state listed plays forward to the given one."""
    checked = {"in": 0, "out": 0}
    for hands, leader in random_states(1, states):
        step = forward(hands, leader)
        if step is None:
            continue
        after = step[0]
        gone = [s for s, h in enumerate(after[0]) if h is None and hands[s] is not None]
        if len(gone) > 1:
            continue
        extra = gone[0] if gone else None
        listed = list(predecessors(*after, extra))
        assert (hands, leader) in listed
        stay_out = {s for s, h in enumerate(after[0]) if h is None} - {extra}
        assert all(prev[p] is None for prev, _ in listed for p in stay_out)
        assert all(prev[lead] for prev, lead in listed)
        assert all(forward(*prev)[0] == after for prev in listed)
        checked["out" if gone else "in"] += 1
    assert min(checked.values()) > states // 6


def two_seat_cycle(hands_states) -> str:
    """The seat-blind key of the two-seat cycle a 3-seat cycle with one seat out plays."""
    inner = []
    for hands, leader in hands_states:
        kept = [s for s, h in enumerate(hands) if h is not None]
        inner.append((tuple(hands[s] for s in kept), kept.index(leader)))
    return rotation_key(inner)


def test_the_search_lists_every_deal_the_enumeration_finds_falling_into_the_cycle():
    """Every 3/3/3 deal of 6 numerals and 3 jacks whose game ends in the two-seat cycle of
    --J-/J--J- after a seat goes out (the reference engine over every deal) is found by the
    backward search from that cycle, and nothing else."""
    two = analyse(parse_deal("--J-/J--J-"))
    cycle = [(s.hands, s.leader) for s in two.states]
    expected = set()
    for order in set(itertools.permutations([0] * 6 + [1] * 3)):
        deal = (order[:3], order[3:6], order[6:])
        if reference.play(deal).status != "loop":
            continue
        states = [(s.hands, s.leader) for s in analyse(deal).states]
        if sum(h is None for h in states[0][0]) == 1 and two_seat_cycle(states) == two.rotation_key:
            expected.add(deal)
    reach = search(cycle, 3, (3, 3, 3), seconds=120, max_states=100_000)
    found = {tuple(tuple(h) for h in hands) for hands, _ in reach.deals}
    assert expected and found == expected


def test_imbalance_and_seating():
    hands = (b"\x00\x01", None, b"\x00")
    assert seated(hands, 2) == ((b"\x00", b"\x00\x01", None), 0)
    assert imbalance(hands, 0, (1, 1, 1)) > 1000
    assert imbalance((b"\x00" * 3, b"\x00", b"\x00\x01"), 0, (2, 2, 2)) == 1


@pytest.mark.parametrize("extra", [None, 1])
def test_no_predecessor_for_a_taker_without_a_court_card(extra):
    hands = (b"\x00\x00", None, b"\x00")
    assert list(predecessors(hands, 0, extra)) == []


@pytest.mark.parametrize("players", [3, 4])
def test_the_endless_deals_of_the_standard_deck(bmn, players):
    """bmn's 3- and 4-player tables' endless games: standard deals dealt evenly (18/17/17, 13
    each), seat 0 to lead, that the reference engine plays into a cycle of 62 tricks once all
    but two seats went out; `bmn play` says so."""
    from bmn.kernels.decks import even_sizes, is_standard
    from bmn.records.published import published_games

    # bmn's rows: the paulhus rows fall into other cycles (tests/records/test_published.py)
    endless = [g for g in published_games(players) if g.status == "loop" and g.rules == "bmn"]
    assert len(endless) >= 1
    for game in endless:
        deal = parse_deal(game.deal)
        assert is_standard(deal) and tuple(len(h) for h in deal) == even_sizes(52, players)
        ref = reference.play(deal)
        assert (ref.status, ref.cards, ref.tricks) == ("loop", game.cards, game.tricks)
        assert (ref.period_tricks, ref.period_cards) == (62, 440)
        out = [s for s, h in enumerate(analyse(deal).states[0].hands) if h is None]
        assert len(out) == players - 2
        assert all(f"seat {s} goes out" in game.note or f"seat {s} after" in game.note for s in out)
        played = bmn("play", game.deal)
        assert played.exit_code == 0 and "loop: never ends" in played.stdout
