"""The checks of one value each: ``check(value)`` is None when the value will do, else what is
wrong with it, worded to follow the key (``camera.fps: must be a positive whole number (got 0)``)."""
from __future__ import annotations

from typing import Any, Callable

Check = Callable[[Any], str | None]


def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> bool:
    return (isinstance(v, (int, float))) and not isinstance(v, bool)


def one_of(options: tuple[str, ...], also: tuple[str, ...] = ()) -> Check:
    """One of ``options`` (or of ``also``, older spellings still read but not offered)."""
    return lambda v: None if v in options + also else f"must be one of {', '.join(options)} (got {v!r})"


def positive_int(v: Any) -> str | None:
    return None if is_int(v) and v > 0 else f"must be a positive whole number (got {v!r})"


def whole_number(v: Any) -> str | None:
    return None if is_int(v) and v >= 0 else f"must be a whole number >= 0 (got {v!r})"


def positive_number(v: Any) -> str | None:
    return None if is_number(v) and 0 < v < float("inf") else f"must be a number > 0 (got {v!r})"


def string(v: Any) -> str | None:
    return None if isinstance(v, str) else f"must be a string (got {v!r})"


def non_empty_string(v: Any) -> str | None:
    return None if isinstance(v, str) and v else f"must be a non-empty string (got {v!r})"


def boolean(v: Any) -> str | None:
    return None if isinstance(v, bool) else f"must be true or false (got {v!r})"


def device(v: Any) -> str | None:
    return None if (is_int(v) and v >= 0) or (isinstance(v, str) and v) else f"must be a camera index or a path (got {v!r})"
