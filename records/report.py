"""The data behind `bmn records`: JSON lists, CSV export, and ranking against the published
record games. Pure functions over store rows; no SQL here, and no text layout
(frontends/output/records.py draws the tables)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any

from bmn.kernels.deal import DealError
from bmn.kernels.decks import STANDARD_COUNTS, STANDARD_COUNTS_TEXT, counts_text, even_sizes
from bmn.kernels.rules.sets import DEFAULT as DEFAULT_RULES
from bmn.records.published import PublishedGame, published_games
from bmn.records.store import IMPORT_KIND, FindRow, LoopRow, Run

if TYPE_CHECKING:
    from bmn.records.store import Store

# -- finds that compare: one seat count, one deck --------------------------------------------

STANDARD_LABEL = "standard deck"  # 52 cards dealt as evenly as possible, as published games
# An import run stored before runs kept their deck: never taken for the standard deck.
UNRECORDED_IMPORT = "imported deals of a deck not recorded (import the table again)"


def run_deck(run: Run) -> str:
    """The deck a run dealt, in words: 'standard deck', or its counts N,J,Q,K,A and hands,
    'deck 14,2,2,2,0 dealt 10/10'; a loop hunt's 'mixed' deck as it is."""
    from bmn.kernels.decks import parse_deck

    if run.kind == IMPORT_KIND and "deck" not in run.params:  # imported before runs kept it
        return UNRECORDED_IMPORT
    deck = str(run.params.get("deck", "standard"))
    try:
        counts = parse_deck(deck)
    except DealError:
        return f"{deck} deck"
    sizes = tuple(run.params.get("hand_sizes") or even_sizes(sum(counts), run.seats))
    if counts == STANDARD_COUNTS and sizes == even_sizes(sum(counts), len(sizes)):
        return STANDARD_LABEL
    return f"deck {counts_text(counts)} dealt {'/'.join(map(str, sizes))}"


@dataclass(frozen=True)
class FindList:
    """The longest finished games of one seat count, deck and rule set, best first."""

    seats: int
    deck: str  # run_deck's words
    rows: list[FindRow]
    rules: str = DEFAULT_RULES  # run_rules': the rule set its games are played under

    @property
    def label(self) -> str:
        """Its deck, and its rule set where not bmn's: 'standard deck, paulhus's rules'."""
        return self.deck if self.rules == DEFAULT_RULES else f"{self.deck}, {self.rules}'s rules"


def run_rules(run: Run) -> str:
    """The rule set a run's games are played under, as the first rule set that plays its
    seats alike (Paulhus's reading with two seats is bmn's); a name this bmn does not know
    is kept as it is."""
    from bmn.kernels.rules.sets import RULE_SETS

    known = RULE_SETS.get(run.rules)
    return run.rules if known is None else known.plays_as(run.seats)


def top_lists(
    store: Store, by: str = "cards", n: int = 10, min_cards: int = 0, seats: int | None = None
) -> list[FindList]:
    """The `n` longest finished games of each seat count, rule set and deck (bmn's rules and
    the standard deck first): only games of one list compare. Each run's best, merged: a deal
    is listed once, as the run that found it first."""
    groups: dict[tuple[int, str, str], list[int]] = {}
    for run in store.runs():
        if seats is None or run.seats == seats:
            groups.setdefault((run.seats, run_deck(run), run_rules(run)), []).append(run.id)
    lists = []
    # bmn's rules first, then the standard deck first: the lists that compare with records
    order = sorted(
        groups, key=lambda k: (k[0], k[2] != DEFAULT_RULES, k[2], k[1] != STANDARD_LABEL, k[1])
    )
    for key in order:
        found = [
            row
            for run in groups[key]
            for row in store.top(by, n, min_cards, status="finished", run=run)
        ]
        rows = _best_first(found, by)[:n]
        if rows:
            lists.append(FindList(key[0], key[1], rows, key[2]))
    return lists


def first_loops(store: Store, n: int = 10, seats: int | None = None) -> tuple[list[FindRow], int]:
    """The first `n` looping deals found (a loop has no length to rank), and how many in all."""
    loops = list(islice(store.all_finds(seats=seats, status="loop"), n))
    return loops, store.count_finds(seats=seats, status="loop")


def _best_first(rows: Iterable[FindRow], by: str) -> list[FindRow]:
    """Distinct deals, each as first found (by time, then run), longest first."""
    first: dict[str, FindRow] = {}
    for row in rows:
        known = first.get(row.deal)
        if known is None or (row.found_at, row.run) < (known.found_at, known.run):
            first[row.deal] = row
    if by == "cards":
        return sorted(first.values(), key=lambda r: (-r.cards, -r.tricks))
    return sorted(first.values(), key=lambda r: (-r.tricks, -r.cards))


