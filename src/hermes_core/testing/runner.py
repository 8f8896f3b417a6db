"""Running the ``hermes`` command from a plugin's tests, against a throwaway ``HERMES_HOME``.

:class:`HermesRunner` runs the real command in a child process (``python -m hermes_core``, the
interpreter of the tests, so the plugin under test is installed in it), which is what a user
runs and the right way for any command that starts servers.  :meth:`HermesRunner.in_process`
runs it inside the test's process instead, much faster, for commands that start no server and
need no terminal (``mcp list``, ``mcp get``, ``plugins list``, ``apps check``).  Both return a
:class:`HermesResult`.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["HermesResult", "HermesRunner"]


@dataclass(frozen=True)
class HermesResult:
    """What one ``hermes`` command did."""

    exit_code: int
    stdout: str
    stderr: str


class HermesRunner:
    """``hermes`` against *home* (its ``HERMES_HOME``), with *env* added to the environment."""

    def __init__(self, home: Path, env: Mapping[str, str] | None = None) -> None:
        self.home = home
        self.env = dict(env or {})

    def __call__(
        self,
        *args: str,
        input: str | None = None,
        env: Mapping[str, str] | None = None,
        timeout: float = 120,
    ) -> HermesResult:
        """Run ``hermes ARGS`` in a child process; *input* is its standard input (none: empty)."""
        done = subprocess.run(
            [sys.executable, "-m", "hermes_core", *args],
            input=input or "",
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **self._environment(env)},
        )
        return HermesResult(done.returncode, done.stdout, done.stderr)

    def in_process(
        self, *args: str, input: str | None = None, env: Mapping[str, str] | None = None
    ) -> HermesResult:
        """Run ``hermes ARGS`` in this process (for commands that start no server)."""
        from hermes_core.cli import main  # (the CLI: loaded when a test runs one)

        out, err = io.StringIO(), io.StringIO()
        with _environment(self._environment(env)), contextlib.ExitStack() as stack:
            stack.enter_context(contextlib.redirect_stdout(out))
            stack.enter_context(contextlib.redirect_stderr(err))
            saved_stdin, sys.stdin = sys.stdin, io.StringIO(input or "")
            try:
                code = main(list(args))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            finally:
                sys.stdin = saved_stdin
        return HermesResult(code, out.getvalue(), err.getvalue())

    def _environment(self, extra: Mapping[str, str] | None) -> dict[str, str]:
        return {"HERMES_HOME": str(self.home), "NO_COLOR": "1", **self.env, **(extra or {})}


@contextlib.contextmanager
def _environment(values: Mapping[str, str]) -> Iterator[None]:
    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
