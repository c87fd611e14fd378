"""What is wrong with a configuration, as the operator reads it: :class:`ConfigError`.

Every layer checks its own settings (the rules their limits, the GPIO devices their pins, vision a
calibration, the web layer a console's address) and says what is wrong in the same way, so the
table's configuration reports them all together, each line ``FILE: section.key: what is wrong``.
"""
from __future__ import annotations

from collections.abc import Iterable


class ConfigError(ValueError):
    """Configuration values that cannot be used: every problem found in one pass, so the operator
    mends a file once rather than once per mistake.

    ``problems`` holds each ``(dotted key, what is wrong)``; ``key`` is the first key. ``source``
    names the file they are in (None for a table given otherwise, such as the ``[calibration]``
    keys inline in a table's configuration). The text is one line a problem:
    ``FILE: section.key: what is wrong``, or ``section.key: what is wrong`` without a file.

        >>> print(ConfigError("camera.fps", "must be a positive whole number (got 0)", source="table.toml"))
        table.toml: camera.fps: must be a positive whole number (got 0)
    """

    def __init__(self, key: str, message: str, *more: tuple[str, str], source: str | None = None) -> None:
        self.problems: tuple[tuple[str, str], ...] = ((key, message), *more)
        self.source = source
        where = f"{source}: " if source else ""
        super().__init__("\n".join(f"{where}{k}: {m}" for k, m in self.problems))

    @classmethod
    def of(cls, problems: Iterable[tuple[str, str]], source: str | None = None) -> ConfigError:
        """One error carrying every problem of ``problems`` (which must not be empty)."""
        first, *more = problems
        return cls(*first, *more, source=source)

    @property
    def key(self) -> str:
        return self.problems[0][0]

    def under(self, table: str) -> ConfigError:
        """The same problems with their keys placed inside a configuration table (``pins.`` + key)."""
        return ConfigError.of([(f"{table}.{key}", message) for key, message in self.problems], self.source)
