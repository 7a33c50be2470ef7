"""The compiled scorers for the CPU: two.py (two seats, the fastest) and nseat.py (2 to 4 seats)."""
