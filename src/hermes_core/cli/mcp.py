"""``hermes mcp …``: the configured servers, their status and tools, calling and testing them."""

from __future__ import annotations

import contextlib
import json
import logging
import sys
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from hermes_core.config.loader import LoadedConfig
from hermes_core.config.models import ConfigError, display_url
from hermes_core.config.redact import shown_args

if TYPE_CHECKING:
    from hermes_core.host.factory import HostFactory
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = [
    "call",
    "factory_for",
    "list_servers",
    "sampling_models",
    "status",
    "test_server",
    "tools",
]

T = TypeVar("T")
EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: ``hermes mcp call`` prints at most one progress line per this many seconds.
PROGRESS_INTERVAL = 0.5


class _Stop(Exception):
    def __init__(self, code: int) -> None:
        self.code = code


def factory_for(manager: HermesPluginManager | None) -> HostFactory:
    """The host factory of every ``hermes mcp`` command: *manager*'s transports and auth
    providers (the built-in ones when there is no manager)."""
    from hermes_core.host.factory import HostFactory

    return HostFactory() if manager is None else HostFactory.from_manager(manager)


def _load(factory: HostFactory | None = None, *, strict: bool = True) -> LoadedConfig:
    """``config.yaml`` against *factory*'s transports and auth providers (default: the
    built-in ones); a bad file prints its error and stops with exit code 2."""
    if factory is None:
        factory = factory_for(None)
    try:
        loaded = factory.load_config(strict=strict)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise _Stop(EXIT_USAGE) from None
    for warning in loaded.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for _name, problem in loaded.unavailable:
        print(f"warning: {problem}", file=sys.stderr)
    return loaded


def _progress(quiet: bool) -> Callable[[str, str | None, float], None] | None:
    if quiet:
        return None

    def show(name: str, error: str | None, seconds: float) -> None:
        lines = (error or "").splitlines() or [""]
        outcome = "connected" if error is None else f"failed: {lines[0]}"
        print(f"  {name}: {outcome} ({seconds:.2f} s)", file=sys.stderr, flush=True)
        for line in lines[1:]:  # a crashed server's stderr tail (already bounded)
            print(f"    | {line.strip()}", file=sys.stderr, flush=True)

    return show


def _with_host(
    manager: HermesPluginManager,
    body: Callable[[Any], Coroutine[Any, Any, T]],
    *,
    only: str | list[str] | None = None,
    quiet: bool = False,
    elicitor: Any = None,
) -> T:
    factory = factory_for(manager)
    loaded = _load(factory)
    try:
        wanted = [only] if isinstance(only, str) else only
        single = wanted[0] if wanted is not None and len(wanted) == 1 else None
        servers = factory.servers(loaded, only=single)
        if wanted is not None:
            servers = [s for s in servers if s.name in wanted]
    except ConfigError as exc:  # e.g. an unreadable $HERMES_HOME/.env
        print(f"error: {exc}", file=sys.stderr)
        raise _Stop(EXIT_USAGE) from None
    if wanted is not None and not servers:
        print(
            f"error: no server named {', '.join(map(repr, wanted))} in {loaded.path}",
            file=sys.stderr,
        )
        raise _Stop(EXIT_USAGE)

    progress = _progress(quiet)

    async def main() -> T:
        host = factory.host(servers, elicitor=elicitor)
        try:
            if servers and progress is not None:
                print(f"connecting {len(servers)} server(s)…", file=sys.stderr, flush=True)
            await host.start(progress)
            return await body(host)
        finally:
            await host.close()

    import asyncio

    return asyncio.run(main())


def _guard(action: Callable[[], int]) -> int:
    try:
        return action()
    except _Stop as stop:
        return stop.code


