"""The ``lighthouse`` command's subcommands, one module each."""
