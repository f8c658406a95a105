"""`python -m concord` runs the command line."""

import sys

from concord.cli import main

sys.exit(main())