def list_servers(
    manager: HermesPluginManager | None = None,
    *,
    as_json: bool = False,
    plugins: Callable[[], HermesPluginManager] | None = None,
    no_plugins: bool = False,
) -> int:
    """The configured servers, without connecting.

    The file is validated against *manager*'s transports, auth providers and sampling
    backends; without one, against the installed plugins' names as remembered in
    ``$HERMES_HOME/cache`` (:mod:`hermes_core.plugins.config_keys`), loading the plugins
    through *plugins()* only when what decides those names changed."""

    def run() -> int:
        from hermes_core.cli import list_record

        loaded, record_key = _load_listed(manager, plugins, no_plugins)
        rows: list[dict[str, Any]] = []
        for name, cfg in loaded.config.mcp_servers.items():
            if cfg.uses_url:
                target = display_url(cfg.url or "")
            elif cfg.command is not None:
                target = " ".join([cfg.command or "", *shown_args(cfg.args)])
            else:  # a plugin transport's own key: its value may hold secrets
                target = ", ".join(f"{key}: ***" for key in cfg.options) or "-"
            rows.append(
                {
                    "server": name,
                    "transport": cfg.transport,
                    "enabled": cfg.enabled,
                    "target": target,
                }
            )
        warnings = [str(warning) for warning in loaded.warnings]
        if record_key is not None:
            cache = list_record.cache_file(loaded.path.parent)
            list_record.remember(cache, record_key, str(loaded.path), rows, warnings)
        list_record.print_rows(str(loaded.path), rows, warnings, as_json=as_json)
        return EXIT_OK

    return _guard(run)


def _load_listed(
    manager: HermesPluginManager | None,
    plugins: Callable[[], HermesPluginManager] | None,
    no_plugins: bool,
) -> tuple[LoadedConfig, str | None]:
    """``config.yaml`` for ``mcp list``: like :func:`_load`, without loading the plugins
    when their config names are remembered (the host factory is not needed to list); with the
    key to record what it lists under (:mod:`hermes_core.cli.list_record`), None when there is
    no file or the names come from *manager*."""
    from hermes_core.cli import list_record
    from hermes_core.config.loader import check_sampling_backends, hermes_home, load_config
    from hermes_core.plugins import config_keys

    fingerprint: str | None = None
    if manager is not None:
        keys = config_keys.PluginConfigKeys.of(manager)
    else:

        def load() -> HermesPluginManager:
            if plugins is not None:
                return plugins()
            from hermes_core.plugins.manager import get_plugin_manager

            return get_plugin_manager(no_plugins=no_plugins)

        keys, fingerprint = config_keys.lookup(hermes_home(), no_plugins=no_plugins, load=load)
    try:
        loaded = load_config(kinds=keys.kinds())
        check_sampling_backends(loaded, list(keys.sampling))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise _Stop(EXIT_USAGE) from None
    record_key = None
    if fingerprint is not None and loaded.digest is not None:
        record_key = list_record.key_for(loaded.path, loaded.digest, fingerprint, keys.names())
    return loaded, record_key


def status(manager: HermesPluginManager, *, as_json: bool = False) -> int:
    """Connect every enabled server and show connection, availability, tools and errors."""

    async def body(host: Any) -> list[dict[str, Any]]:
        return [row.__dict__.copy() for row in host.status()]

    def run() -> int:
        rows = _with_host(manager, body, quiet=as_json)
        if as_json:
            print(json.dumps(rows, indent=2))
        else:
            # One reason shared by every server (no backend, no model) is said once, at the end.
            infos = [r["sampling"] for r in rows if r.get("sampling")]
            shared = (
                len(infos) > 1 and all(i == infos[0] for i in infos) and not infos[0]["offered"]
            )
            for row in rows:
                mark = "ok" if row["offered"] else "--"
                print(
                    f"[{mark}] {row['server']}  [{row['transport']}]  {row['connection']}  "
                    f"app: {row['availability']}  tools: {row['tools']}"
                    + (f"  protocol: {row['protocol']}" if row.get("protocol") else "")
                )
                if row["last_error"]:
                    print(f"     last error: {row['last_error']}")
                if row.get("gate"):
                    print(f"     {row['gate']}")
                for line in _lifecycle_lines(row):
                    print(f"     {line}")
                if row.get("sampling") and not shared:
                    print(f"     sampling: {_sampling_line(row['sampling'])}")
                if row.get("roots"):
                    print(f"     roots: {_roots_line(row['roots'])}")
                for collision in row["name_collisions"]:
                    print(f"     {collision}")
            if shared:
                print(f"sampling (every server): {_sampling_line(infos[0])}")
        failed = [r for r in rows if r["enabled"] and not r["offered"]]
        return EXIT_FAILED if failed else EXIT_OK

    return _guard(run)


