import sys

from hermes_core.cli import main

sys.exit(main())
