"""The class of every ``hermes`` parser and subparser (a usage error exits with
:data:`~hermes_core.cli.common.EXIT_USAGE`), and the type of a parser's subcommands."""

from __future__ import annotations

import argparse
import sys
from typing import TypeAlias

from hermes_core.cli.common import EXIT_USAGE

__all__ = ["Commands", "HermesParser"]


class HermesParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


#: The subcommands of one parser (what ``add_subparsers`` returns).
Commands: TypeAlias = "argparse._SubParsersAction[HermesParser]"
