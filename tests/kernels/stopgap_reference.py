"""STOPGAP until kernels/reference.py plays rule sets (issue 33's rules helper): the reference
engine, with Paulhus's rule for a seat out while paying and the two-seat empty-hand ending read
in plainly here. Removed when the reference engine takes `rules=`."""

from __future__ import annotations

import inspect

from bmn.kernels import reference as r
from bmn.kernels.rulesets import AT_ONCE, NEXT_PAYS, rule_set

AT_ONCE_RULE = [False]


def _paulhus_trick(table, leader, limit):
    pile = []
    seat = leader
    court_layer = None
    owed = 0
    while True:
        if table.left == 1:
            last = table.last_seat()
            if pile:
                table.hands[last].extend(pile)
                table.tricks += 1
            return r.FINISHED, last, len(pile)
        if not table.hands[seat]:
            table.go_out(seat)
            seat = table.next_seat(seat)
            if court_layer is not None and seat == court_layer:  # the next seat laid it
                table.hands[court_layer].extend(pile)
                table.tricks += 1
                return None, court_layer, len(pile)
            continue  # the next seat pays what is left (or plays on, on an ordinary turn)
        if limit is not None and table.cards >= limit:
            return r.LIMIT, -1, 0
        card = table.hands[seat].popleft()
        pile.append(card)
        table.cards += 1
        if AT_ONCE_RULE[0] and not table.hands[seat]:
            completes = card == 0 and court_layer is not None and owed == 1
            if not completes:  # its last card ends the game: the other seat takes the pile
                other = 1 - seat
                table.hands[other].extend(pile)
                table.tricks += 1
                table.go_out(seat)
                return r.FINISHED, other, len(pile)
        if card > 0:
            court_layer, owed = seat, card
            seat = table.next_seat(seat)
        elif court_layer is not None:
            owed -= 1
            if owed == 0:
                table.hands[court_layer].extend(pile)
                table.tricks += 1
                return None, court_layer, len(pile)
        else:
            seat = table.next_seat(seat)


def play(deal, limit=None, trace=False, rules=None):
    if "rules" in inspect.signature(r.play).parameters:
        return r.play(deal, limit=limit, trace=trace, rules=rules)
    chosen = rule_set(rules)
    if chosen.out_while_paying != NEXT_PAYS and chosen.empty_hand != AT_ONCE:
        return r.play(deal, limit=limit, trace=trace)
    plain = r._play_trick
    r._play_trick = _paulhus_trick
    AT_ONCE_RULE[0] = chosen.empty_hand == AT_ONCE and len(deal) == 2
    try:
        return r.play(deal, limit=limit, trace=trace)
    finally:
        r._play_trick = plain
