"""`python -m bmn.search.cli`: the `bmn` command."""

from bmn.search.cli.main import main

main()
