"""`python -m congopay`: the CLI, as the `congopay` command."""

import sys

from .cli import main

sys.exit(main())
