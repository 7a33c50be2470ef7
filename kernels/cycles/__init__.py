"""Games that never end: a cycle and its key (loops.py), backward play to every deal that
reaches it (backward.py for two seats; backward_seats.py for 3 and 4, seats going out included),
and which hand sizes reach it, most balanced first (balance.py)."""
