"""Reading the configuration file, and the paths it names.

- :func:`read_toml` -- the file's tables; every way of failing is a :class:`~messages.ConfigError`
  naming the file, never a traceback.
- :func:`unusable_path`, :func:`check_state_dir` -- a path the system refuses as a name, said at load.
"""
from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any

from messages import ConfigError

Problems = list[tuple[str, str]]


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML table in ``path``; every way of failing is a ``ConfigError`` naming the file."""
    try:
        text = path.read_bytes().decode("utf-8-sig")  # -sig: a BOM from a Windows editor is no error
        return tomllib.loads(text)
    except FileNotFoundError:
        raise ConfigError("(file)", "no such file", source=str(path)) from None
    except OSError as exc:  # a directory, no permission, a failing card: say so, never a traceback
        raise ConfigError("(file)", f"cannot read it: {exc.strerror or exc}", source=str(path)) from None
    except UnicodeDecodeError as exc:
        raise ConfigError("(file)", f"not UTF-8 text (TOML must be): byte {exc.start}", source=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError("(syntax)", _with_line(str(exc), text), source=str(path)) from None
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        raise ConfigError("(syntax)", "arrays or tables nested too deeply to read", source=str(path)) from None


def _with_line(message: str, text: str) -> str:
    """tomllib's message with the line it points at: "Cannot overwrite a value (at line 78, column
    9)" does not say which key was given twice."""
    at = re.search(r"at line (\d+)", message)
    lines = text.splitlines()
    if at is None or not 1 <= int(at.group(1)) <= len(lines):
        return message
    return f"{message}: {lines[int(at.group(1)) - 1].strip()!r}"


def unusable_path(path: Path) -> str | None:
    """What the system says against ``path`` as a name (a part over 255 bytes, a file where a folder
    is needed, a loop of links, a NUL), or None: a path that is not there, or that this user may
    not enter, is no fault of the name (the table's user may), and is said where it is used."""
    try:
        os.stat(path)
    except (FileNotFoundError, PermissionError):
        return None
    except OSError as exc:
        return f"cannot be used: {exc.strerror or exc}"
    except ValueError as exc:  # a NUL in the name
        return f"cannot be used: {exc}"
    return None


def check_state_dir(folder: Path, problems: Problems) -> None:
    """The state directory must be a name the system takes: a name it refuses (a part over 255
    bytes) failed at the first journal write with a traceback."""
    problem = unusable_path(folder)
    if problem:
        problems.append(("table.state_dir", f"{folder} {problem}"))
