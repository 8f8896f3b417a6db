"""``python hermes_shim.py SOCKET ARGS``: ``hermes ARGS`` forked from the suite's launcher
(``support/cli_zygote.py``) with this process's stdin, stdout and stderr, for a test whose
client starts the command itself (the ``mcp`` SDK's ``stdio_client`` on ``hermes mcp proxy``).

Standard library only (a start of a few hundredths of a second): it hands its three file
descriptors, environment and working directory to the launcher, lets go of its stdin and
stdout (the command's end of file is the client's, as with one process), passes on ``SIGTERM``,
``SIGINT`` and ``SIGHUP``, and ends as the command ended (its exit status, or its signal).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import sys


def main() -> None:
    path, argv = sys.argv[1], sys.argv[2:]
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.connect(path)
    body = json.dumps({"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    socket.send_fds(connection, [f"{len(body)}\n".encode()], [0, 1, 2])
    connection.sendall(body)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    answers = connection.makefile("rb")
    pid = int(answers.readline().split()[1])

    def forward(number: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, number)

    for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(number, forward)
    line = answers.readline().split()
    code = int(line[1]) if len(line) == 2 else 1
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)


if __name__ == "__main__":
    main()
