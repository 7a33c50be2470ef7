"""`python -m bmn.search.cli`: the `bmn` command."""

from bmn.search.cli.entry import main

main()
