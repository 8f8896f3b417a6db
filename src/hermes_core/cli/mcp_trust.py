"""``hermes mcp trust SERVER [TOOL…]`` (accept tools whose pinned definition changed) and
``hermes mcp approvals list|set|reset`` (the remembered per-tool decisions); see docs/trust.md.

Both read and write ``$HERMES_HOME/trust.db``; a running host applies what they change to its
next call or listing (it asks the file whether it changed before each).
"""

from __future__ import annotations

import argparse
import difflib
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.loading import factory_for, load
from hermes_core.cli.stop import Stop, guard
from hermes_core.host.trust.decisions import Decision
from hermes_core.host.trust.definitions import changes
from hermes_core.host.trust.store import TrustStore, TrustStoreError
from hermes_core.sanitize import clean_line

if TYPE_CHECKING:
    from hermes_core.host.factory import HostFactory

__all__ = ["run_approvals", "run_trust"]


def _store(factory: HostFactory) -> TrustStore:
    return factory.trust_store()


def _known_server(name: str, names: Iterable[str]) -> None:
    """*name* must be a configured server (or one the trust state knows)."""
    known = sorted(set(names))
    if name in known:
        return
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    listed = f" (servers: {', '.join(known)})" if known and not close else ""
    raise Stop(EXIT_USAGE, f"no server named {name!r}{hint}{listed}")


def run_trust(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp trust SERVER [TOOL…] [--json]``."""

    def run() -> int:
        factory = factory_for(plugins())
        store = _store(factory)
        try:
            waiting = store.changes(args.name).get(args.name, {})
            configured = list(load(factory, strict=False).config.mcp_servers)
            _known_server(args.name, [*configured, *store.changes()])
            pins = store.pins(args.name)
            wanted = list(dict.fromkeys(args.tools)) or sorted(waiting)
            missing = [tool for tool in wanted if tool not in waiting]
            if missing:
                names = ", ".join(sorted(waiting)) or "none"
                raise Stop(
                    EXIT_USAGE,
                    f"no change of {', '.join(map(repr, missing))} waits for '{args.name}' "
                    f"(tools waiting: {names})",
                )
            shown = {
                tool: changes(
                    pins[tool].definition if tool in pins else {}, waiting[tool].definition or {}
                )
                for tool in wanted
            }
            accepted = store.accept(args.name, wanted)
        except TrustStoreError as exc:
            raise Stop(EXIT_FAILED, str(exc)) from None
        if args.json:
            print(json.dumps({"server": args.name, "accepted": {t: shown[t] for t in accepted}}))
            return EXIT_OK
        if not accepted:
            print(f"nothing to accept for '{args.name}': no tool changed since it was pinned")
            return EXIT_OK
        for tool in accepted:
            print(f"accepted {args.name}/{clean_line(tool)}:")
            for line in shown[tool]:
                print(f"  {line}")
        return EXIT_OK

    return guard(run)


def run_approvals(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp approvals list|set|reset``."""

    def run() -> int:
        factory = factory_for(plugins())
        store = _store(factory)
        verb = args.approvals_command
        try:
            if verb == "list":
                return _list(store, args.name, args.json)
            configured = list(load(factory, strict=False).config.mcp_servers)
            known = [*configured, *store.decisions()]
            _known_server(args.name, known)
            if verb == "set":
                try:
                    decision = Decision.parse(args.decision)
                except ValueError as exc:
                    raise Stop(EXIT_USAGE, str(exc)) from None
                _known_tool(store, args.name, args.tool)
                store.decide(args.name, args.tool, decision)
                print(f"{args.name}/{clean_line(args.tool)}: {decision.value}")
                return EXIT_OK
            forgotten = store.reset(args.name, args.tool)
        except TrustStoreError as exc:
            raise Stop(EXIT_FAILED, str(exc)) from None
        which = f"{args.name}/{clean_line(args.tool)}" if args.tool else f"'{args.name}'"
        print(f"forgot {forgotten} decision{'s' if forgotten != 1 else ''} of {which}")
        return EXIT_OK

    return guard(run)


def _known_tool(store: TrustStore, server: str, tool: str) -> None:
    """A tool of a server whose tools are pinned must be one of them (did-you-mean)."""
    pinned = sorted(store.pins(server))
    if not pinned or tool in pinned:
        return
    close = difflib.get_close_matches(tool, pinned, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else f" (its tools: {', '.join(pinned)})"
    raise Stop(EXIT_USAGE, f"server '{server}' has no tool named {tool!r}{hint}")


def _list(store: TrustStore, server: str | None, as_json: bool) -> int:
    decisions = store.decisions(server)
    if as_json:
        print(
            json.dumps(
                {s: {t: d.value for t, d in tools.items()} for s, tools in decisions.items()}
            )
        )
        return EXIT_OK
    if not decisions:
        print("no remembered decisions (every tool follows its server's trust tier)")
        return EXIT_OK
    for name, tools in decisions.items():
        for tool, decision in tools.items():
            print(f"{name}/{clean_line(tool)}  {decision.value}")
    return EXIT_OK
