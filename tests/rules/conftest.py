"""Make tests/rules/rules_helpers.py importable as ``rules_helpers``.

With --import-mode=importlib a test folder is not on sys.path; the helpers are
plain functions (used inside parametrised tests), not fixtures. The module is
registered by name only, so this folder's other files (this conftest) are
never importable by accident from other test folders.
"""
import importlib.util
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location("rules_helpers", Path(__file__).with_name("rules_helpers.py"))
assert _spec is not None and _spec.loader is not None
_module = importlib.util.module_from_spec(_spec)
sys.modules["rules_helpers"] = _module
_spec.loader.exec_module(_module)
