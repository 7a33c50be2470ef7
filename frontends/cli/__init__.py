"""The `bmn` command line: the group and error contract (main.py, entry.py), what every command
shares (options.py: the common options, printing, stores, figures), the kinds of value
(values.py), deal arguments (deals.py) and cluster options (cluster.py), then one module per
family of commands (game, kernel, records, search, device). The only package that imports
click."""
