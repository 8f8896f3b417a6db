"""``hermes chat``: talk to an ``llm`` model that uses the configured MCP servers' tools.

``hermes chat [-m MODEL] [-q PROMPT]``.  The model is ``-m``, else ``model:`` in
``config.yaml``, else ``llm``'s default model (``llm models default``).  Every enabled server
is started; the model is offered their gated, filtered tools, or a ``tool_search`` tool when
their schemas would pass the budget (:mod:`hermes_core.chat.offering`).  Calls go through the
host's call pipeline: trust approvals and servers' questions are asked on this terminal.
Each conversation is kept in ``state.db`` (``hermes mcp serve`` lists it, platform ``cli``).

With ``-q``, one turn and no prompt loop.  Without a terminal, each line of stdin is a turn.
Slash commands: ``/tools``, ``/mcp``, ``/reload-mcp``, ``/model [NAME]``, ``/help``, ``/exit``.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sqlite3
import sys
import uuid
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from hermes_core.chat.offering import ToolOffer
from hermes_core.chat.session import ChatError, ChatSession, load_model
from hermes_core.cli.ask import TerminalElicitor
from hermes_core.cli.chat_output import TerminalOutput
from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.hosting import start_with_progress
from hermes_core.cli.loading import factory_for, load
from hermes_core.cli.stop import Stop
from hermes_core.config.chat import ChatSettings, chat_settings
from hermes_core.config.models import ConfigError
from hermes_core.host.server_spec import HostServer
from hermes_core.host.server_status import tool_count
from hermes_core.host.setup.factory import HostFactory
from hermes_core.sanitize import clean_line
from hermes_core.sessions import SchemaError, SessionStore
from hermes_core.spelling import closest

if TYPE_CHECKING:
    from hermes_core.host.host import MCPHost

__all__ = ["SLASH_COMMANDS", "run"]

PROMPT = "you> "
_TITLE_CHARS = 60


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes chat [-m MODEL] [-q PROMPT]``."""
    return _chat(plugins, args.model, args.query)


def _settings(factory: HostFactory) -> tuple[ChatSettings, list[HostServer]]:
    loaded = load(factory)
    try:
        return chat_settings(loaded), factory.servers(loaded)
    except ConfigError as exc:
        raise Stop(EXIT_USAGE, str(exc)) from None


def _chat(plugins: PluginLoader, model: str | None, query: str | None) -> int:
    if query is not None and not query.strip():
        raise Stop(EXIT_USAGE, "-q needs a prompt (the text of the one turn)")
    try:
        import llm  # noqa: F401 - only to say what is missing
    except ImportError:
        raise Stop(EXIT_FAILED, "hermes chat needs llm: pip install 'hermes-core[chat]'") from None
    factory = factory_for(plugins())
    settings, servers = _settings(factory)
    model = model or settings.model
    try:
        load_model(model)  # before any server starts: a wrong name is said at once
    except ChatError as exc:
        raise Stop(EXIT_USAGE, str(exc)) from None
    output = TerminalOutput()
    history = _History()

    async def main() -> int:
        host = factory.host(servers, elicitor=TerminalElicitor())
        try:
            if query is None:
                if servers:
                    output.say(f"connecting {len(servers)} server(s)…")
                await host.start()
            else:  # one turn: a spinner while they connect, on a terminal only
                starting = [s for s in servers if s.enabled and not s.lazy]
                await start_with_progress(host, starting, quiet=True)
            for row in host.status():
                if row.enabled and not row.offered:
                    output.say(
                        f"# {row.server}: no tools ({row.last_error or row.gate or row.connection})"
                    )
            offer = ToolOffer(host, settings, _always_load(servers))
            _follow(host, factory, offer)
            session = ChatSession(host, offer, model, output, record=history.record)
            history.model = session.model_id
            repl = _Repl(host, factory, offer, session, output, history)
            if query is not None:
                return await repl.turn(query)
            return await repl.loop()
        finally:
            await host.close()
            history.close()

    return asyncio.run(main())


def _follow(host: MCPHost, factory: HostFactory, offer: ToolOffer) -> None:
    """A long chat follows edits of the policy, config.yaml and .env as the other long-lived
    processes do (each call is decided on them as they are); the chat settings read with the
    servers apply to what the model is offered after each reload."""
    read: list[tuple[ChatSettings, list[HostServer]]] = []

    def servers() -> list[HostServer]:  # (in a worker thread; a bad file: logged, kept)
        loaded = factory.load_config()
        settings, found = chat_settings(loaded), factory.servers(loaded)
        read[:] = [(settings, found)]
        return found

    def reconfigure(_diff: object) -> None:  # (on the loop, after the reload)
        if read:
            settings, found = read[0]
            offer.reconfigure(settings, _always_load(found))

    host.watch_config(
        load=servers, display_names=factory.source.display_names, on_reload=reconfigure
    )


def _always_load(servers: list[HostServer]) -> list[str]:
    return [s.name for s in servers if s.always_load]


class _History:
    """The conversation in ``state.db`` (``cli:<id>``); a store that cannot be opened is
    said once and the chat goes on without it."""

    def __init__(self) -> None:
        self.key = f"cli:{uuid.uuid4().hex[:12]}"
        self.model = ""
        self._titled = False
        self._store: SessionStore | None
        try:
            self._store = SessionStore()
        except (SchemaError, OSError, sqlite3.Error) as exc:
            print(f"warning: the conversation is not kept: {exc}", file=sys.stderr)
            self._store = None

    def record(self, role: str, text: str) -> None:
        if self._store is None:
            return
        title = None
        if not self._titled and role == "user":
            title = clean_line(text)[:_TITLE_CHARS]
        author = _user() if role == "user" else self.model if role == "assistant" else ""
        try:
            self._store.record_message(
                self.key, role, text, author=author, chat_type="dm", title=title, user_name=_user()
            )
        except sqlite3.Error as exc:
            self._give_up(exc)
            return
        self._titled = self._titled or title is not None

    def tokens(self, added: tuple[int, int]) -> None:
        if self._store is None or not any(added) or not self._titled:
            return
        try:
            self._store.upsert_conversation(self.key, add_tokens=added)
        except sqlite3.Error as exc:
            self._give_up(exc)

    def _give_up(self, exc: Exception) -> None:
        """A write that failed (a full disk, a locked file): said once, and no more tried."""
        print(f"warning: the conversation is no longer kept: {exc}", file=sys.stderr)
        if self._store is not None:
            self._store.close()
        self._store = None

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""


