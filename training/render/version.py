"""Which code made a picture (pure): records name it, since a seed gives the same image only under
the same code."""
from __future__ import annotations

import hashlib
from pathlib import Path


def _code_version() -> str:
    """A hash of this package's source (its ``*.py``)."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


CODE_VERSION = _code_version()
