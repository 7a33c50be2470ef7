"""What bmn shows: text and tables on stdout (tables.py, the shape; games.py, records.py,
measures.py and odds.py, what each reader is shown), live progress on stderr (progress.py) and
pictures (plots.py). No click here."""
