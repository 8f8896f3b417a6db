"""``hermes mcp trust SERVER [TOOL…]`` (accept tools whose pinned definition changed: exactly
the definition shown, see :func:`run_trust`) and
``hermes mcp approvals list|set|reset`` (the remembered per-tool decisions); see docs/trust.md.

Both read and write ``$HERMES_HOME/trust.db``; a running host applies what they change to its
next call or listing (it asks the file whether it changed before each).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader, interactive
from hermes_core.cli.loading import factory_for, load
from hermes_core.cli.prompts import Cancelled, confirm
from hermes_core.cli.stop import Stop
from hermes_core.host.trust.decisions import Decision
from hermes_core.host.trust.identity import name_key
from hermes_core.host.trust.review import Review, reviews
from hermes_core.host.trust.state import TrustState
from hermes_core.host.trust.store import Acceptance, TrustStoreError
from hermes_core.sanitize import clean_line
from hermes_core.spelling import closest

if TYPE_CHECKING:
    from hermes_core.host.setup.factory import HostFactory

__all__ = ["run_approvals", "run_trust"]


def _store(factory: HostFactory) -> TrustState:
    """trust.db, or the state database with ``state:`` (a bad config stops with its error)."""
    load(factory, strict=False)
    return factory.trust_store()


def _known_server(name: str, names: Iterable[str]) -> None:
    """*name* must be a configured server (or one the trust state knows)."""
    known = sorted(set(names))
    if name in known:
        return
    close = closest(name, known)
    hint = f"; did you mean {close!r}?" if close else ""
    listed = f" (servers: {', '.join(known)})" if known and not close else ""
    raise Stop(EXIT_USAGE, f"no server named {name!r}{hint}{listed}")


def run_trust(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp trust SERVER [TOOL…] [--digest D] [--yes] [--json]``: shows each waiting
    change with its digest and accepts exactly the definition shown — asked on a terminal
    (unless ``--yes``), the one whose digest ``--digest`` gives, or, without a terminal, the
    one printed.  A definition the server changed again meanwhile is not accepted."""

    factory = factory_for(plugins())
    store = _store(factory)
    try:
        waiting = reviews(store, args.name).get(args.name, {})
        configured = list(load(factory, strict=False).config.mcp_servers)
        _known_server(args.name, [*configured, *store.changes()])
        wanted = list(dict.fromkeys(args.tools)) or sorted(waiting)
        if args.digest is not None and len(wanted) != 1:
            raise Stop(EXIT_USAGE, "--digest names one definition: give exactly one TOOL")
        missing = [tool for tool in wanted if tool not in waiting]
        if missing:
            names = ", ".join(sorted(waiting)) or "none"
            raise Stop(
                EXIT_USAGE,
                f"no change of {', '.join(map(repr, missing))} waits for '{args.name}' "
                f"(tools waiting: {names})",
            )
        asked = args.digest is None and not args.yes and not args.json and interactive()
        outcomes = _accept(store, [waiting[tool] for tool in wanted], args, asked=asked)
    except TrustStoreError as exc:
        raise Stop(EXIT_FAILED, str(exc)) from None
    return _report(args, waiting, outcomes, shown=asked)


def _accept(
    store: TrustState, changed: list[Review], args: argparse.Namespace, *, asked: bool
) -> dict[str, Acceptance | None]:
    """Tool -> what became of accepting it (``None``: the user said no); *asked*: each change
    is shown and asked about first."""
    outcomes: dict[str, Acceptance | None] = {}
    for review in changed:
        if asked:
            _show(f"{review.server}/{clean_line(review.tool)} changed", review)
            try:
                agreed = confirm("Accept this definition?", default=False)
            except Cancelled:
                agreed = False
            if not agreed:
                outcomes[review.tool] = None
                continue
        try:
            outcomes[review.tool] = store.accept(
                review.server, review.tool, args.digest or review.digest
            )
        except ValueError as exc:
            raise Stop(EXIT_USAGE, f"--digest: {exc}") from None
    return outcomes


def _show(head: str, review: Review) -> None:
    print(f"{head}:")
    for line in review.lines:
        print(f"  {line}")
    print(f"  digest {review.short_digest}")


def _report(
    args: argparse.Namespace,
    waiting: dict[str, Review],
    outcomes: dict[str, Acceptance | None],
    *,
    shown: bool,
) -> int:
    """Says what was accepted (with the diff, unless it was *shown* before the question)."""
    accepted = [tool for tool, done in outcomes.items() if done is Acceptance.ACCEPTED]
    again = [tool for tool, done in outcomes.items() if done is Acceptance.CHANGED_AGAIN]
    gone = [tool for tool, done in outcomes.items() if done is Acceptance.NOT_WAITING]
    problems = {
        **{tool: _changed_again(args.name, tool) for tool in again},
        **{tool: f"no change of {tool!r} waits any more" for tool in gone},
    }
    if args.json:
        print(
            json.dumps(
                {
                    "server": args.name,
                    "accepted": {t: list(waiting[t].lines) for t in accepted},
                    "digests": {t: waiting[t].digest for t in accepted},
                    "refused": problems,
                }
            )
        )
    elif not outcomes:
        print(f"nothing to accept for '{args.name}': no tool changed since it was pinned")
    else:
        for tool in accepted:
            if shown:
                print(f"accepted {args.name}/{clean_line(tool)}")
            else:
                _show(f"accepted {args.name}/{clean_line(tool)}", waiting[tool])
        for tool, done in outcomes.items():
            if done is None:
                print(f"left {args.name}/{clean_line(tool)} held back (not accepted)")
    for problem in problems.values():
        print(f"error: {problem}", file=sys.stderr)
    return EXIT_FAILED if problems else EXIT_OK


def _changed_again(server: str, tool: str) -> str:
    quoted = f"{shlex.quote(server)} {shlex.quote(clean_line(tool))}"
    return (
        f"{server}/{clean_line(tool)} changed again since it was shown: not accepted; review it "
        f"(hermes mcp trust {quoted})"
    )


def run_approvals(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp approvals list|set|reset``."""

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


def _known_tool(store: TrustState, server: str, tool: str) -> None:
    """A tool of a server whose tools are pinned must be one of them (did-you-mean)."""
    pinned = sorted(store.pins(server))
    if not pinned or name_key(tool) in {name_key(name) for name in pinned}:
        return  # (a decision holds for the name the agent sees: read-file decides read_file)
    close = closest(tool, pinned)
    hint = f"; did you mean {close!r}?" if close else f" (its tools: {', '.join(pinned)})"
    raise Stop(EXIT_USAGE, f"server '{server}' has no tool named {tool!r}{hint}")


def _list(store: TrustState, server: str | None, as_json: bool) -> int:
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
