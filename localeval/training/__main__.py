"""Entry point: ``python -m localeval.training --help``."""

import sys

from .cli import main

sys.exit(main())
