"""Web pieces a dicetable service serves its pages with, knowing nothing of a table.

The table console (``controller.console``) and the floor page use the same logins and the same
stack, so what they share lives here:

- :mod:`controller.web.users` -- the users file (name, role, slow-hashed password), its mode and
  owner, and the in-memory demo logins;
- :mod:`controller.web.auth` -- sessions (HttpOnly, SameSite cookies), the CSRF token, rate-limited
  logins and the role checks every handler makes (401 without a session, 403 without a valid token
  or the role);
- :mod:`controller.web.access` -- which peers may connect (loopback and the configured networks);
- :mod:`controller.web.hosts` -- which host names it answers to (no DNS rebinding);
- :mod:`controller.web.headers` -- the security headers on every answer (Content-Security-Policy,
  no framing, ``nosniff``, ``Referrer-Policy``);
- :mod:`controller.web.files` -- a page's files served from memory (an answer holds no file open);
- :mod:`controller.web.inputs` -- a session's inputs at a bounded rate, each ``Idempotency-Key``
  done once;
- :mod:`controller.web.push` -- server-sent events to many browsers from a bounded queue each, so a
  slow browser is dropped rather than waited for;
- :mod:`controller.web.serve` -- uvicorn in a thread of its own, plain on loopback or with TLS,
  where a port already taken is a warning and never stops the caller;
- :mod:`controller.web.budget`, :mod:`controller.web.pools`, :mod:`controller.web.gate` -- the
  descriptors the server may take beside the table's reserve, and the accept loop, deadlines and
  admission that keep it within them (a 503 with ``Retry-After`` for every client refused).
"""