def _lifecycle_lines(row: dict[str, Any]) -> list[str]:
    """Status lines for what is not in its everyday state (breaker, keepalive, trust, lazy)."""
    lines = []
    breaker = row.get("breaker") or {}
    if breaker.get("state", "closed") != "closed":
        lines.append(
            f"breaker: {breaker['state']} after {breaker['strikes']} failures "
            f"(calls resume in {breaker['retry_in']:g} s)"
        )
    keepalive = row.get("keepalive") or {}
    if keepalive.get("failures"):
        lines.append(
            f"keepalive: {keepalive['failures']} failed probe(s), last: {keepalive['last_failure']}"
        )
    if row.get("trust") == "untrusted":
        approvals = row.get("approvals") or {}
        lines.append(
            "trust: untrusted (write-capable calls need approval; "
            f"approved {approvals.get('approved', 0)}, refused {approvals.get('refused', 0)})"
        )
    if row.get("filtered_out"):
        lines.append(f"filtered out: {row['filtered_out']} tool(s) by tools: include/exclude")
    counters = row.get("elicitation") or {}
    if counters.get("requests"):
        lines.append(
            f"elicitation: {counters['requests']} question(s): "
            + ", ".join(
                f"{counters.get(key, 0)} {key}"
                for key in ("accepted", "declined", "cancelled", "errors")
            )
        )
    lazy = row.get("lazy")
    if lazy is not None and not lazy.get("started"):
        cached = lazy.get("cached_tools")
        lines.append(
            f"lazy: {cached} tools from the cache; starts on first call"
            if lazy.get("cache") == "hit"
            else "lazy: no usable cache, started now"
        )
    return lines


def _roots_line(roots: list[dict[str, Any]]) -> str:
    """The configured roots on one line: ``/a/b (label), /c``."""
    from hermes_core.host.sanitize import clean_line

    return ", ".join(
        clean_line(root["path"]) + (f" ({clean_line(root['name'])})" if root.get("name") else "")
        for root in roots
    )


def _sampling_line(info: dict[str, Any]) -> str:
    if not info["offered"]:
        return f"not offered: {info['reason']}"
    model = info["model"] or "hint among " + ", ".join(info["allowed_models"])
    refused = sum(info["refused"].values())
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(info["refused"].items()))
    return (
        f"model {model} · {info['requests']} requests, {info['completed']} completed, "
        f"{refused} refused{f' ({reasons})' if reasons else ''}, {info['errors']} errors, "
        f"{info['timeouts']} timeouts · tokens {info['tokens_in']} in / {info['tokens_out']} out"
        f" · last model {info['last_model'] or '-'}"
    )


def sampling_models(manager: HermesPluginManager, *, as_json: bool = False) -> int:
    """The models the installed sampling backends offer (``hermes mcp sampling models``)."""
    from hermes_core.sampling.catalog import NO_BACKEND, ModelCatalog

    providers = manager.sampling_providers()
    catalog = ModelCatalog.load(providers)
    rows: list[dict[str, Any]] = [
        {
            "backend": offered.backend,
            "model": offered.info.id,
            "aliases": list(offered.info.aliases),
            "tools": offered.info.supports_tools,
            "images": offered.info.supports_images,
        }
        for offered in catalog.models()
    ]
    if as_json:
        print(json.dumps(rows, indent=2))
    elif not providers:
        print(NO_BACKEND, file=sys.stderr)
    else:
        for row in rows:
            aliases = f"  (aliases: {', '.join(row['aliases'])})" if row["aliases"] else ""
            extras = [k for k in ("tools", "images") if row[k]]
            accepts = f"  [{', '.join(extras)}]" if extras else ""
            print(f"{row['backend']}: {row['model']}{aliases}{accepts}")
        for name, problem in catalog.problems.items():
            print(f"# {name}: {problem}", file=sys.stderr)
    return EXIT_OK if rows else EXIT_FAILED


