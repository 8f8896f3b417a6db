"""``hermes mcp login NAME``: a new OAuth login for one ``auth: oauth`` server.

The login starts from nothing (saved tokens are not sent, so the server asks
for authorization), waits up to ``oauth.timeout`` (5 minutes) for the browser
step, then checks that the tokens really reached ``mcp-tokens/<server>.json``.
The previous file is replaced only by a successful login: a failed or
abandoned one leaves the working tokens as they were.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core.auth.errors import OAuthConfigError
from hermes_core.auth.oauth import build_oauth_provider
from hermes_core.auth.provider import HermesOAuthProvider
from hermes_core.auth.storage import TokenStorage
from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.loading import factory_for, load
from hermes_core.config.interpolate import load_dotenv, resolve
from hermes_core.config.models import ConfigError, ServerConfig
from hermes_core.home import hermes_home
from hermes_core.host.setup.factory import HostFactory

if TYPE_CHECKING:
    from hermes_core.plugins.manager import HermesPluginManager

__all__ = ["login", "run_login"]

NO_TOKEN_EXPLANATION = (
    "'{name}' answered without asking for authorization, so no OAuth token was obtained "
    "(nothing was saved). Some providers (Google Drive, Atlassian, ...) refuse the dynamic "
    "client registration plain `auth: oauth` relies on and still answer tools/list without "
    "auth, so the server looks fine here but its tool calls will fail or time out. Create an "
    "OAuth client in the provider's console and add it to the server's entry in config.yaml:\n"
    "\n"
    "    oauth:\n"
    '      client_id: "<your-oauth-client-id>"\n'
    '      client_secret: "<your-oauth-client-secret>"\n'
    "\n"
    "then run `hermes mcp login {name}` again."
)


def run_login(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp login NAME``."""
    return login(args.name, manager=plugins())


def login(
    name: str,
    *,
    browser: Callable[[str], Any] | None = None,
    manager: HermesPluginManager | None = None,
) -> int:
    """Log in to *name* (interactive; the browser step waits up to ``oauth.timeout``)."""

    factory = factory_for(manager)
    loaded = load(factory)
    cfg = loaded.config.mcp_servers.get(name)
    if cfg is None:
        print(f"error: no server named {name!r} in {loaded.path}", file=sys.stderr)
        return EXIT_USAGE
    if not cfg.uses_url:
        print(
            f"error: '{name}' is a {cfg.transport} server; OAuth applies to url servers",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if (cfg.auth or "").lower() != "oauth":
        print(
            f"error: '{name}' does not use OAuth; add `auth: oauth` to its entry in {loaded.path}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    environ = dict(os.environ)
    home = hermes_home(environ)
    try:
        resolved = resolve(
            name,
            cfg,
            env=environ,
            dotenv=load_dotenv(home / ".env"),
            workspace=os.getcwd(),
        )
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return _login(factory, name, resolved, home, browser)


def _login(
    factory: HostFactory,
    name: str,
    cfg: ServerConfig,
    home: Path,
    browser: Callable[[str], Any] | None,
) -> int:
    try:
        provider = build_oauth_provider(
            name, cfg.url, cfg.oauth, home=home, interactive=True, fresh=True, browser=browser
        )
    except OAuthConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not isinstance(provider, HermesOAuthProvider):
        grant = cfg.oauth.grant if cfg.oauth is not None else "authorization_code"
        print(f"'{name}' uses the {grant} grant: no browser login is needed")
        return EXIT_OK
    server = factory.server(name, cfg, home=home)
    if server.config_error:
        print(f"error: {server.config_error}", file=sys.stderr)
        return EXIT_USAGE
    server = dataclasses.replace(
        server,
        enabled=True,
        auth=provider,
        connect_timeout=max(cfg.connect_timeout, provider.callback_timeout + 30.0),
    )
    storage = provider.token_storage
    print(
        f"logging in to '{name}' (waiting up to {provider.callback_timeout:g} s)…", file=sys.stderr
    )

    async def main() -> tuple[str | None, int]:
        host = factory.host([server])
        try:
            await host.start()
            row = host.status()[0]
            return row.last_error, len(host.tools(include_gated=True))
        finally:
            await host.close()

    error, tools = asyncio.run(main())
    if error is not None:
        print(f"login to '{name}' failed: {error}", file=sys.stderr)
        if storage.backend is not None or storage.path.exists():
            print(f"the saved tokens in {storage.where} were left as they were", file=sys.stderr)
        return EXIT_FAILED
    # What the next run will load (the file, or the state database's row).
    reread = TokenStorage(home, name, server_url=cfg.url, backend=storage.backend)
    kept = storage.backend is not None or storage.path.is_file()
    if not (storage.saved and kept and reread.has_tokens):
        print(NO_TOKEN_EXPLANATION.format(name=name), file=sys.stderr)
        return EXIT_FAILED
    print(f"logged in to '{name}': tokens saved to {storage.where}; {tools} tools available")
    return EXIT_OK
