"""The table controller: rules engine, game flow, journal and the `dicetable` command."""
