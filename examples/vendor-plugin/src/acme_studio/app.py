"""The ``acme-studio`` command: the app the example declaration locates."""

from __future__ import annotations

import sys

from acme_studio import __version__


def main() -> int:
    print(f"Acme Studio {__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
