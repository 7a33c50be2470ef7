"""The `bmn` command line: the group and error contract (main.py), the options every command
shares (options.py), and one module per family of commands (game, kernel, records, search,
device). The only package that imports click."""
