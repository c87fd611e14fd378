import sys

from training.render.cli import main

sys.exit(main())
