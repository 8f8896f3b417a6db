"""``auth: oauth`` against a real local OAuth 2.1 authorization server and protected MCP server.

The servers come from the mcp SDK's server-side auth (``tests/servers/oauth_server.py``).
The "browser" is a thread that follows the authorization URL with urllib, as a
person approving access would; the authorization server approves at once and
redirects to Hermes's loopback callback with the code.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import logging
import os
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from hermes_core.auth import callback
from hermes_core.auth.callback import CallbackResult, parse_redirect
from hermes_core.auth.errors import OAuthConfigError
from hermes_core.auth.id_jag import IdJagExchange
from hermes_core.auth.oauth import DEFAULT_TIMEOUT, build_oauth_provider, oauth_settings
from hermes_core.auth.storage import TokenStorage, safe_server_name, token_path, write_private
from hermes_core.cli import main
from hermes_core.config.loader import load_config
from hermes_core.config.models import ConfigError
from hermes_core.host.host import MCPHost
from hermes_core.host.setup.from_config import host_servers
from servers.idp_server import IdentityProvider
from servers.oauth_server import OAuthServer
from support.browser import Browser
from support.cli import run_hermes
from support.home import clean_env

# --------------------------------------------------------------------------- helpers


@pytest.fixture
def server() -> Iterator[OAuthServer]:
    srv = OAuthServer().start()
    yield srv
    srv.stop()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(path))
    monkeypatch.delenv("SSH_CLIENT", raising=False)
    monkeypatch.delenv("SSH_TTY", raising=False)
    return path


def _yaml(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2)  # JSON is YAML


def configure(home: Path, url: str, oauth: dict[str, Any] | None = None) -> None:
    entry: dict[str, Any] = {"url": url, "auth": "oauth"}
    if oauth:
        entry["oauth"] = oauth
    (home / "config.yaml").write_text(_yaml({"mcp_servers": {"acme": entry}}))


def login(capsys: pytest.CaptureFixture[str], name: str = "acme") -> tuple[int, str]:
    code = main(["mcp", "login", name])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def host_run(
    body: Callable[[MCPHost], Awaitable[Any]] | None = None,
) -> tuple[str | None, Any]:
    """Connect the configured servers as the agent would; run *body*; close."""
    servers = host_servers(load_config())

    async def go() -> tuple[str | None, Any]:
        async with MCPHost(servers) as host:
            error = host.status()[0].last_error
            if error is not None:
                return error, None
            if body is None:
                return None, await whoami(host)
            return None, await body(host)

    return asyncio.run(go())


async def whoami(host: MCPHost) -> str:
    result = await host.call_tool("mcp_acme_whoami", {})
    assert not result.get("isError"), result
    return str(result["content"][0]["text"])


def saved(home: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(token_path(home, "acme").read_text())
    return data


# --------------------------------------------------------------------------- paste-back


@pytest.mark.parametrize(
    "text",
    [
        "http://127.0.0.1:8765/callback?code=abc&state=xyz",
        "https://oauth.example.ts.net/callback?state=xyz&code=abc&iss=https%3A%2F%2Fas.example",
        "code=abc&state=xyz",
        "?code=abc&state=xyz",
        "  '<http://localhost:1/callback?code=abc&state=xyz#frag>'  \n",
        "/callback?code=abc&state=xyz",
    ],
)
def test_paste_back_accepts_urls_and_query_strings(text: str) -> None:
    found = parse_redirect(text)
    assert found is not None
    assert (found.code, found.state) == ("abc", "xyz")
    assert "abc" not in repr(found)


def test_paste_back_reads_errors_and_ignores_garbage() -> None:
    denied = parse_redirect("?error=access_denied&error_description=no+thanks&state=s")
    assert denied == CallbackResult(error="access_denied", error_description="no thanks", state="s")
    for garbage in ("", "   ", "hello", "https://example.com/", "state=only", "?code="):
        assert parse_redirect(garbage) is None
    issuer = parse_redirect("code=c&state=s&iss=https://as.example")
    assert issuer is not None and issuer.iss == "https://as.example"


# --------------------------------------------------------------------------- login


@pytest.mark.network
@pytest.mark.parametrize("redirect_host", ["127.0.0.1", "localhost"])
def test_login_with_dynamic_registration(
    redirect_host: str,
    server: OAuthServer,
    home: Path,
    browser: Browser,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    configure(home, server.url, {"redirect_host": redirect_host})
    code, output = login(capsys)
    assert code == 0, output
    assert server.provider.calls["register"] == 1
    assert server.provider.calls["authorize"] == 1
    assert len(browser.opened) == 1 and "code_challenge_method=S256" in browser.opened[0]
    assert "Authorization" not in browser.landed[0]  # landed on our callback page
    assert browser.landed[0].startswith(f"http://{redirect_host}:")

    path = token_path(home, "acme")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    data = saved(home)
    assert data["tokens"]["access_token"] in server.provider.access
    assert data["client_info"]["client_name"] == "Hermes Agent"
    assert data["client_info"]["redirect_uris"][0].startswith(f"http://{redirect_host}:")
    assert data["oauth_metadata"]["token_endpoint"] == f"{server.base}/token"
    assert f"tokens saved to {path}" in output

    # No secret anywhere a user or a log could see it.
    servers = host_servers(load_config())
    shown = [output, caplog.text, repr(servers[0]), repr(servers[0].auth)]
    shown.append(repr(servers[0].auth.token_storage))
    for secret in server.provider.issued:
        for text in shown:
            assert secret not in text


@pytest.mark.network
def test_tokens_are_reused_across_runs_without_a_new_login(
    server: OAuthServer, home: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(home, server.url)
    assert login(capsys)[0] == 0
    client_id = saved(home)["client_info"]["client_id"]
    for _ in range(2):
        error, who = host_run()
        assert error is None
        assert who == client_id
    assert server.provider.calls["authorize"] == 1
    assert server.provider.calls["register"] == 1
    assert server.provider.calls["token:refresh_token"] == 0
    assert len(browser.opened) == 1


@pytest.mark.network
@pytest.mark.slow
def test_an_expired_token_is_refreshed_at_start_and_mid_session(
    server: OAuthServer, home: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    server.provider.access_ttl = 1
    configure(home, server.url)
    assert login(capsys)[0] == 0
    first = saved(home)["tokens"]
    time.sleep(1.2)

    async def two_calls(host: MCPHost) -> list[str]:
        before = await whoami(host)
        time.sleep(1.2)  # the access token expires again, mid-session
        return [before, await whoami(host)]

    error, answers = host_run(two_calls)
    assert error is None
    assert len(set(answers)) == 1
    assert server.provider.calls["token:refresh_token"] >= 2
    assert server.provider.calls["authorize"] == 1  # never a new login
    after = saved(home)["tokens"]
    assert after["access_token"] != first["access_token"]
    assert after["refresh_token"] != first["refresh_token"]  # the rotated one was saved


@pytest.mark.network
@pytest.mark.slow
def test_a_refresh_token_the_server_does_not_rotate_is_kept(
    server: OAuthServer, home: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    # Servers that answer a refresh without a new refresh token (RFC 6749 §6) must not lose
    # the one they issued: other hosts erased it and died one access-token lifetime later.
    server.provider.access_ttl = 1
    server.provider.rotate_refresh = False
    configure(home, server.url)
    assert login(capsys)[0] == 0
    first = saved(home)["tokens"]["refresh_token"]
    for _ in range(3):
        time.sleep(1.2)
        error, _ = host_run()
        assert error is None
        assert saved(home)["tokens"]["refresh_token"] == first
    assert server.provider.calls["token:refresh_token"] == 3
    assert server.provider.calls["authorize"] == 1


@pytest.mark.network
def test_extra_authorization_parameters_reach_the_authorization_server(
    server: OAuthServer, home: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    # Google-hosted servers hand out a refresh token only for access_type=offline.
    configure(home, server.url, {"authorization_params": {"access_type": "offline", "max_age": 0}})
    assert login(capsys)[0] == 0
    query = parse_qs(urlsplit(browser.opened[0]).query)
    assert query["access_type"] == ["offline"] and query["max_age"] == ["0"]
    assert query["response_type"] == ["code"]  # the flow's own parameters are untouched
    assert host_run()[0] is None


@pytest.mark.network
def test_a_refused_token_is_refreshed_before_any_new_login(
    server: OAuthServer, home: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(home, server.url)
    assert login(capsys)[0] == 0
    server.provider.revoke_all(keep_refresh=True)  # the server forgot the access token only
    error, _ = host_run()
    assert error is None
    assert server.provider.calls["token:refresh_token"] == 1
    assert server.provider.calls["authorize"] == 1


@pytest.mark.network
def test_a_401_after_revocation_runs_a_new_login_when_interactive(
    server: OAuthServer,
    home: Path,
    browser: Browser,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    configure(home, server.url)
    assert login(capsys)[0] == 0
    old = saved(home)["tokens"]["access_token"]
    monkeypatch.setattr("hermes_core.auth.settings.is_interactive", lambda: True)

    async def revoke_then_call(host: MCPHost) -> str:
        await whoami(host)
        server.provider.revoke_all()  # access and refresh tokens die mid-session
        return await whoami(host)

    error, _ = host_run(revoke_then_call)
    assert error is None
    assert server.provider.calls["authorize"] == 2
    assert len(browser.opened) == 2
    assert saved(home)["tokens"]["access_token"] not in (old, None)


@pytest.mark.network
def test_a_login_from_another_process_is_picked_up_without_a_restart(
    server: OAuthServer, home: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(home, server.url)
    assert login(capsys)[0] == 0
    running = host_servers(load_config())  # a gateway that loaded the first tokens
    server.provider.revoke_all()
    assert login(capsys)[0] == 0  # the user logs in again from a terminal

    async def go() -> tuple[str | None, str | None]:
        async with MCPHost(running) as host:
            error = host.status()[0].last_error
            return error, None if error else await whoami(host)

    error, _ = asyncio.run(go())
    assert error is None
    assert server.provider.calls["authorize"] == 2


@pytest.mark.network
def test_a_configured_scope_is_what_gets_requested(
    server: OAuthServer, home: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(home, server.url, {"scope": ["files:read", "files:write"]})
    code, output = login(capsys)
    assert code == 0, output
    assert "scope=files%3Aread+files%3Awrite" in browser.opened[0]
    (client,) = server.provider.clients.values()
    assert client.scope == "files:read files:write"


@pytest.mark.network
def test_non_interactive_without_tokens_fails_fast(
    server: OAuthServer, home: Path, browser: Browser
) -> None:
    configure(home, server.url)
    error, _ = host_run()
    assert error is not None and "hermes mcp login acme" in error
    assert "not interactive" in error
    assert server.provider.calls["register"] == 0  # failed before registering anything
    assert browser.opened == []
    assert not token_path(home, "acme").exists()


@pytest.mark.network
def test_non_interactive_with_dead_tokens_fails_fast_and_keeps_the_file(
    server: OAuthServer, home: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(home, server.url)
    assert login(capsys)[0] == 0
    before = token_path(home, "acme").read_bytes()
    server.provider.revoke_all()
    error, _ = host_run()
    assert error is not None and "hermes mcp login acme" in error
    assert not any(secret in error for secret in server.provider.issued)
    assert token_path(home, "acme").read_bytes() == before
    assert len(browser.opened) == 1


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.network
@pytest.mark.slow
def test_the_real_cli_without_a_terminal_points_at_login(server: OAuthServer, home: Path) -> None:
    configure(home, server.url)
    base = clean_env(os.environ)
    result = subprocess.run(
        [sys.executable, "-m", "hermes_core", "mcp", "test", "acme"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**base, "HERMES_HOME": str(home)},
        timeout=60,
    )
    assert result.returncode == 1
    assert "hermes mcp login acme" in result.stdout + result.stderr


@pytest.mark.network
def test_preregistered_client_skips_registration(
    server: OAuthServer, home: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    from servers.net import free_port

    port = free_port()
    server.add_client("hermes-pre", "pre-secret-123", f"http://127.0.0.1:{port}/callback")
    configure(
        home,
        server.url,
        {"client_id": "hermes-pre", "client_secret": "pre-secret-123", "redirect_port": port},
    )
    code, output = login(capsys)
    assert code == 0, output
    assert server.provider.calls["register"] == 0
    assert server.provider.token_requests == [
        {"grant": "authorization_code", "client": "hermes-pre"}
    ]
    assert "client_id=hermes-pre" in browser.opened[0]
    error, who = host_run()
    assert (error, who) == (None, "hermes-pre")
    assert "pre-secret-123" not in output


@pytest.mark.network
def test_a_failed_login_leaves_the_previous_tokens_untouched(
    server: OAuthServer, home: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(home, server.url)
    assert login(capsys)[0] == 0
    path = token_path(home, "acme")
    before, mode = path.read_bytes(), path.stat().st_mode

    server.provider.deny_next = True  # the user clicks "Deny"
    code, output = login(capsys)
    assert code == 1
    assert "access_denied" in output
    assert "left as they were" in output
    assert path.read_bytes() == before and path.stat().st_mode == mode
    assert not any(secret in output for secret in server.provider.issued)
    assert sorted(p.name for p in path.parent.iterdir()) == ["acme.json"]  # no temp files

    error, _ = host_run()  # and they still work
    assert error is None


@pytest.mark.network
def test_a_refused_registration_says_to_configure_a_client(
    server: OAuthServer, home: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    server.provider.refuse_registration = True
    configure(home, server.url)
    code, output = login(capsys)
    assert code == 1
    assert "refused dynamic client registration (HTTP 400)" in output
    assert "oauth.client_id" in output and "hermes mcp login acme" in output
    assert browser.opened == []


@pytest.mark.network
def test_a_busy_callback_port_is_a_clear_error(
    server: OAuthServer, home: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        configure(home, server.url, {"redirect_port": port})
        code, output = login(capsys)
    assert code == 1
    assert f"OAuth callback port {port} is already in use" in output
    assert "oauth.redirect_port" in output


@pytest.mark.network
def test_a_login_nobody_completes_times_out_clearly(
    server: OAuthServer,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    idle = Browser(follow=False)
    monkeypatch.setattr(callback, "open_browser", idle)
    configure(home, server.url, {"timeout": 1})
    code, output = login(capsys)
    assert code == 1
    assert "timed out after 1 s" in output and "hermes mcp login acme" in output
    assert not token_path(home, "acme").exists()


@pytest.mark.network
def test_a_server_that_never_asks_for_auth_explains_client_id(
    home: Path, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    open_server = OAuthServer(protected=False).start()
    try:
        configure(home, open_server.url)
        code, output = login(capsys)
    finally:
        open_server.stop()
    assert code == 1
    assert "no OAuth token was obtained" in output
    assert "client_id" in output and "client_secret" in output
    assert not token_path(home, "acme").exists()
    assert browser.opened == []


@pytest.mark.network
def test_paste_back_completes_a_login_without_a_listener(
    server: OAuthServer, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A redirect URI on a proxy that does not reach us: only paste-back can finish.
    read_fd, write_fd = os.pipe()
    reader, writer = os.fdopen(read_fd, "r"), os.fdopen(write_fd, "w")
    monkeypatch.setattr(sys, "stdin", reader)
    helper = Browser(follow=False)
    out = io.StringIO()

    def user(url: str) -> None:
        def paste() -> None:
            writer.write("not a url\n")
            writer.write(helper.redirect_location(url) + "\n")
            writer.flush()

        threading.Thread(target=paste, daemon=True).start()

    provider = build_oauth_provider(
        "acme",
        server.url,
        {"redirect_uri": "https://oauth.example.ts.net/callback", "timeout": 10},
        home=home,
        interactive=True,
        browser=user,
        out=out,
        paste=True,
    )
    assert provider.flow.listen_port is None
    servers = [dataclasses.replace(s, auth=provider) for s in _plain_servers(home, server.url)]

    async def go() -> str | None:
        async with MCPHost(servers) as host:
            return host.status()[0].last_error

    try:
        assert asyncio.run(go()) is None
    finally:
        writer.close()
        reader.close()
    assert "Or paste the redirect URL here" in out.getvalue()
    assert "has no `code=`" in out.getvalue()
    assert saved(home)["client_info"]["redirect_uris"] == ["https://oauth.example.ts.net/callback"]


def _plain_servers(home: Path, url: str) -> list[Any]:
    (home / "config.yaml").write_text(_yaml({"mcp_servers": {"acme": {"url": url}}}))
    return host_servers(load_config())


# --------------------------------------------------------------------------- settings


@pytest.mark.network
def test_redirect_uri_host_port_and_figma_defaults(home: Path) -> None:
    local = build_oauth_provider(
        "acme",
        "https://mcp.example.com/mcp",
        {"redirect_host": "localhost", "redirect_port": 8765},
        home=home,
        interactive=False,
    )
    assert local.flow.redirect_uri == "http://localhost:8765/callback"
    assert local.flow.listen_port == 8765  # the listener itself binds 127.0.0.1
    proxied = build_oauth_provider(
        "acme",
        "https://mcp.example.com/mcp",
        {"redirect_port": 8765, "redirect_uri": "https://oauth.example.ts.net/callback"},
        home=home,
        interactive=False,
    )
    assert proxied.flow.redirect_uri == "https://oauth.example.ts.net/callback"
    assert proxied.flow.listen_port == 8765
    ephemeral = build_oauth_provider(
        "acme", "https://mcp.example.com/mcp", {}, home=home, interactive=False
    )
    assert ephemeral.flow.redirect_uri.startswith("http://127.0.0.1:")
    assert ephemeral.context.client_metadata.client_name == "Hermes Agent"

    # The SDK's own scope choice does not replace a configured scope; a step-up adds to it.
    scoped = build_oauth_provider(
        "acme", "https://mcp.example.com/mcp", {"scope": "a b"}, home=home, interactive=False
    )
    metadata = scoped.context.client_metadata
    metadata.scope = "chosen-by-sdk"
    assert metadata.scope == "a b"
    metadata._step_up = True  # type: ignore[attr-defined]
    metadata.scope = "a b more"
    assert metadata.scope == "a b more"

    figma = oauth_settings("figma", "https://mcp.figma.com/mcp", {})
    assert figma.client_name == "Claude Code"
    assert figma.scope == "mcp:connect"
    own = oauth_settings("figma", "https://mcp.figma.com/mcp", {"client_name": "Mine"})
    assert own.client_name == "Mine"
    assert oauth_settings("acme", "https://mcp.example.com/mcp", {}).client_name == "Hermes Agent"


@pytest.mark.parametrize(
    ("cfg", "key"),
    [
        ({"redirect_port": 70000}, "oauth.redirect_port"),
        ({"redirect_uri": "http://example.com/cb"}, "oauth.redirect_uri"),
        ({"client_secret": "s3cr3t-value"}, "oauth.client_secret"),
        ({"timeout": -1}, "oauth.timeout"),
        ({"redirect_host": "bad/host"}, "oauth.redirect_host"),
        ({"authorization_params": ["access_type=offline"]}, "oauth.authorization_params"),
        ({"authorization_params": {"scope": "x"}}, "oauth.authorization_params.scope"),
        ({"authorization_params": {"state": "x"}}, "oauth.authorization_params.state"),
        ({"authorization_params": {"prompt": True}}, "oauth.authorization_params.prompt"),
    ],
)
def test_bad_oauth_settings_name_the_key_never_the_secret(cfg: dict[str, Any], key: str) -> None:
    with pytest.raises(OAuthConfigError) as caught:
        oauth_settings("acme", "https://mcp.example.com/mcp", cfg)
    assert key in str(caught.value)
    assert "s3cr3t-value" not in str(caught.value)


@pytest.mark.network
def test_a_first_interactive_login_gets_time_to_finish(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(home, "https://mcp.example.com/mcp")
    monkeypatch.setattr("hermes_core.auth.settings.is_interactive", lambda: True)
    (interactive,) = host_servers(load_config())
    assert interactive.connect_timeout >= 330  # 5 minutes for the browser, and some
    monkeypatch.setattr("hermes_core.auth.settings.is_interactive", lambda: False)
    (background,) = host_servers(load_config())
    assert background.connect_timeout == 60


def test_a_bad_oauth_block_fails_only_that_server(home: Path) -> None:
    (home / "config.yaml").write_text(
        _yaml(
            {
                "mcp_servers": {
                    "acme": {"url": "https://a.example/mcp", "auth": "oauth", "oauth": {"cimd": 3}},
                    "other": {"url": "https://b.example/mcp"},
                }
            }
        )
    )
    # Checked when the file is read: at file:line, and (not strict) only that server is left out.
    with pytest.raises(ConfigError, match=r"config.yaml:\d+: mcp_servers.acme.oauth.cimd: must be"):
        load_config()
    loaded = load_config(strict=False)
    assert [e.key for e in loaded.errors] == ["mcp_servers.acme.oauth.cimd"]
    servers = {s.name: s for s in host_servers(loaded)}
    assert list(servers) == ["other"]
    assert servers["other"].config_error is None and servers["other"].auth is None


# --------------------------------------------------------------------------- storage


def test_token_file_is_private_from_the_first_byte(home: Path) -> None:
    path = token_path(home, "acme")
    old_umask = os.umask(0)  # the most permissive umask there is
    try:
        write_private(path, b"{}")
        write_private(path, b'{"again": true}')
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["acme.json"]


def test_storage_ignores_damaged_files_and_other_urls(
    home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from mcp.shared.auth import OAuthToken

    storage = TokenStorage(home, "acme", server_url="https://a.example/mcp")
    asyncio.run(storage.set_tokens(OAuthToken(access_token="tok-123456", expires_in=60)))
    assert TokenStorage(home, "acme", server_url="https://a.example/mcp").has_tokens
    moved = TokenStorage(home, "acme", server_url="https://elsewhere.example/mcp")
    assert not moved.has_tokens  # never sent to a server it was not issued for

    token_path(home, "acme").write_text("{not json")
    assert not TokenStorage(home, "acme", server_url="https://a.example/mcp").has_tokens
    assert "damaged" in caplog.text and "tok-123456" not in caplog.text
    assert "tok-123456" not in repr(storage)


def test_server_names_become_safe_file_names() -> None:
    assert safe_server_name("linear") == "linear"
    assert safe_server_name("a.b") == "a.b" and safe_server_name("a_b") == "a_b"
    assert safe_server_name("../../etc/passwd").startswith("etc_passwd~")
    assert safe_server_name("a.b c").startswith("a_b_c~")
    assert safe_server_name("...").startswith("default~")
    assert len(safe_server_name("x" * 500)) == 128
    assert safe_server_name("x" * 500) != safe_server_name("x" * 501)


@pytest.mark.process
def test_setting_up_oauth_does_not_import_mcp_at_cli_start() -> None:
    code = (
        "import sys\n"
        "import hermes_core.builtin.auth, hermes_core.auth, hermes_core.host.setup.from_config\n"
        "assert 'mcp' not in sys.modules and 'httpx2' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


@pytest.mark.parametrize(
    ("cfg", "message"),
    [
        (
            {"grant": "password"},
            "oauth.grant must be one of authorization_code, client_credentials",
        ),
        ({"grant": "client_credentials"}, "oauth.client_id is required for the client_credentials"),
        (
            {"grant": "client_credentials", "client_id": "svc"},
            "oauth.client_secret or oauth.private_key is required for client_credentials",
        ),
    ],
)
def test_client_credentials_settings_are_checked(cfg: dict[str, str], message: str) -> None:
    from hermes_core.auth.errors import OAuthConfigError
    from hermes_core.auth.oauth import oauth_settings

    with pytest.raises(OAuthConfigError, match=message):
        oauth_settings("svc", "https://127.0.0.1:9/mcp", cfg)


def test_client_credentials_needs_no_browser(tmp_path: Path) -> None:
    from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider

    from hermes_core.auth.oauth import build_oauth_provider

    provider = build_oauth_provider(
        "svc",
        "https://127.0.0.1:9/mcp",
        {
            "grant": "client_credentials",
            "client_id": "svc",
            "client_secret": "s3cr3t-cc",
            "issuer": "https://127.0.0.1:9",
        },
        home=tmp_path,
        interactive=False,
    )
    assert isinstance(provider, ClientCredentialsOAuthProvider)
    assert "s3cr3t-cc" not in repr(provider)


@pytest.mark.parametrize("grant", ["client_credentials", "identity_assertion"])
def test_no_browser_grants_set_up_from_config(grant: str, home: Path) -> None:
    oauth = xaa_config(issuer="https://127.0.0.1:9")
    if grant == "client_credentials":
        oauth = {"grant": grant, "client_id": "svc", "client_secret": "s3cr3t-cc"}
        oauth["issuer"] = "https://127.0.0.1:9"
    configure(home, "https://127.0.0.1:9/mcp", oauth)
    [server] = host_servers(load_config())
    assert server.config_error is None and server.auth is not None
    assert server.auth.interactive is False  # no browser step to make time for
    assert server.connect_timeout < DEFAULT_TIMEOUT  # not stretched for a browser login


# --------------------------------------------------------------------------- identity assertion

XAA_CLIENT, XAA_SECRET = "xaa-client", "xaa-s3cr3t"
ID_TOKEN = "eyJ.id-token-s3cr3t.sig"
IDP_SECRET = "idp-s3cr3t"


def xaa_config(**changes: Any) -> dict[str, Any]:
    """A complete ``grant: identity_assertion`` block; a change to None drops that key."""
    cfg: dict[str, Any] = {
        "grant": "identity_assertion",
        "client_id": XAA_CLIENT,
        "client_secret": XAA_SECRET,
        "issuer": "https://as.example",
        "idp_token_endpoint": "https://idp.example/oauth2/v1/token",
        "idp_client_id": "hermes-at-idp",
        "id_token": ID_TOKEN,
    }
    cfg.update(changes)
    return {key: value for key, value in cfg.items() if value is not None}


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"grant": "password"},
            "oauth.grant must be one of authorization_code, client_credentials, identity_assertion",
        ),
        (
            {"client_id": None, "client_secret": None},
            "oauth.client_id is required for the identity_assertion grant",
        ),
        (
            {"client_secret": None},
            "oauth.client_secret is required for the identity_assertion grant",
        ),
        ({"issuer": None}, "oauth.issuer is required for the identity_assertion grant"),
        (
            {"idp_token_endpoint": None},
            r"oauth.idp_token_endpoint \(or oauth.idp_issuer\) is required",
        ),
        ({"idp_client_id": None}, "oauth.idp_client_id is required for the identity_assertion"),
        ({"id_token": None}, r"oauth.id_token \(or oauth.id_token_file\) is required"),
        (
            {"id_token_file": "~/.cache/idp/id_token"},
            "oauth.id_token_file and oauth.id_token cannot both be set",
        ),
        ({"issuer": "as.example"}, "oauth.issuer must be an https URL"),
        (
            {"idp_token_endpoint": "http://idp.example/token"},
            "oauth.idp_token_endpoint must be an https URL",
        ),
        (
            {"idp_token_endpoint": None, "idp_issuer": "http://idp.example"},
            "oauth.idp_issuer must be an https URL",
        ),
        (
            {"token_endpoint_auth_method": "none"},
            "oauth.token_endpoint_auth_method must be client_secret_basic or client_secret_post",
        ),
        ({"private_key": "~/.keys/svc.pem"}, "oauth.private_key is not supported"),
    ],
)
def test_identity_assertion_settings_are_checked(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(OAuthConfigError, match=message) as caught:
        oauth_settings("xaa", "https://mcp.example/mcp", xaa_config(**changes))
    assert str(caught.value).startswith("MCP server 'xaa': oauth.")
    assert "s3cr3t" not in str(caught.value)


def test_identity_assertion_settings_keep_secrets_out_of_repr(tmp_path: Path) -> None:
    from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

    settings = oauth_settings(
        "xaa", "https://mcp.example/mcp", xaa_config(idp_client_secret=IDP_SECRET)
    )
    assert settings.grant == "identity_assertion"
    assert settings.id_token == ID_TOKEN and settings.idp_client_secret == IDP_SECRET
    assert "s3cr3t" not in repr(settings)
    # The other ways to say where the IdP is and where the ID token comes from; http on loopback.
    other = oauth_settings(
        "xaa",
        "http://127.0.0.1:9/mcp",
        xaa_config(
            issuer="http://127.0.0.1:9",
            idp_token_endpoint=None,
            idp_issuer="http://localhost:10",
            id_token=None,
            id_token_file="~/.cache/idp/id_token",
        ),
    )
    assert (other.idp_issuer, other.id_token_file) == (
        "http://localhost:10",
        "~/.cache/idp/id_token",
    )
    provider = build_oauth_provider(
        "xaa",
        "https://mcp.example/mcp",
        xaa_config(idp_client_secret=IDP_SECRET),
        home=tmp_path,
        interactive=False,
    )
    assert isinstance(provider, IdentityAssertionOAuthProvider)
    assert "s3cr3t" not in repr(provider)
    exchange = IdJagExchange(
        "xaa",
        client_id="hermes-at-idp",
        client_secret=IDP_SECRET,
        token_endpoint="https://idp.example/token?tenant=s3cr3t",
        id_token=ID_TOKEN,
    )
    assert "s3cr3t" not in repr(exchange) and "idp.example/token" in repr(exchange)


def test_identity_keys_without_the_grant_are_ignored_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = oauth_settings(
        "drive", "https://mcp.example/mcp", {"idp_client_id": "x", "id_token": ID_TOKEN}
    )
    assert settings.grant == "authorization_code"
    assert "oauth.idp_client_id is used only by grant: identity_assertion" in caplog.text
    assert ID_TOKEN not in caplog.text


@pytest.fixture
def xaa(home: Path) -> Iterator[tuple[OAuthServer, IdentityProvider]]:
    """An MCP server whose authorization server takes ID-JAGs, and the company's IdP."""
    from mcp.shared.auth import JWT_BEARER_GRANT_TYPE

    server = OAuthServer(identity_assertion=True).start()
    server.add_client(
        XAA_CLIENT, XAA_SECRET, "http://127.0.0.1:9/unused", grant_types=[JWT_BEARER_GRANT_TYPE]
    )
    idp = IdentityProvider(
        client_id="hermes-at-idp",
        as_client_id=XAA_CLIENT,
        on_issue=server.provider.id_jags.__setitem__,
    ).start()
    idp.id_tokens.add(ID_TOKEN)
    yield server, idp
    idp.stop()
    server.stop()


