"""Building cycles: closed pieces that recombine into endless games (pieces.py) and the piece hunt
that assembles them into cycles of a target deck (piece_hunt.py)."""
