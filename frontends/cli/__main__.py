"""`python -m bmn.frontends.cli`: the `bmn` command."""

from bmn.frontends.cli.entry import main

main()