def tools(manager: HermesPluginManager, server: str | None, *, as_json: bool = False) -> int:
    """The tools an agent would see (per server), with the reason for any hidden server."""

    async def body(host: Any) -> tuple[list[Any], list[Any], dict[str, dict[str, str]]]:
        return host.tools(server), host.status(), host.unoffered_tools

    def run() -> int:
        entries, rows, unoffered = _with_host(manager, body, only=server, quiet=as_json)
        if as_json:
            print(json.dumps([e.__dict__ for e in entries], indent=2))
        else:
            for entry in entries:
                summary = (
                    entry.description.strip().splitlines()[0] if entry.description.strip() else ""
                )
                print(f"{entry.name}  ({entry.toolset})  {summary}")
            for row in rows:
                if not row.offered:
                    if not row.enabled:
                        reason = "disabled in config.yaml; `hermes mcp enable` turns it on"
                    else:
                        reason = row.last_error or row.gate or row.availability
                    print(f"# {row.server}: no tools offered ({reason})", file=sys.stderr)
        for name, why_not in sorted(unoffered.items()):
            for tool, reason in sorted(why_not.items()):
                print(f"# {name}: tool {tool!r} {reason}", file=sys.stderr)
        return EXIT_OK if entries else EXIT_FAILED

    return _guard(run)


def _owners(tool: str, servers: Mapping[str, Any]) -> list[str]:
    """The enabled servers whose tools could be registered as *tool*: those whose
    ``mcp_<server>_`` prefix it starts with (several only when names overlap, e.g. ``my`` and
    ``my-api``; a name clamped to 64 characters keeps its first 55)."""
    from hermes_core.host.naming import MAX_NAME_LENGTH, sanitize_component

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
    raw_args: str,
    *,
    approvals: str = "terminal",
    server: str | None = None,
    verbose: bool = False,
) -> int:
    """Call one tool with JSON arguments and print the result as JSON.

    Only the server that owns the tool is started (named by ``--server``, else read from the
    tool's ``mcp_<server>_`` prefix), so an unrelated slow or broken server costs nothing.
    *approvals*: ``terminal`` asks a server's questions here; ``store`` records them in
    ``state.db`` and waits for an answer (``permissions_respond`` of ``hermes mcp serve``).
    The server's progress reports show as a ``progress:`` line on stderr (at most a few a
    second); *verbose* shows its log messages on stderr too.
    """

    def run() -> int:
        try:
            arguments = json.loads(raw_args) if raw_args else {}
        except json.JSONDecodeError as exc:
            print(f"error: --args is not valid JSON: {exc}", file=sys.stderr)
            return EXIT_USAGE
        if not isinstance(arguments, dict):
            print("error: --args must be a JSON object", file=sys.stderr)
            return EXIT_USAGE
        configured = _load(factory_for(manager)).config.mcp_servers
        if server is not None:
            owners = [server]
        else:
            owners = _owners(tool, configured)
            if not owners:
                enabled = [f"mcp_{n}_…" for n, c in configured.items() if c.enabled]
                hint = f" (tool names start with: {', '.join(enabled)})" if enabled else ""
                result = {"error": f"unknown tool {tool!r}: no enabled server owns it{hint}"}
                print(json.dumps(result, indent=2, ensure_ascii=False))
                return EXIT_FAILED

        async def body(host: Any) -> tuple[dict[str, Any], list[Any]]:
            if host.registry.get(tool) is None:
                return _missing_tool(host, tool), host.status()
            progress = _ProgressLine()
            try:
                result: dict[str, Any] = await host.call_tool(tool, arguments, on_progress=progress)
            finally:
                progress.done()
            return result, host.status()

        elicitor: Any
        if approvals == "store":
            from hermes_core.sessions import SessionStore, StoreElicitor

            elicitor = StoreElicitor(SessionStore())
        else:
            from hermes_core.cli.ask import TerminalElicitor

            elicitor = TerminalElicitor()
        with _server_logs_on_stderr(verbose):
            result, rows = _with_host(manager, body, only=owners, quiet=True, elicitor=elicitor)
        print(json.dumps(result, indent=2, ensure_ascii=False))
        for row in rows:  # what the call cost, when the server asked the LLM
            if row.sampling and row.sampling.get("requests"):
                print(f"# {row.server} sampling: {_sampling_line(row.sampling)}", file=sys.stderr)
        return EXIT_FAILED if "error" in result or result.get("isError") else EXIT_OK

    return _guard(run)


