"""``hermes mcp call TOOL``: call one tool with JSON arguments and print the result as JSON."""

from __future__ import annotations

import argparse
import contextlib
import logging
import sys
import time
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from hermes_core.cli.ask import TerminalElicitor
from hermes_core.cli.call_args import ArgumentError, arguments, parse_pairs
from hermes_core.cli.call_result import show_result
from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.hosting import with_host
from hermes_core.cli.loading import factory_for, load
from hermes_core.cli.progress import Activity, spinner_allowed
from hermes_core.cli.status_text import sampling_line
from hermes_core.cli.stop import guard
from hermes_core.home import hermes_home
from hermes_core.host.close_names import did_you_mean
from hermes_core.host.naming import MAX_NAME_LENGTH, sanitize_component
from hermes_core.host.tasks.record import TASKS_RECORD, TaskRecordFile
from hermes_core.offers.elicitation import ElicitationAnswer, ElicitationRequest
from hermes_core.sanitize import clean_line
from hermes_core.sessions import SessionStore, StoreElicitor

if TYPE_CHECKING:
    from hermes_core.host.host import MCPHost
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["PROGRESS_INTERVAL", "call", "run"]

#: ``hermes mcp call`` prints at most one progress line per this many seconds.
PROGRESS_INTERVAL = 0.5


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp call TOOL [key=value …] [--args JSON] [--json] [--approvals …]
    [--server NAME] [-v]``."""
    return call(
        plugins(),
        args.tool,
        args.args,
        approvals=args.approvals,
        server=args.server,
        verbose=args.verbose,
        pairs=args.pairs,
        as_json=args.json,
    )


def _owners(tool: str, servers: Mapping[str, Any]) -> list[str]:
    """The enabled servers whose tools could be registered as *tool*: those whose
    ``mcp_<server>_`` prefix it starts with (several only when names overlap, e.g. ``my`` and
    ``my-api``; a name clamped to 64 characters keeps its first 55)."""
    kept = MAX_NAME_LENGTH - 9
    found = []
    for name, cfg in servers.items():
        if not cfg.enabled:
            continue
        prefix = f"mcp_{sanitize_component(name)}_"
        clamped = len(tool) == MAX_NAME_LENGTH and prefix[:kept] == tool[:kept]
        if tool.startswith(prefix) or clamped:
            found.append(name)
    return found


def call(
    manager: HermesPluginManager,
    tool: str,
    raw_args: str | None,
    *,
    approvals: str = "terminal",
    server: str | None = None,
    verbose: bool = False,
    pairs: list[str] | None = None,
    as_json: bool = False,
) -> int:
    """Call one tool and print its result: as text (:func:`result_text`), or the raw result
    as JSON with *as_json*.  The arguments are *raw_args* (a JSON object) or *pairs*
    (``key=value`` words, :mod:`hermes_core.cli.call_args`).

    Only the server that owns the tool is started (named by ``--server``, else read from the
    tool's ``mcp_<server>_`` prefix), so an unrelated slow or broken server costs nothing; a
    bare name (``read_text_file``) starts them all, to name the tools it may mean.
    *approvals*: ``terminal`` asks a server's questions here; ``store`` records them in
    ``state.db`` and waits for an answer (``permissions_respond`` of ``hermes mcp serve``).
    The server's progress reports show as a ``progress:`` line on stderr (at most a few a
    second); *verbose* shows its log messages on stderr too.
    """

    def run() -> int:
        try:
            words = parse_pairs(pairs or [])
            checked = arguments(raw_args, words, None)  # checked now; pairs read on the schema
            given = None if words else checked
        except ArgumentError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        configured = load(factory_for(manager)).config.mcp_servers
        owners: list[str] | None
        if server is not None:
            owners = [server]
        elif not tool.startswith("mcp_"):
            owners = None  # a bare name: every server starts, to say which names end in it
        else:
            owners = _owners(tool, configured)
            if not owners:
                enabled = [f"mcp_{n}_…" for n, c in configured.items() if c.enabled]
                hint = f" (tool names start with: {', '.join(enabled)})" if enabled else ""
                result = {"error": f"unknown tool {tool!r}: no enabled server owns it{hint}"}
                show_result(result, as_json=as_json)
                return EXIT_FAILED

        async def body(host: MCPHost) -> tuple[dict[str, Any], list[Any]]:
            entry = host.registry.get(tool)
            if entry is None:
                held = host.refusal(tool)  # held back by a pin or a decision: say why
                return held or _missing_tool(host, tool), host.status()
            # The call's tasks, for `hermes mcp tasks`.
            host.task_log.on_change(TaskRecordFile(hermes_home() / TASKS_RECORD))
            values = given if given is not None else arguments(None, words, entry.input_schema)
            try:
                result: dict[str, Any] = await host.call_tool(tool, values, on_progress=progress)
            finally:
                progress.done()
            return result, host.status()

        progress = _ProgressLine()
        asker: StoreElicitor | TerminalElicitor = (
            StoreElicitor(SessionStore()) if approvals == "store" else TerminalElicitor()
        )

        elicitor = _Pausing(asker, progress.pause)

        with _server_logs_on_stderr(verbose):
            result, rows = with_host(manager, body, only=owners, quiet=True, elicitor=elicitor)
        show_result(result, as_json=as_json)
        for row in rows:  # what the call cost, when the server asked the LLM
            if row.sampling and row.sampling.get("requests"):
                print(f"# {row.server} sampling: {sampling_line(row.sampling)}", file=sys.stderr)
        return EXIT_FAILED if "error" in result or result.get("isError") else EXIT_OK

    return guard(run)


class _Pausing:
    """The call's elicitor: the progress display paused before each question (never drawn
    over by the spinner); it can ask whoever *asker* can (``can_ask``: no terminal, no
    sampling that needs an approval is offered)."""

    def __init__(self, asker: Any, pause: Any) -> None:
        self._asker = asker
        self._pause = pause

    @property
    def can_ask(self) -> bool:
        return bool(getattr(self._asker, "can_ask", True))

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        self._pause()
        answer: ElicitationAnswer = await self._asker(request)
        return answer


class _ProgressLine:
    """A call's progress on stderr: ``progress: 3/10 (30%) message``; on a terminal one line
    that changes in place (a spinner), elsewhere at most one line per
    :data:`PROGRESS_INTERVAL` seconds (the last report always shows)."""

    def __init__(self) -> None:
        self._shown_at = 0.0
        self._pending: str | None = None
        self._activity: Activity | None = None

    def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        line = f"progress: {progress:g}"
        if total:
            line += f"/{total:g} ({min(100.0, 100 * progress / total):.0f}%)"
        if message:
            line += f" {clean_line(message)[:200]}"
        if spinner_allowed():
            if self._activity is None:
                self._activity = Activity(line, announce=False).__enter__()
            self._activity.update(line)
            self._pending = line  # kept on screen once the call ends
            return
        now = time.monotonic()
        if now - self._shown_at < PROGRESS_INTERVAL:
            self._pending = line
            return
        self._shown_at, self._pending = now, None
        print(line, file=sys.stderr, flush=True)

    def pause(self) -> None:
        """The spinner off (a question is asked); the next report draws it again."""
        if self._activity is not None:
            self._activity.__exit__(None, None, None)
            self._activity = None

    def done(self) -> None:
        self.pause()
        if self._pending is not None:
            print(self._pending, file=sys.stderr, flush=True)
            self._pending = None


@contextlib.contextmanager
def _server_logs_on_stderr(verbose: bool) -> Iterator[None]:
    """With *verbose*, servers' log messages (``hermes.mcp.<server>``) print on stderr; without
    it they are dropped (not even warnings reach Python's last-resort handler)."""
    root = logging.getLogger("hermes.mcp")
    handler: logging.Handler = logging.NullHandler()
    if verbose:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    before = root.level, root.propagate
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.CRITICAL)
    root.propagate = False
    try:
        yield
    finally:
        root.removeHandler(handler)
        root.level, root.propagate = before


def _missing_tool(host: MCPHost, tool: str) -> dict[str, Any]:
    """Why *tool* is not there: its server failed (and why), or close names it does have."""
    failed = [row for row in host.status() if row.enabled and row.last_error]
    if failed and not host.registry.entries():
        row = failed[0]
        return {
            "error": f"MCP server '{row.server}' failed, so {tool!r} is not available: "
            f"{row.last_error}",
            "server": row.server,
            "state": "not_connected",
        }
    hint = did_you_mean(tool, host.registry.names())
    why = host.why_not_offered(tool)
    if why is not None:
        return {"error": why + hint, "state": "not_offered"}
    return {"error": f"unknown tool {tool!r}{hint}"}