Slash = Callable[["_Repl", str], Coroutine[Any, Any, bool]]


class _Repl:
    """The prompt loop and its slash commands."""

    def __init__(
        self,
        host: MCPHost,
        factory: HostFactory,
        offer: ToolOffer,
        session: ChatSession,
        output: TerminalOutput,
        history: _History,
    ) -> None:
        self.host, self.factory, self.offer = host, factory, offer
        self.session, self.output, self.history = session, output, history

    async def turn(self, text: str) -> int:
        before = self.session.tokens
        try:
            await self.session.ask(text)
        except Exception as exc:  # noqa: BLE001 - the model's failure ends the turn, not the chat
            self.output.say(f"error: the model failed: {type(exc).__name__}: {exc}")
            return EXIT_FAILED
        finally:
            after = self.session.tokens
            self.history.tokens((after[0] - before[0], after[1] - before[1]))
        return EXIT_OK

    async def loop(self) -> int:
        terminal = sys.stdin.isatty()
        if terminal:
            self.output.say(
                f"hermes chat with {self.session.model_id}; {self._tools_summary()}. "
                "/help lists the commands, /exit ends."
            )
        while True:
            if terminal:
                self.output.out.write(PROMPT)
                self.output.out.flush()
            line = await asyncio.to_thread(sys.stdin.readline)
            if not line:  # end of input
                return EXIT_OK
            text = line.strip()
            if not text:
                continue
            if text.startswith("/"):
                if not await self.slash(text):
                    return EXIT_OK
                continue
            await self.turn(text)

    async def slash(self, text: str) -> bool:
        """Run one slash command; ``False`` ends the chat."""
        word, _, rest = text[1:].partition(" ")
        command = SLASH_COMMANDS.get(word.lower())
        if command is None:
            close = closest(word, list(SLASH_COMMANDS))
            hint = f"; did you mean /{close}?" if close else ""
            self.output.say(f"unknown command /{clean_line(word)}{hint} (/help lists them)")
            return True
        return await command(self, rest.strip())

    def _tools_summary(self) -> str:
        offered = self.offer.tools()
        every = self.host.tools()
        if not self.offer.searching:
            return f"{len(every)} tools (~{self.offer.all_tokens} tokens)"
        return (
            f"tool search on: {len(offered)} of {len(every)} tools loaded "
            f"(~{self.offer.offered_tokens()} tokens, all would be ~{self.offer.all_tokens})"
        )


async def _tools(repl: _Repl, _: str) -> bool:
    repl.output.say(repl._tools_summary())
    for entry in repl.offer.tools():
        summary = entry.description.strip().splitlines()[0] if entry.description.strip() else ""
        repl.output.say(f"  {entry.name}  {clean_line(summary)[:100]}")
    if repl.offer.searching:
        repl.output.say("  tool_search  finds the others by what they do")
    return True


async def _mcp(repl: _Repl, _: str) -> bool:
    for row in repl.host.status():
        mark = "ok" if row.offered else "--"
        count = tool_count(row.tools, row.host_tools, bare=True)
        line = f"[{mark}] {row.server}  {row.connection}  tools: {count}"
        if row.last_error:
            line += f"  last error: {clean_line(row.last_error)[:200]}"
        repl.output.say(line)
    return True


async def _reload(repl: _Repl, _: str) -> bool:
    try:
        settings, servers = _settings(repl.factory)
    except Stop as stop:  # a bad file: said, and the running servers are kept
        repl.output.say(
            f"error: {stop.message or 'config.yaml could not be read'}; nothing changed"
        )
        return True
    changes = await repl.host.reload(servers)
    repl.offer.reconfigure(settings, _always_load(servers))
    done = [f"{what}: {', '.join(names)}" for what, names in changes.items() if names]
    repl.output.say("reloaded" + (f" ({'; '.join(done)})" if done else ": no change"))
    repl.output.say(repl._tools_summary())
    return True


async def _model(repl: _Repl, name: str) -> bool:
    if not name:
        repl.output.say(f"model: {repl.session.model_id}")
        return True
    try:
        await repl.session.switch_model(name)
    except ChatError as exc:
        repl.output.say(f"error: {exc}")
        return True
    repl.history.model = repl.session.model_id
    repl.output.say(f"model: {repl.session.model_id}")
    return True


async def _help(repl: _Repl, _: str) -> bool:
    for line in (
        "/tools        the tools the model is offered now",
        "/mcp          the servers' status",
        "/reload-mcp   read config.yaml again and apply it",
        "/model [NAME] show the model, or switch to NAME (llm models lists them)",
        "/exit         end the chat",
    ):
        repl.output.say(line)
    return True


async def _exit(repl: _Repl, _: str) -> bool:
    return False


#: The slash commands, by name.
SLASH_COMMANDS: dict[str, Slash] = {
    "tools": _tools,
    "mcp": _mcp,
    "reload-mcp": _reload,
    "model": _model,
    "help": _help,
    "exit": _exit,
    "quit": _exit,
}
