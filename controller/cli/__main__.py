"""`python -m controller.cli` runs the `dicetable` command."""
import sys

from controller.cli import main

sys.exit(main())
