import sys

from hermes_core.cli import entry

sys.exit(entry())
