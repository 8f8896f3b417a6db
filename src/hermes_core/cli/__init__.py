"""The ``hermes`` command line.

Exit codes: 0 ok, 1 something is unavailable or failed, 2 bad usage or a bad
file (the message names the file, the key and what is wrong), 3 a broken plugin
(``hermes plugins list``, and any command under ``HERMES_STRICT_PLUGINS=1``), 130
interrupted (Ctrl-C), 141 output cut short by its reader.  Subcommands
import only what they need: :mod:`hermes_core.cli.parser` builds the parser,
:mod:`hermes_core.cli.commands` imports the module of the subcommand that runs;
nothing here imports ``mcp``.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence

from hermes_core.cli import commands
from hermes_core.cli.commands import dispatch, subcommand
from hermes_core.cli.common import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED
from hermes_core.cli.parser import build_parser, split_server_args
from hermes_core.cli.parser_entries import leaf_parser
from hermes_core.cli.profile import use_profile

__all__ = ["build_parser", "entry", "main"]


def entry() -> int:
    """The ``hermes`` process (the console script, ``python -m hermes_core``): :func:`main`,
    with the garbage collector off while the command's modules are imported (the ``mcp`` SDK
    builds some 550 pydantic models; collecting while they are built costs a quarter of a
    cold start) and what they made frozen once imported, so later collections skip it."""
    gc.disable()
    commands.freeze_after_import = True
    return main()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; output cut short by its reader (``hermes mcp tools --json | head -1``)
    ends quietly, as for any Unix tool, with exit code 141 (SIGPIPE's).  Ctrl-C ends it with
    one line and exit code 130 (128 + SIGINT), after the servers it started were stopped."""
    try:
        code = _run(argv)
        sys.stdout.flush()
    except KeyboardInterrupt:
        print("hermes: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Nothing more can be written; point stdout at devnull so the interpreter's final
        # flush does not print "Exception ignored … BrokenPipeError" either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    return code


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    words, after_dashes = split_server_args(list(sys.argv[1:] if argv is None else argv))
    own = words[: words.index("--args")] if "--args" in words else words  # then: the server's
    if "--no-color" in own:  # a global flag, taken anywhere before `--` (or `--args`)
        words = [w for w in own if w != "--no-color"] + words[len(own) :]
        os.environ["NO_COLOR"] = "1"
    args, extra = parser.parse_known_args(words)
    if extra and subcommand(args) in (("mcp", "call"), ("mcp", "prompt")):
        # `call TOOL a=1 --json b=2`: argparse ends the KEY=VALUE list at the flag
        args.pairs = [*args.pairs, *(word for word in extra if not word.startswith("-"))]
        extra = [word for word in extra if word.startswith("-")]
    if extra:  # answered with the subcommand's own usage, not the top-level one
        hint = ""
        if subcommand(args) == ("mcp", "add") and any(not w.startswith("-") for w in extra):
            hint = " (a stdio server's command and its arguments go after `--`: "
            hint += "hermes mcp add NAME -- CMD ARGS…)"
        leaf_parser(parser, subcommand(args)).error(
            f"unrecognized arguments: {' '.join(extra)}{hint}"
        )
    args.after_dashes = after_dashes  # `hermes mcp add NAME … -- ARGS`: the server's words
    if args.hermes_profile is not None:
        use_profile(args.hermes_profile, subcommand(args))
    return dispatch(args, parser)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
