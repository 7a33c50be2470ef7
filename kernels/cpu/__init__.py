"""The compiled scorers for the CPU: two.py (two seats, the fastest) and nseat.py (2 to 4 seats),
their twins in SIMD lanes (lanes.py, lanes_nseat.py: several games a step, written in the vector
types and operations of vectors.py) and the choice between them (choice.py); cycle_ids.py names
the cycle a looping deal falls into (the loop hunt's); benchmark.py is bmn bench and selfcheck."""
