"""The floor: every table's journal streamed to an MQTT broker, kept and checked off the table.

Why: whoever can write a table's ``journal.sqlite3`` can rewrite it consistently (change a row,
recompute the hashes) or cut rows off its end, and the table's own checks accept the result. A
copy kept where the table cannot reach it, taken row by row as the table commits them, catches
both: the next row, or the table's next status, no longer fits the copy. The table's word is taken
only under its own key (its signed heads), each table's journals are linked into one line, and a
table that falls silent is said to be.

- :mod:`~controller.floor.topics`: the topic names and payloads (also the broker's ACL, docs/floor.md).
- :mod:`~controller.floor.broker`: the broker's URL, login and TLS, and the paho client.
- :mod:`~controller.floor.publisher`: in the table's process, the committed rows to the broker
  from a cursor of its own (:mod:`~controller.floor.cursor`), never delaying the table.
- :mod:`~controller.floor.signing`: each table's Ed25519 key and the heads it signs.
- :mod:`~controller.floor.judge`: pure rules for a row or a status against the floor's copy.
- :mod:`~controller.floor.store`: the floor's own database (SQLite).
- :mod:`~controller.floor.check`: ``dicetable floor check``.
- :mod:`~controller.floor.service`: ``dicetable floor``, the subscriber that stores and acknowledges.

Data in: committed journal rows (``controller.journal``) at each table. Data out: the floor's
database, its alerts, ``dicetable floor export|check`` and the floor page.
"""
