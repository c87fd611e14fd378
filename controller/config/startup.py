"""What a checked configuration still cannot start, or should warn of, found without opening a
device: ``dicetable run --check`` says what ``dicetable run`` would, and both ask here.

- :func:`startup_problems` -- what no restart mends (exit 2, which systemd does not restart).
- :func:`device_warnings`, :func:`rules_warnings`, :func:`console_warnings` -- what the table runs
  with all the same, said so the operator knows.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

from controller.config.files import unusable_path
from controller.config.settings import Config

#: What to do when the Pi's GPIO library cannot be loaded (said by ``run --check`` and by ``run``).
LGPIO_INSTALL = ('on the Pi install python3-lgpio and make the venv with --system-site-packages '
                 '(docs/install.md), or use pin_factory = "mock" off the Pi')


def startup_problems(config: Config) -> list[str]:
    """What keeps ``dicetable run`` from starting with ``config`` that no restart mends: software
    the Pi's devices need and is not installed, a state directory that is a file, and (with a
    floor) a table key that other users may read."""
    found = []
    if config.pin_factory == "lgpio" and importlib.util.find_spec("lgpio") is None:
        found.append(f'table.pin_factory = "lgpio": the lgpio module is not installed; {LGPIO_INSTALL}')
    if config.camera.source == "picamera2" and importlib.util.find_spec("picamera2") is None:
        found.append('camera.source = "picamera2": Picamera2 is not installed; on the Pi install python3-picamera2 '
                     'and make the venv with --system-site-packages (docs/install.md)')
    problem = unusable_path(config.state_dir)
    if problem:
        found.append(f"table.state_dir: {config.state_dir} {problem}")
    elif config.state_dir.is_file():
        found.append(f"table.state_dir: {config.state_dir} is a file, not a folder")
    elif config.floor is not None:
        from controller.floor.signing import key_problem

        problem = key_problem(config.state_dir)
        if problem:
            found.append(f"floor: {problem}")
    return found


def device_warnings(config: Config) -> list[str]:
    """Devices named by a path that is not there now: the table starts and waits for them (a USB
    adapter may be plugged in later), but until then its watchdog is not pinged."""
    port = config.display.port
    if config.display.kind != "serial" or not port.startswith("/dev/"):
        return []
    unusable = unusable_path(Path(port))
    if unusable:
        return [f"display.port: {port} {unusable} (the table cannot open it)"]
    if not Path(port).exists():
        return [f"display.port: {port} is not there now (the table waits for it, and systemd restarts it "
                "while the display does not answer)"]
    return []


def rules_warnings(config: Config) -> list[str]:
    """Maxima set above the regulation's, each naming its key: the house may configure them, but
    ``run --check`` prints them and the table logs them at every start."""
    return [f"rules.{key}: {message}" for key, message in config.rules.above_regulation()]


def console_warnings(config: Config) -> list[str]:
    """What ``run --check`` says of a console nobody can log in to, or that trusts every peer as a
    proxy (the table runs all the same)."""
    settings = config.console
    found = settings.warnings()  # said even with no listen: --console HOST:PORT would serve it so
    if settings.listen is None:
        return found
    from controller.web.users import UsersError, read_users

    try:
        users = read_users(settings.users)
    except UsersError as exc:
        return [*found, f"console: {exc}: nobody can log in until it is mended"]
    if not users:
        found.append(f"console: no users in {settings.users} yet: nobody can log in until one is added "
                     "(dicetable user --config FILE add NAME --role dealer)")
    if settings.certificate is not None and settings.key is not None:  # TLS
        from controller.web.serve import tls_context

        try:
            tls_context(settings.certificate, settings.key)
        except ValueError as exc:  # unreadable by this user, not PEM, a key of another certificate
            found.append(f"console: {exc}: the table would run without its console")
    return found
