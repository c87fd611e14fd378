"""A Mosquitto of its own for each test that needs one, on a free port, with logins and the ACL;
and tests/floor/floorkit.py made importable as ``floorkit`` (a test folder is not on sys.path
with --import-mode=importlib)."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from controller.floor.mosquitto import PrivateBroker, mosquitto_binary

_spec = importlib.util.spec_from_file_location("floorkit", Path(__file__).with_name("floorkit.py"))
assert _spec is not None and _spec.loader is not None
_module = importlib.util.module_from_spec(_spec)
sys.modules["floorkit"] = _module
_spec.loader.exec_module(_module)

DEMO_TABLES = ("demo-craps", "demo-hazard", "demo-bang")
USERS = {"floor": "floor-pw", "craps-1": "craps-1-pw", "craps-2": "craps-2-pw", "demo": "demo-pw"}


@pytest.fixture
def broker(tmp_path):
    if mosquitto_binary() is None:
        pytest.skip("mosquitto is not installed (make test installs it: scripts/ensure-floor-services.sh)")
    started = PrivateBroker(tmp_path / "broker", USERS, shared={"demo": DEMO_TABLES}).start()
    yield started
    started.stop()


@pytest.fixture(scope="module")
def postgres():
    """One PostgreSQL server for the module's tests (each takes a database of its own)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed (pip install -e '.[dev]')")
    try:
        server = _module.PrivatePostgres()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    yield server
    server.stop()
