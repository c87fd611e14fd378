"""What Starlette refuses by itself (a path nobody serves, a method a path does not take) answered
in JSON like every other refusal of the API, ``{"reason": ...}``.

Why a handler of its own: Starlette answers those in plain text (``Not Found``, ``Method Not
Allowed``), which a client of the API cannot read as it reads the rest. The order of the checks
stays the API's: a path that needs a session answers 401 to a request without one before saying
its method is wrong, so that nothing about a protected path is told before the login.
"""
from __future__ import annotations

from collections.abc import Callable, Collection, Coroutine
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from controller.web.auth import Auth, Denied

#: How much of a path a refusal repeats: enough to recognise it, never a long request echoed whole.
SHOWN_PATH = 200


def shown(path: str) -> str:
    """``path`` as a refusal names it: cut to :data:`SHOWN_PATH` characters, marked where cut."""
    return path if len(path) <= SHOWN_PATH else path[:SHOWN_PATH] + "..."


def http_errors(auth: Auth, *, public: Collection[str], public_prefixes: Collection[str] = (),
                with_rule: Collection[str] = ()) -> Callable[[Request, Exception], Coroutine[Any, Any, Response]]:
    """The handler of Starlette's :class:`HTTPException` for a service whose paths need a session
    of ``auth`` except ``public`` (and those under ``public_prefixes``). A wrong method on a path of
    ``with_rule`` (whose refusals carry ``rule``) carries ``"rule": null`` too; its 401 is the
    path's own, which carries none."""

    async def handler(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        path = request.url.path
        headers = dict(exc.headers or {})
        protected = path not in public and not any(path.startswith(p) for p in public_prefixes)
        if exc.status_code == 404:
            status, reason = 404, f"no such path: {shown(path)}"
        elif exc.status_code == 405:
            if "Allow" in headers:  # Starlette's comes from a set: the same order at every start
                headers["Allow"] = ", ".join(sorted(m.strip() for m in headers["Allow"].split(",")))
            status, reason = 405, f"{shown(path)} does not take {request.method} (it takes {headers.get('Allow', 'another')})"
            if protected:
                try:
                    auth.require(request)
                except Denied as denied:
                    status, reason, headers = denied.status, denied.reason, denied.headers
        else:
            status, reason = exc.status_code, str(exc.detail)
        body: dict[str, Any] = {"reason": reason}
        if path in with_rule and status == 405:
            body["rule"] = None
        return JSONResponse(body, status_code=status, headers=headers)

    return handler
