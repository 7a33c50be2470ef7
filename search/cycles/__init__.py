"""Building cycles: closed pieces that recombine into endless games (pieces.py) and the piece hunt
that assembles them into cycles of a target deck (piece_hunt.py); backward play in which a seat
goes out, from a two-seat cycle to 3- and 4-seat deals (elimination.py)."""
