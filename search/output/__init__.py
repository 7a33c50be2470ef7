"""What bmn shows: text and tables on stdout (text.py), live progress on stderr (progress.py) and
pictures (plots.py). No click here."""