@dataclass(frozen=True)
class LeftOut:
    """What `records compare` does not rank: finds of other seat counts, other decks, loops,
    and games played under other rule sets than the published records'."""

    seats: dict[int, int]
    decks: dict[str, int]
    loops: int
    rules: dict[str, int] = field(default_factory=dict)  # finds of the standard deck
    cycles: int = 0  # cycles of `players` seats the store holds (`records loops`)
    # Finds of other seat counts that compare (the standard deck under bmn's rules): what
    # `records compare --players N` would rank.
    ranked_elsewhere: dict[int, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"seats": self.seats, "decks": self.decks, "loops": self.loops, "rules": self.rules}

    def text(self, players: int) -> str | None:
        """'left out: 12 finds of 3 players; 4 of deck 14,2,2,2,0 dealt 10/10; 3 loops'."""
        parts = [(n, f"of {s} players") for s, n in self.seats.items() if n]
        parts += [(n, f"of the {deck}") for deck, n in self.decks.items() if n]
        parts += [(n, f"under {rules}'s rules") for rules, n in self.rules.items() if n]
        words = [
            f"{n:,} {'find' if n == 1 else 'finds'} {what}" if i == 0 else f"{n:,} {what}"
            for i, (n, what) in enumerate(parts)
        ]
        if self.loops:
            words.append(f"{self.loops:,} loop{'' if self.loops == 1 else 's'}")
        if not words:
            return None
        return f"left out: {'; '.join(words)}"


def comparable(store: Store, n: int, players: int = 2) -> tuple[list[FindRow], LeftOut]:
    """The `n` longest finished games of `players` seats and the standard deck (those that
    compare with the published games), and what the store holds that does not compare."""
    standard = [
        found for found in top_lists(store, "cards", n, seats=players)
        if found.deck == STANDARD_LABEL and found.rules == DEFAULT_RULES
    ]  # fmt: skip
    decks: dict[str, int] = {}
    rules: dict[str, int] = {}
    elsewhere: dict[int, int] = {}
    for run in store.runs():
        deck, ruled = run_deck(run), run_rules(run)
        ranked = deck == STANDARD_LABEL and ruled == DEFAULT_RULES
        if run.seats != players and ranked:
            found = store.count_finds(run=run.id, status="finished")
            elsewhere[run.seats] = elsewhere.get(run.seats, 0) + found
        if run.seats != players or ranked:
            continue
        found = store.count_finds(run=run.id, status="finished")
        if deck != STANDARD_LABEL:
            decks[deck] = decks.get(deck, 0) + found
        else:
            rules[ruled] = rules.get(ruled, 0) + found
    seats = {s: store.count_finds(seats=s, status="finished") for s in (2, 3, 4) if s != players}
    cycles = sum(row.seats == players for row in store.loops())
    left = LeftOut(seats, decks, store.count_finds(status="loop"), rules, cycles, elsewhere)
    return (standard[0].rows if standard else []), left


# -- top, runs, loops, export ----------------------------------------------------------------


LOOP_KEYS = (
    "key",
    "rules",  # the rule set it was found under: a key is a cycle under one rule set
    "rotation_key",
    "deck",
    "seats",
    "seats_out",
    "kind",
    "period_cards",
    "period_tricks",
    "balanced_reachable",
    "balanced_deals",
    "basin_complete",
    "example_deal",
    "times_seen",
    "run",
    "found_at",
)


STANDARD_DECK = STANDARD_COUNTS_TEXT
# `records loops --standard`: the stored deal (`deal`, the most balanced starting deal found),
# its hand sizes, and whether an even deal reaches the cycle (either way round the seats).
STANDARD_KEYS = (
    "deal",
    "split",
    "balanced",
    "period_cards",
    "period_tricks",
    "rotation_key",
    "key",
    "rules",
    "balanced_deals",
    "mirrored_balanced_deals",
    "basin_states",
    "basin_complete",
    "first_deal",
    "times_seen",
    "run",
    "found_at",
)


def standard_loops(rows: Sequence[LoopRow]) -> list[dict[str, Any]]:
    """The standard-deck cycles, one per seat-blind key and rule set (the row with the most
    even deal), the most balanced deals first, then in the order found."""
    best: dict[tuple[str, str], LoopRow] = {}
    for row in rows:
        if row.deck != STANDARD_DECK:
            continue
        known = best.get((row.rotation_key, row.rules))
        if known is None or _imbalance(row) < _imbalance(known):
            best[row.rotation_key, row.rules] = row
    out = []
    for row in sorted(best.values(), key=_imbalance):
        d = row.as_dict()
        sizes = [len(hand) for hand in row.example_deal.split("/")]
        d.update(
            deal=row.example_deal,
            split="/".join(map(str, sizes)),
            balanced=bool(row.balanced_deals or row.mirrored_balanced_deals),
        )
        out.append({k: d[k] for k in STANDARD_KEYS})
    return out


def _imbalance(row: LoopRow) -> int:
    sizes = [len(hand) for hand in row.example_deal.split("/")]
    return max(sizes) - min(sizes)


# -- ranking against the published records ------------------------------------------------


