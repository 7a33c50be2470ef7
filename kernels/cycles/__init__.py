"""Games that never end: a cycle and its key (loops.py), backward play to every deal that
reaches it (backward.py), and which hand sizes reach it, most balanced first (balance.py)."""
