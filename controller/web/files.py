"""A folder of a page's files (HTML, scripts, styles) served from memory.

Why from memory: a file sent from disk keeps a descriptor open for as long as the browser takes
to read it, and a slow reader could so hold two descriptors a connection where the budget counts
one (:mod:`controller.web.budget`). The pages' files are small and never change while the service
runs, so they are read once, at the start.
"""
from __future__ import annotations

import hashlib
import mimetypes
from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response


class Files:
    """Every file under ``folder``, by its path relative to it (``login.js``)."""

    def __init__(self, folder: Path):
        self.files: dict[str, tuple[bytes, str, str]] = {}
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                data = path.read_bytes()
                media = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                self.files[path.relative_to(folder).as_posix()] = (data, media, f'"{hashlib.sha256(data).hexdigest()[:32]}"')

    def response(self, name: str, request: Request) -> Response:
        """The file ``name``, or 304 to a browser that has it; :class:`HTTPException` 404 for none."""
        found = self.files.get(name)
        if found is None:
            raise HTTPException(404)
        data, media, etag = found
        headers = {"ETag": etag, "Cache-Control": "no-cache"}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(data, media_type=media, headers=headers)

    async def serve(self, request: Request) -> Response:
        """A route's endpoint for ``/PREFIX/{name:path}``."""
        return self.response(request.path_params["name"], request)
