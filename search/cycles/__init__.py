"""Building cycles: closed pieces that recombine into endless games (pieces.py) and the piece hunt
that assembles them into cycles of a target deck (piece_hunt.py); true 3- and 4-seat cycles,
every seat in for ever: the predicate and naming (true_cycles.py), growth and hunts
(true_growth.py), chunk by chunk for a run (true_run.py). Research no command runs is in the
lab (lab/cycles/)."""