@pytest.mark.network
@pytest.mark.parametrize("variant", ["token_endpoint", "issuer_and_file"])
def test_identity_assertion_connects_without_a_browser(
    variant: str,
    xaa: tuple[OAuthServer, IdentityProvider],
    home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    server, idp = xaa
    oauth = xaa_config(issuer=server.base, idp_token_endpoint=idp.token_endpoint)
    if variant == "issuer_and_file":
        idp.client_secret = IDP_SECRET
        token_file = home / "id_token"
        token_file.write_text(ID_TOKEN + "\n")
        oauth = xaa_config(
            issuer=server.base,
            idp_token_endpoint=None,
            idp_issuer=idp.issuer,
            idp_client_secret=IDP_SECRET,
            id_token=None,
            id_token_file=str(token_file),
        )
    configure(home, server.url, oauth)
    code, output = login(capsys)
    assert code == 0 and "uses the identity_assertion grant: no browser login" in output

    assert host_run() == (None, XAA_CLIENT)
    [request] = idp.requests
    assert request["subject_token"] == ID_TOKEN
    assert request["subject_token_type"] == "urn:ietf:params:oauth:token-type:id_token"
    assert request["requested_token_type"] == "urn:ietf:params:oauth:token-type:id-jag"
    assert (request["audience"], request["resource"]) == (server.base, server.url)
    assert request["client_id"] == "hermes-at-idp"
    assert (request["authorization"] is not None) == (variant == "issuer_and_file")
    assert idp.discoveries == (1 if variant == "issuer_and_file" else 0)
    assert server.provider.calls["token:jwt_bearer"] == 1
    stored = token_path(home, "acme").read_text()
    assert ID_TOKEN not in stored and "s3cr3t" not in stored

    assert host_run() == (None, XAA_CLIENT)  # the stored access token: no second exchange
    assert len(idp.requests) == 1 and server.provider.calls["token:jwt_bearer"] == 1
    server.provider.revoke_all()
    assert host_run() == (None, XAA_CLIENT)  # refused token: a new exchange, still no browser
    assert len(idp.requests) == 2 and server.provider.calls["token:jwt_bearer"] == 2


@pytest.mark.network
def test_a_refused_id_token_is_a_clear_error(
    xaa: tuple[OAuthServer, IdentityProvider], home: Path
) -> None:
    server, idp = xaa
    idp.id_tokens.clear()  # the ID token expired
    configure(
        home, server.url, xaa_config(issuer=server.base, idp_token_endpoint=idp.token_endpoint)
    )
    error, _ = host_run()
    assert error is not None
    assert "refused the ID-JAG token exchange" in error and "invalid_grant" in error, error
    assert "oauth.id_token" in error and ID_TOKEN not in error
    assert server.provider.calls["token:jwt_bearer"] == 0
    assert not token_path(home, "acme").exists()


@pytest.mark.network
def test_an_unreadable_id_token_file_names_the_key(
    xaa: tuple[OAuthServer, IdentityProvider], home: Path
) -> None:
    server, idp = xaa
    missing = home / "no-such-id-token"
    configure(
        home,
        server.url,
        xaa_config(
            issuer=server.base,
            idp_token_endpoint=idp.token_endpoint,
            id_token=None,
            id_token_file=str(missing),
        ),
    )
    error, _ = host_run()
    assert error is not None and "oauth.id_token_file cannot be read" in error, error
    assert str(missing) in error and idp.requests == []


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.network
@pytest.mark.slow
def test_the_readme_id_token_variable_is_sent_through_the_cli(
    xaa: tuple[OAuthServer, IdentityProvider], home: Path
) -> None:
    """README: ``id_token: "${ACME_ID_TOKEN}"``; the secret from ``$HERMES_HOME/.env``.  Every
    text key of ``oauth:`` is expanded, so the IdP receives the token, not the literal text."""
    server, idp = xaa
    (home / "config.yaml").write_text(
        "mcp_servers:\n"
        "  acme:\n"
        f"    url: {server.url}\n"
        "    auth: oauth\n"
        "    oauth:\n"
        "      grant: identity_assertion\n"
        f"      client_id: {XAA_CLIENT}\n"
        '      client_secret: "${XAA_SECRET}"\n'
        f"      issuer: {server.base}\n"
        f'      idp_token_endpoint: "{idp.token_endpoint}"\n'
        "      idp_client_id: hermes-at-idp\n"
        '      id_token: "${ACME_ID_TOKEN}"\n'
    )
    (home / ".env").write_text(f"XAA_SECRET={XAA_SECRET}\n")
    env = {"HERMES_HOME": str(home), "ACME_ID_TOKEN": ID_TOKEN}
    done = run_hermes("mcp", "call", "--json", "mcp_acme_whoami", env=env)
    assert done.returncode == 0, done.stderr
    assert XAA_CLIENT in done.stdout
    [request] = idp.requests
    assert request["subject_token"] == ID_TOKEN
    assert ID_TOKEN not in done.stdout + done.stderr

    # A misspelt key is an error at file:line before anything connects (never ignored).
    text = (home / "config.yaml").read_text().replace("id_token:", "id_tokn:")
    (home / "config.yaml").write_text(text)
    done = run_hermes("mcp", "call", "--json", "mcp_acme_whoami", env=env)
    assert done.returncode == 2
    assert "config.yaml:12: mcp_servers.acme.oauth.id_tokn: unknown key (did you mean " in (
        done.stderr
    )
    assert len(idp.requests) == 1 and ID_TOKEN not in done.stderr
