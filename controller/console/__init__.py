"""The table console: bets in, payouts out, the table seen from the pit (docs/console.md).

An input like the dealer's buttons and an output like the LED display, served by the table
process itself. Every bet and press from a browser goes into the table's one input queue, carrying
the user who made it, and is journaled before it takes effect; the answer is given once the table
has stepped it. The table's state is pushed to the browsers from the table's step listeners
without the table ever waiting for a browser.

- :mod:`controller.console.layouts` -- each game's betting layout, drawn to scale.
- :mod:`controller.console.views` -- the table's state as the dealer, the pit and the board see it (pure).
- :mod:`controller.console.inputs` -- a dealer's request as a table input, held to the fields
  docs/events.md lists (a refusal journaled in a bounded form).
- :mod:`controller.console.link` -- the link between one table and the web server's loop.
- :mod:`controller.console.app` -- the Starlette app: pages, the JSON API, the event streams.
- :mod:`controller.console.start` -- starting it for ``dicetable run`` (demo or configured table).
- ``static/`` -- the pages (plain HTML, CSS and JavaScript: no build step).
"""
