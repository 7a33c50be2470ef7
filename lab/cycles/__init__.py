"""Cycle research no command runs: the elimination search, back from a two-seat cycle to 3- and
4-seat deals as seats go out (elimination.py, on kernels/cycles/backward_seats.py), and the same
search kept to deals that play alike under bmn's and Paulhus's readings (both_readings.py)."""
