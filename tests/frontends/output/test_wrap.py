"""Free text fitted to the terminal (frontends/output/wrap.py): broken between words, never inside
a deal, a number or a command; every line within the width unless it is one such unit whole."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from samples import CASELLA, RECORD

from bmn.frontends.output import wrap
from bmn.frontends.output.wrap import INDENT, fit, units

DEAL = re.compile(r"[-JQKA.]+(?:/[-JQKA.]+)+")
WORDS = st.sampled_from(
    ["the", "deal", "is", "not", RECORD, "8,344", "`bmn records merge a b`", "a;", "store,"]
    + ["bmn search --resume 3 --store night.sqlite;", CASELLA, "--players", "3"]
)


@given(st.lists(WORDS, min_size=1, max_size=40), st.integers(20, 130))
def test_fitted_text_keeps_every_unit_whole_within_the_width(words, width):
    text = " ".join(words)
    lines = fit(text, width).split("\n")
    kept = [line.removeprefix(INDENT) if i else line for i, line in enumerate(lines)]
    assert " ".join(kept) == text  # nothing lost, nothing added, only breaks between units
    whole = set(units(text))
    for line in kept:
        assert len(line) <= width - (len(INDENT) if line is not kept[0] else 0) or line in whole


def lines_of(result) -> list[str]:
    return (result.stdout + result.stderr).splitlines()


@pytest.mark.parametrize("width", [60, 80, 120])
def test_commands_fit_their_free_text_to_the_terminal(bmn, monkeypatch, tmp_path, width):
    monkeypatch.setattr(wrap, "stderr_width", lambda: width)
    monkeypatch.setattr(wrap, "stdout_width", lambda: width)
    monkeypatch.chdir(tmp_path)
    runs = [
        bmn("play", f"{RECORD},8344"),  # an error quoting a deal
        bmn("play", "--odds", *RECORD.split("/")),  # the odds line
        bmn("score", input="-J/Q-\n"),  # the non-standard-deck warning
        bmn("records", "top", "--store", "none.sqlite"),  # an error naming a command
    ]
    for result in runs:
        for line in lines_of(result):
            assert len(line) <= width or len(units(line.strip())) == 1, (width, line)
        for deal in DEAL.findall(result.output.replace("\n" + INDENT, " ")):
            assert any(deal in line for line in lines_of(result)), deal  # never split
    assert "bmn search" in " ".join(lines_of(runs[3]))
