"""The reference engine under each rule set: the peers' published figures (tests/data/peers,
its README says where each came from), exactly, and the worked examples of docs/rules.md,
"Rule sets"."""

import csv
from dataclasses import dataclass
from pathlib import Path

import pytest
from tiers import sizes

from bmn.kernels.deal import parse_deal
from bmn.kernels.reference import play
from bmn.kernels.rules.sets import RULE_SETS
from bmn.records.published import published_games

PEERS = Path(__file__).parent.parent / "data" / "peers"


def rows(name: str) -> list[dict]:
    with open(PEERS / name, newline="") as file:
        return list(csv.DictReader(file))


def halves(deck: str) -> list[list[int]]:
    """A deck of digits (penalty values) cut in halves, the first to seat 0."""
    cards = [int(card) for card in deck]
    return [cards[: len(cards) // 2], cards[len(cards) // 2 :]]


N1K06_40 = rows("n1k06_40.csv")
N1K06_20 = rows("n1k06_20.csv")
OUTCOME = {"TERMINATA": "finished", "INFINITO": "loop"}


def gpu_cap(figure: int) -> int:
    """The cap behind one of N1k06's GPU counts: its runs used 4,000 and 4,500 cards, and a
    count stops at the first lead past the cap, a trick at most beyond it."""
    return 4500 if figure >= 4500 else 4000


@pytest.mark.parametrize("table", sizes(N1K06_40[::20], N1K06_40))
def test_n1k06_long_italian_deals(table):
    for row in table:
        result = play(halves(row["deck"]), rules="n1k06")
        assert (result.status, result.cards) == (OUTCOME[row["outcome"]], int(row["cards"])), row


@pytest.mark.parametrize("table", sizes(N1K06_40[5::20], N1K06_40))
def test_n1k06_gpu_counts_of_the_long_italian_deals(table):
    for row in table:
        figure = int(row["gpu_cards"])
        result = play(halves(row["deck"]), limit=gpu_cap(figure), rules="n1k06-gpu")
        assert result.cards == figure, row  # stopped at the cap, or ended in the trick past it


@pytest.mark.parametrize("row", N1K06_20, ids=lambda row: row["rank"])
def test_n1k06_half_deck_loops(row):
    deal = halves(row["deck"])
    capped = play(deal, limit=5000, rules="n1k06-gpu")
    assert (capped.status, capped.cards) == ("limit", int(row["cards"]))
    for rules in ("n1k06", "pelagaletto2", "bmn"):  # endless under every reading that plays it
        assert play(deal, rules=rules).status == "loop"


@pytest.mark.parametrize("row", rows("exercism_camicia.csv"), ids=lambda row: row["description"])
def test_exercism_canonical_cases(row):
    result = play(parse_deal([row["hand_a"], row["hand_b"]]), rules="exercism")
    assert (result.status, result.cards, result.tricks) == (
        row["status"],
        int(row["cards"]),
        int(row["tricks"]),
    )


ACINNES = rows("acinnes.csv")


@pytest.mark.parametrize("table", sizes(ACINNES[:3], ACINNES))
def test_acinnes_published_deals(table):
    for row in table:
        deal = parse_deal([row["deal"][:26], row["deal"][26:]])
        result = play(deal, rules="acinnes")
        assert (result.status, result.cards, result.tricks) == (
            "finished",
            int(row["cards"]),
            int(row["tricks"]),
        )


@pytest.mark.parametrize(
    "rules, row",
    [("leodog896", row) for row in rows("leodog896.csv")]
    + [("pelagaletto2", row) for row in rows("pelagaletto2.csv")],
    ids=lambda value: value if isinstance(value, str) else value["where"],
)
def test_leodog896_and_pelagaletto2_figures(rules, row):
    result = play(parse_deal(row["deal"]), rules=rules)
    assert (result.status, result.cards, result.tricks) == (
        "finished",
        int(row["cards"]),
        int(row["tricks"]),
    )


@pytest.mark.parametrize("row", rows("ab0214.csv"), ids=lambda row: row["where"])
def test_ab0214_figures(row):
    deck = [int(card) for card in row["deck"]]
    result = play([deck[0::2], deck[1::2]], rules="ab0214")  # dealt alternately
    assert result.cards == int(row["cards"])
    if row["tricks"]:
        assert result.tricks == int(row["tricks"])


def test_pelagaletto2_counts_the_piles_won_where_bmn_counts_the_last_one_too():
    # Rucklidge 2014: its loser runs out while paying, so the last pile is taken, not won.
    rucklidge = parse_deal(rows("pelagaletto2.csv")[3]["deal"])
    assert (play(rucklidge).cards, play(rucklidge).tricks) == (7959, 1122)
    assert (
        play(rucklidge, rules="pelagaletto2").tricks,
        play(rucklidge, rules="at-once").tricks,
    ) == (
        1121,
        1122,
    )


@dataclass(frozen=True)
class Figure:
    """One published figure: the deal, the limit it was played to, and the result's fields."""

    deal: list
    want: dict  # Result field -> the published value
    limit: int | None = None

    def reproduced_by(self, result) -> bool:
        return all(getattr(result, field) == value for field, value in self.want.items())


def counts(row: dict) -> dict:
    """A row's cards, and its tricks where it has them."""
    return {"cards": int(row["cards"])} | ({"tricks": int(row["tricks"])} if row["tricks"] else {})


def figure_sets() -> dict[str, list[Figure]]:
    """Every set of published figures in tests/data/peers, and bmn's own records."""
    return {
        "N1k06 40-card deals": [
            Figure(halves(r["deck"]), {"status": OUTCOME[r["outcome"]], "cards": int(r["cards"])})
            for r in N1K06_40
        ],
        "N1k06 GPU counts": [
            Figure(halves(r["deck"]), {"cards": int(r["gpu_cards"])}, gpu_cap(int(r["gpu_cards"])))
            for r in N1K06_40
        ],
        "N1k06 half-deck loops": [
            Figure(halves(r["deck"]), {"cards": int(r["cards"])}, 5000) for r in N1K06_20
        ],
        "exercism": [
            Figure(parse_deal([r["hand_a"], r["hand_b"]]), {"status": r["status"]} | counts(r))
            for r in rows("exercism_camicia.csv")
        ],
        "acinnes": [
            Figure(parse_deal([r["deal"][:26], r["deal"][26:]]), counts(r)) for r in ACINNES
        ],
        "LeoDog896": [Figure(parse_deal(r["deal"]), counts(r)) for r in rows("leodog896.csv")],
        "pelagaletto2": [
            Figure(parse_deal(r["deal"]), counts(r)) for r in rows("pelagaletto2.csv")
        ],
        "ab0214": [
            Figure([[int(c) for c in r["deck"][i::2]] for i in (0, 1)], counts(r))
            for r in rows("ab0214.csv")
        ],
        "bmn records": [
            Figure(parse_deal(g.deal), {"status": g.status, "cards": g.cards, "tricks": g.tricks})
            for g in published_games(2)
        ],
    }


def docs_table() -> dict[str, dict[str, str]]:
    """docs/rules.md's table of figures reproduced: row -> rule set -> 'n/m'."""
    text = (Path(__file__).parents[2] / "docs" / "rules.md").read_text()
    lines = text.split("<!-- figures table")[1].splitlines()[1:]
    head, table = lines[0], [line for line in lines[2:] if line.startswith("|")]
    names = [cell.strip(" `") for cell in head.strip("|").split("|")][1:]
    out = {}
    for line in table:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        out[cells[0]] = dict(zip(names, cells[1:], strict=True))
    return out


@pytest.mark.slow
def test_the_docs_say_which_figures_each_rule_set_reproduces():
    got = {}
    for name, figures in figure_sets().items():
        got[name] = {}
        for rules in RULE_SETS:
            hits = 0
            for figure in figures:
                hits += figure.reproduced_by(play(figure.deal, limit=figure.limit, rules=rules))
            got[name][rules] = f"{hits}/{len(figures)}"
    assert docs_table() == got
