"""Which module runs each ``hermes`` subcommand: the CLI's one place of lazy imports.

:data:`HANDLERS` maps a subcommand's words to its handlers, ``"module:function"``; the module
is imported only when that subcommand runs, so ``hermes --help`` loads the parser alone and a
light command (``hermes mcp list``) never loads what a server-contacting one needs.  A handler
takes the parsed arguments and the plugin loader and returns the exit code, or ``None`` to let
the next handler of the same subcommand run (``mcp list`` prints its record, else validates).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from hermes_core.cli.common import EXIT_PLUGIN, EXIT_USAGE, PluginLoader, interactive
from hermes_core.cli.stop import Stop, stopped
from hermes_core.plugins.errors import PluginError

if TYPE_CHECKING:
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["HANDLERS", "Handler", "dispatch", "plugin_loader", "subcommand"]

Handler = Callable[[argparse.Namespace, PluginLoader], "int | None"]

#: Each subcommand's words and the handlers that run it, in order.
HANDLERS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("apps", "check"): ("hermes_core.cli.apps:run_check",),
    ("chat",): ("hermes_core.cli.chat:run",),
    ("dashboard",): ("hermes_core.cli.dashboard:run",),
    ("update",): ("hermes_core.cli.update:run",),
    ("mcp", "list"): ("hermes_core.cli.list_record:run_recorded", "hermes_core.cli.mcp_list:run"),
    ("mcp", "status"): ("hermes_core.cli.mcp:run_status",),
    ("mcp", "tools"): ("hermes_core.cli.mcp:run_tools",),
    ("mcp", "test"): ("hermes_core.cli.mcp:run_test",),
    ("mcp", "call"): ("hermes_core.cli.mcp_call_warm:run", "hermes_core.cli.mcp_call:run"),
    ("mcp", "resources"): ("hermes_core.cli.mcp_browse:run_listing",),
    ("mcp", "templates"): ("hermes_core.cli.mcp_browse:run_listing",),
    ("mcp", "prompts"): ("hermes_core.cli.mcp_browse:run_listing",),
    ("mcp", "read"): ("hermes_core.cli.mcp_browse:run_read",),
    ("mcp", "prompt"): ("hermes_core.cli.mcp_browse:run_prompt",),
    ("mcp", "tasks"): ("hermes_core.cli.mcp_tasks:run",),
    ("mcp", "audit"): ("hermes_core.cli.mcp_audit:run",),
    ("mcp", "sampling", "models"): ("hermes_core.cli.mcp_sampling:run",),
    ("mcp", "add"): ("hermes_core.cli.mcp_add:run_add",),
    ("mcp", "add-json"): ("hermes_core.cli.mcp_add_json:run",),
    ("mcp", "get"): ("hermes_core.cli.mcp_get:run",),
    ("mcp", "remove"): ("hermes_core.cli.mcp_edit:run_remove",),
    ("mcp", "enable"): ("hermes_core.cli.mcp_edit:run_set_enabled",),
    ("mcp", "disable"): ("hermes_core.cli.mcp_edit:run_set_enabled",),
    ("mcp", "login"): ("hermes_core.cli.mcp_login:run_login",),
    ("mcp", "oauth-client-document"): ("hermes_core.cli.mcp_client_document:run",),
    ("mcp", "import"): ("hermes_core.cli.mcp_import:run_import",),
    ("mcp", "export"): ("hermes_core.cli.mcp_export:run",),
    ("mcp", "trust"): ("hermes_core.cli.mcp_trust:run_trust",),
    ("mcp", "approvals", "list"): ("hermes_core.cli.mcp_trust:run_approvals",),
    ("mcp", "approvals", "set"): ("hermes_core.cli.mcp_trust:run_approvals",),
    ("mcp", "approvals", "reset"): ("hermes_core.cli.mcp_trust:run_approvals",),
    ("import-agent",): ("hermes_core.cli.mcp_import:run_import_agent",),
    ("mcp", "serve"): ("hermes_core.cli.mcp_serve:run",),
    ("mcp", "proxy"): ("hermes_core.cli.mcp_proxy:run",),
    ("mcp", "up"): ("hermes_core.cli.mcp_up:run_up",),
    ("mcp", "down"): ("hermes_core.cli.mcp_down:run_down",),
    ("mcp", "catalog"): ("hermes_core.cli.mcp_catalog:run_catalog",),
    ("mcp", "install"): (
        "hermes_core.cli.mcp_registry_install:run",
        "hermes_core.cli.mcp_install:run_install",
    ),
    ("mcp", "search"): ("hermes_core.cli.mcp_search:run",),
    ("mcp", "update"): ("hermes_core.cli.mcp_update:run",),
    ("mcp", "configure"): ("hermes_core.cli.mcp_install:run_configure",),
    ("mcp", "suggest"): ("hermes_core.cli.mcp_catalog:run_suggest",),
    ("mcp", "picker"): ("hermes_core.cli.mcp_picker:run",),
    ("mcp", "doctor"): ("hermes_core.cli.mcp_doctor:run",),
    ("plugins", "list"): ("hermes_core.cli.plugins:run_list",),
    ("plugins", "new"): ("hermes_core.cli.plugins_new:run",),
    ("skills", "list"): ("hermes_core.cli.skills:run_list",),
    ("state", "migrate"): ("hermes_core.cli.state_migrate:run",),
}


def subcommand(args: argparse.Namespace) -> tuple[str, ...]:
    """The words of the subcommand *args* were parsed for, e.g. ``("mcp", "sampling",
    "models")``; a bare ``hermes mcp`` is the picker on a terminal, else the catalog."""
    words: list[str] = []
    word = getattr(args, "command", None)
    while word:
        words.append(word)
        word = getattr(args, f"{word.replace('-', '_')}_command", None)
    if words == ["mcp"]:
        words.append("picker" if interactive() else "catalog")
    return tuple(words)


def plugin_loader(args: argparse.Namespace) -> PluginLoader:
    """The plugin manager for ``--no-plugins`` as given, loaded when a handler asks for it."""

    def load() -> HermesPluginManager:
        from hermes_core.plugins.manager import get_plugin_manager

        try:
            return get_plugin_manager(no_plugins=args.no_plugins)
        except PluginError as exc:  # strict mode (HERMES_STRICT_PLUGINS=1)
            print(f"error: {exc}", file=sys.stderr)
            raise SystemExit(EXIT_PLUGIN) from None

    return load


#: Set by :func:`hermes_core.cli.entry` (this process is the command): once the subcommand's
#: module is imported, what the imports made is frozen and the collector switched back on.
freeze_after_import = False


def _handler(target: str) -> Handler:
    global freeze_after_import
    module, _, function = target.partition(":")
    handler = cast(Handler, getattr(importlib.import_module(module), function))
    if freeze_after_import:
        freeze_after_import = False
        gc.freeze()
        gc.enable()
    return handler


def dispatch(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the subcommand *args* name; its help and exit 2 when it needs a further word.  A
    handler that raises :class:`~hermes_core.cli.stop.Stop` ends with its code and
    ``error:`` line."""
    plugins = plugin_loader(args)
    for target in HANDLERS.get(subcommand(args), ()):
        try:
            code = _handler(target)(args, plugins)
        except Stop as stop:  # every subcommand's early end, caught here once
            return stopped(stop)
        if code is not None:
            return int(code)
    getattr(args, "command_parser", parser).print_help(sys.stderr)
    return EXIT_USAGE