def published_ranking(players: int = 2) -> list[PublishedGame]:
    """The `players`-seat table's games that finish under bmn's rules, longest first (loops
    are not ranked by length; finds are ranked under bmn's rules only, so rows of another
    rule set are not ranked either)."""
    games = [
        game
        for game in published_games(players)
        if game.status == "finished" and game.rules == DEFAULT_RULES
    ]
    return sorted(games, key=lambda game: -game.cards)


@dataclass(frozen=True)
class Rank:
    """Where a deal of `cards` cards stands among the published finishing records."""

    rank: int
    of: int
    published: str | None  # the name, when the deal is itself a published record

    def as_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "of": self.of, "published": self.published}


def rank_among(deal: str, cards: int, ranking: Sequence[PublishedGame]) -> Rank:
    """A published deal keeps its own place; any other deal ranks as if added to the list,
    level with the published games of equal length."""
    for i, game in enumerate(ranking, start=1):
        if game.deal == deal:
            return Rank(i, len(ranking), game.name)
    return Rank(1 + sum(game.cards > cards for game in ranking), len(ranking) + 1, None)


# -- show ------------------------------------------------------------------------------------


def show_dict(
    deal: str,
    result: dict[str, Any],
    finds: Sequence[FindRow] | None,
    store: str | None = None,
    rules: str = DEFAULT_RULES,
    run_rules: Mapping[int, str] | None = None,
) -> dict[str, Any]:
    """One deal: the result replayed under `rules`, every time it was found, each find held
    by the one verifier against its replay under the rule set its own run played (`run_rules`:
    run number to rule set; bmn's where a run is not named), the published game it is (any
    table of its seat count: a loop too), its rank among the published records of its seat
    count (bmn's own table for 3 and 4 seats), for a finished deal of the standard deck dealt
    evenly, replayed as bmn's rules play it (every table's figures are bmn's), and that deal's
    numbers (deal_numbers). `finds` None: there is no store; "store" is then None, else the
    store's path."""
    from bmn.kernels.deal import parse_deal
    from bmn.kernels.decks import is_standard
    from bmn.kernels.rules.sets import rule_set

    hands = parse_deal(deal)
    standard = is_standard(hands)
    rank = None
    ranked = rule_set(rules).plays_as(len(hands)) == DEFAULT_RULES
    if result["status"] == "finished" and standard and ranked:
        rank = rank_among(deal, result["cards"], published_ranking(len(hands))).as_dict()
    judged = finds_judged(hands, finds or (), run_rules or {})
    return {
        "deal": deal,
        "result": result,
        "rules": rules,
        "finds": judged,
        "matches": all(find["agrees"] for find in judged),
        "published": published_as(deal, len(hands)),
        "published_rank": rank,
        "numbers": deal_numbers(hands) if standard else None,
        "store": None if finds is None else store,
    }


def finds_judged(
    hands: Sequence[Sequence[int]], finds: Sequence[FindRow], run_rules: Mapping[int, str]
) -> list[dict[str, Any]]:
    """Each find of one deal as a dict, with the rule set its run played ('rules'), whether
    it plays as stored under that rule set ('agrees', by the reference engine) and how it
    differs ('differs', the verifier's words: '' when it agrees)."""
    from bmn.kernels.claims import REFERENCE, Claim, Stated, verify
    from bmn.kernels.rules.sets import names

    def ruled(run: int) -> str:
        name = run_rules.get(run, DEFAULT_RULES)
        return name if name in names() else DEFAULT_RULES  # a name this bmn does not know

    claims = [
        Claim.of(hands, Stated(row.cards, row.tricks, row.status), ruled(row.run)) for row in finds
    ]
    out = []
    for row, verdict in zip(finds, verify(claims, REFERENCE), strict=True):
        said = {"rules": verdict.claim.rules, "agrees": verdict.agrees}
        out.append(row.as_dict() | said | {"differs": verdict.words("stored")})
    return out


def published_as(deal: str, players: int) -> dict[str, Any] | None:
    """The published game `deal` is (its name, year, status and published length), of the
    `players`-seat table; None for a deal no table holds."""
    for game in published_games(players):
        if game.deal == deal:
            keys = ("name", "year", "status", "cards", "tricks", "note")
            return {key: getattr(game, key) for key in keys}
    return None


def deal_numbers(hands: Sequence[Sequence[int]]) -> dict[str, str | None]:
    """A standard deal's numbers (kernels/ranks.py), as text (past 2**53, which JSON readers
    often cannot hold): its rank in bmn's order (`bmn deal --rank N --players S` deals it back)
    and, for two seats, camicia.dev's number (`--rank-order camicia`); None for 3 or 4 seats,
    which camicia does not number."""
    from bmn.kernels.ranks import rank_in

    cards = [v for hand in hands for v in hand]
    camicia = str(rank_in("camicia", cards)) if len(hands) == 2 else None
    return {"bmn": str(rank_in("bmn", cards)), "camicia": camicia}
