"""One module per `dicetable` subcommand; see :mod:`controller.cli` for the contract."""
