"""Building cycles: closed pieces that recombine into endless games (pieces.py) and the piece hunt
that assembles them into cycles of a target deck (piece_hunt.py). insertion_beam.py is a dead
end kept for comparison in benchmarks/grow_bench.py."""