class _ProgressLine:
    """A call's progress on stderr: ``progress: 3/10 (30%) message``, at most one line per
    :data:`PROGRESS_INTERVAL` seconds (the last report always shows)."""

    def __init__(self) -> None:
        self._shown_at = 0.0
        self._pending: str | None = None

    def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        line = f"progress: {progress:g}"
        if total:
            line += f"/{total:g} ({min(100.0, 100 * progress / total):.0f}%)"
        if message:
            line += f" {message}"
        now = time.monotonic()
        if now - self._shown_at < PROGRESS_INTERVAL:
            self._pending = line
            return
        self._shown_at, self._pending = now, None
        print(line, file=sys.stderr, flush=True)

    def done(self) -> None:
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


def _missing_tool(host: Any, tool: str) -> dict[str, Any]:
    """Why *tool* is not there: its server failed (and why), or close names it does have."""
    import difflib

    failed = [row for row in host.status() if row.enabled and row.last_error]
    if failed and not host.registry.entries():
        row = failed[0]
        return {
            "error": f"MCP server '{row.server}' failed, so {tool!r} is not available: "
            f"{row.last_error}",
            "server": row.server,
            "state": "not_connected",
        }
    names = [entry.name for entry in host.registry.entries()]
    close = difflib.get_close_matches(tool, names, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return {"error": f"unknown tool {tool!r}{hint}"}


def test_server(manager: HermesPluginManager, name: str, *, as_json: bool = False) -> int:
    """Connect one server, list its tools, and time both.

    Exit 0 only when the server connected *and* listed its tools; 1 when either failed, or
    when the server is disabled (it is not tested: nothing is claimed of it); 2 for a bad
    config or an unknown name.  A ``lazy`` server is started (not read from its cache)."""

    async def body(host: Any) -> dict[str, Any]:
        (row,) = host.status()
        if row.connection == "lazy":  # registered from its cache: a test really connects
            await host._wake_lazy(name)
            (row,) = host.status()
        error = row.last_error
        if not row.enabled:
            error = (
                f"disabled in config.yaml, so it was not tested "
                f"(`hermes mcp enable {name}` turns it on)"
            )
        elif error is None and row.connection != "connected":
            error = f"not connected ({row.connection})"
        return {
            "server": name,
            "connection": row.connection,
            "tools": [e.name for e in host.tools(include_gated=True)] if row.enabled else [],
            "error": error,
        }

    def run() -> int:
        started = time.monotonic()
        report = _with_host(manager, body, only=name, quiet=True)
        report["seconds"] = round(time.monotonic() - started, 3)
        if as_json:
            print(json.dumps(report, indent=2))
        elif report["connection"] == "disabled":
            print(f"{name}: {report['error']}")
        elif report["error"]:
            print(f"{name}: failed after {report['seconds']} s: {report['error']}")
        else:
            count, seconds = len(report["tools"]), report["seconds"]
            print(f"{name}: connected and listed {count} tools in {seconds} s")
            for tool_name in report["tools"]:
                print(f"  {tool_name}")
        return EXIT_FAILED if report["error"] else EXIT_OK

    return _guard(run)
