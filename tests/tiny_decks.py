"""Exhaustive deals of tiny decks, shared by the loop and backward-play tests."""


def orders(deck):
    """Every distinct order of a multiset of cards."""
    if not deck:
        yield ()
        return
    for value in sorted(set(deck)):
        rest = list(deck)
        rest.remove(value)
        for tail in orders(tuple(rest)):
            yield (value, *tail)


def tiny_deals(deck, with_empty=True):
    """Every two-hand deal of `deck`: each distinct order, each split (empty hands if asked)."""
    low = 0 if with_empty else 1
    for order in orders(deck):
        for cut in range(low, len(deck) + 1 - low):
            yield order[:cut], order[cut:]
