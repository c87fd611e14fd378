"""The security headers on every answer of a service: pages, files, the API, its errors and streams.

Why on every answer and not only the pages: a JSON answer or an error opened on its own in a tab is
a page too, and the middleware sits outside every other check (peers, host names) so that their
refusals carry the headers as well. The pages keep every script and style in files of their own
(``static/``), so the policy needs no ``'unsafe-inline'``:

- ``Content-Security-Policy``: scripts, styles, images, event streams and form posts from this
  origin only; no ``<base>``; never inside a frame (``frame-ancestors 'none'``);
- ``X-Frame-Options: DENY``: the same for browsers that predate ``frame-ancestors``;
- ``X-Content-Type-Options: nosniff``: a file is only what its type says;
- ``Referrer-Policy: same-origin``: no address of the console (a frame's name, a table's) leaves
  with a link followed to another site.
"""
from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

POLICY = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
          "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
HEADERS = [
    (b"content-security-policy", POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]


class SecurityHeaders:
    """ASGI middleware: :data:`HEADERS` on every HTTP answer of ``app`` (in place of any it set)."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        ours = {name for name, _ in HEADERS}

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in ours]
                message["headers"] = kept + HEADERS
            await send(message)

        await self.app(scope, receive, with_headers)
