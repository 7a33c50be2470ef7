"""Building cycles: closed pieces that recombine into endless games (pieces.py) and the piece hunt
that assembles them into cycles of a target deck (piece_hunt.py); the elimination search, from a
two-seat cycle back to 3- and 4-seat deals as seats go out (elimination.py, on
kernels/cycles/backward_seats.py); true 3- and 4-seat cycles, every seat in for ever: the
predicate and naming (true_cycles.py), growth, hunts and lifts (true_growth.py), pieces with N
seats (seat_pieces.py), chunk by chunk for a run (true_run.py); the elimination search kept to
deals that play alike under bmn's and Paulhus's readings (both_readings.py); two-seat cycles that
swap the hands' roles, searched for by their half period (half_period.py)."""
