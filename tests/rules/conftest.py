"""Make tests/rules/rules_helpers.py importable: with --import-mode=importlib a
test folder is not on sys.path, and the helpers are plain functions, not fixtures."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
