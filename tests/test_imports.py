"""Every module of the packages imports on a machine without Pi-only modules.

Picamera2, libcamera and lgpio exist only on a Raspberry Pi. The check runs in
a fresh interpreter that hides them (even where some are installed), so that a
module-level import of one, which would break every laptop and CI run, fails
here first.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

PACKAGES = ("controller", "vision", "hardware", "firmware", "messages")

_CHECK = textwrap.dedent(
    """
    import importlib, json, pkgutil, sys, traceback

    PI_ONLY = ("picamera2", "libcamera", "lgpio", "RPi", "pigpio")

    class BlockPiModules:
        def find_spec(self, fullname, path=None, target=None):
            if fullname.split(".")[0] in PI_ONLY:
                raise ModuleNotFoundError(f"No module named {fullname!r} (Pi-only, hidden)")
            return None

    sys.meta_path.insert(0, BlockPiModules())
    names, failures = [], {}
    for package_name in sys.argv[1:]:
        package = importlib.import_module(package_name)
        names.append(package_name)
        for info in pkgutil.walk_packages(package.__path__, prefix=package_name + "."):
            if info.name.endswith(".__main__"):
                continue  # running it is not importing it
            names.append(info.name)
            try:
                importlib.import_module(info.name)
            except Exception:
                failures[info.name] = traceback.format_exc()
    print(json.dumps({"modules": names, "failures": failures}))
    """
)


@pytest.fixture(scope="module")
def import_report() -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _CHECK, *PACKAGES], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_every_module_imports_without_pi_only_modules(import_report):
    assert import_report["failures"] == {}


def test_the_check_saw_every_package(import_report):
    for package in PACKAGES:
        assert package in import_report["modules"]
    assert "controller.cli" in import_report["modules"]


def test_help_lists_every_command(capsys):
    from controller.cli import _command_modules, main

    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for module in _command_modules():
        assert module.NAME in out


_LAPTOP = textwrap.dedent(
    """
    import json, sys
    import controller.assembly, controller.camera, controller.cli, controller.main_loop, controller.service, vision.sources
    from controller.cli import _command_modules
    from vision.sources import open_source, parse_spec

    _command_modules()
    parse_spec("picamera2:1")
    with open_source("generated:size=160x120") as src:
        src.read()
    print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] == "picamera2")))
    """
)


def test_a_laptop_run_never_imports_picamera2_even_where_it_is_installed(tmp_path):
    """Picamera2 probes the camera when imported: only opening a Pi camera may import it.

    A ``picamera2`` that imports fine is put on the path, so an import guarded by
    ``try/except ImportError`` is caught too, not only one that would fail.
    """
    (tmp_path / "picamera2").mkdir()
    (tmp_path / "picamera2" / "__init__.py").write_text("class Picamera2:\n    pass\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    done = subprocess.run([sys.executable, "-c", _LAPTOP], capture_output=True, text=True, env=env, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


_DEVICE_LIBRARIES = ("gpiozero", "cv2", "serial")


@pytest.mark.parametrize("module", ["controller.rules", "controller.table"])
def test_the_game_layers_load_no_device_library(module):
    """The rules and the game flow are pure: importing them loads no GPIO, camera or serial library."""
    probe = (
        f"import json, sys; import {module}; "
        f"print(json.dumps(sorted(name for name in sys.modules if name.split('.')[0] in {_DEVICE_LIBRARIES!r})))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
