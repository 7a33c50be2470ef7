"""Tables of deals: the one way a table's bytes become lines (lines.py), the one reader of
its rows and what each states (reader.py; a header's columns, header.py), and a table
scored a batch at a time, each row a claim judged by the verifier (scored.py: `bmn score`;
`bmn records import` reads the same)."""
