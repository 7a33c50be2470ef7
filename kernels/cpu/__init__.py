"""The compiled scorers for the CPU: two.py (two seats, the fastest) and nseat.py (2 to 4 seats);
cycle_ids.py names the cycle a looping deal falls into (the loop hunt's)."""
