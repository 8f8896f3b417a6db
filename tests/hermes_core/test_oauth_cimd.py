"""Client ID metadata documents first, dynamic registration as the fallback.

The authorization server is the SDK's (``tests/servers/oauth_server.py``), taught to advertise
``client_id_metadata_document_supported`` and to resolve URL client IDs from the documents
"published" in its ``documents`` table.
"""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from hermes_core.auth import callback
from hermes_core.auth.errors import OAuthConfigError
from hermes_core.auth.oauth import (
    CIMD_PORTS,
    CLIENT_METADATA_URL_ENV,
    build_oauth_provider,
    client_metadata_document,
)
from hermes_core.cli import main
from servers.oauth_server import OAuthServer
from support.browser import Browser
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.network]

DOCUMENT = "https://agent.example/oauth/client-metadata.json"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    monkeypatch.setenv(CLIENT_METADATA_URL_ENV, DOCUMENT)
    monkeypatch.delenv("SSH_CLIENT", raising=False)
    monkeypatch.delenv("SSH_TTY", raising=False)
    return tmp_path


def serve(*, cimd: bool) -> Iterator[OAuthServer]:
    server = OAuthServer(cimd=cimd).start()
    server.provider.documents[DOCUMENT] = client_metadata_document(DOCUMENT)
    yield server
    server.stop()


@pytest.fixture
def supporting() -> Iterator[OAuthServer]:
    yield from serve(cimd=True)


@pytest.fixture
def plain() -> Iterator[OAuthServer]:
    yield from serve(cimd=False)


def configure(home: Path, url: str, oauth: dict[str, Any] | None = None) -> None:
    entry: dict[str, Any] = {"url": url, "auth": "oauth", **({"oauth": oauth} if oauth else {})}
    (home / "config.yaml").write_text(json.dumps({"mcp_servers": {"acme": entry}}))


def saved_client(home: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((home / "mcp-tokens" / "acme.json").read_text())
    return data["client_info"]  # type: ignore[no-any-return]


def redirect_of(url: str) -> str:
    return parse_qs(urlsplit(url).query)["redirect_uri"][0]


def test_the_published_document_is_the_client_id_where_the_server_supports_it(
    home: Path, supporting: OAuthServer, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(home, supporting.url)
    assert main(["mcp", "login", "acme"]) == 0, capsys.readouterr().err
    assert supporting.provider.calls["register"] == 0  # no dynamic registration
    assert supporting.provider.calls["document"] >= 1
    assert parse_qs(urlsplit(browser.opened[0]).query)["client_id"] == [DOCUMENT]
    redirect = urlsplit(redirect_of(browser.opened[0]))
    assert redirect.hostname == "127.0.0.1" and redirect.port in CIMD_PORTS
    assert saved_client(home)["client_id"] == DOCUMENT
    (token,) = supporting.provider.access.values()
    assert token.client_id == DOCUMENT


def test_a_server_without_support_gets_a_dynamic_registration(
    home: Path, plain: OAuthServer, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(home, plain.url)
    assert main(["mcp", "login", "acme"]) == 0, capsys.readouterr().err
    assert plain.provider.calls["register"] == 1
    assert plain.provider.calls["document"] == 0
    assert saved_client(home)["client_id"] != DOCUMENT


def test_the_next_free_pinned_port_is_taken(
    home: Path, supporting: OAuthServer, browser: Browser, capsys: pytest.CaptureFixture[str]
) -> None:
    configure(home, supporting.url)
    with hold(CIMD_PORTS[:-1]):
        assert main(["mcp", "login", "acme"]) == 0, capsys.readouterr().err
    assert urlsplit(redirect_of(browser.opened[0])).port == CIMD_PORTS[-1]
    assert supporting.provider.calls["register"] == 0


@contextlib.contextmanager
def hold(ports: range) -> Iterator[None]:
    """Listen on *ports* (one another process already holds is just as taken)."""
    with contextlib.ExitStack() as stack:
        for port in ports:
            sock = stack.enter_context(socket.socket())
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            with contextlib.suppress(OSError):
                sock.bind(("127.0.0.1", port))
                sock.listen()
        yield


def offered(home: Path, oauth: dict[str, Any], env: dict[str, str] | None = None) -> Any:
    provider = build_oauth_provider(
        "acme",
        "https://mcp.acme.example/mcp",
        oauth,
        home=home,
        interactive=True,
        env={CLIENT_METADATA_URL_ENV: DOCUMENT} if env is None else env,
    )
    return provider.context.client_metadata_url, provider.flow.redirect_uri  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "oauth",
    [
        {"redirect_port": 9876},
        {"redirect_uri": "https://proxy.example/callback"},
        {"client_name": "Acme's own name"},
        {"token_endpoint_auth_method": "client_secret_post"},
        {"cimd": False},
        {"client_id": "console-client"},
    ],
)
def test_settings_the_shared_document_cannot_cover_register_dynamically(
    home: Path, oauth: dict[str, Any]
) -> None:
    url, _ = offered(home, oauth)
    assert url is None


def test_a_servers_own_document_is_used_with_its_own_redirect(home: Path) -> None:
    own = "https://acme.example/hermes-client.json"
    url, redirect = offered(home, {"client_metadata_url": own, "redirect_port": 9876})
    assert (url, redirect) == (own, "http://127.0.0.1:9876/callback")
    assert offered(home, {}, env={})[0] is None  # no document anywhere: registration


def test_all_pinned_ports_taken_means_a_dynamic_registration(home: Path) -> None:
    with hold(CIMD_PORTS):
        url, redirect = offered(home, {})
    assert url is None
    assert urlsplit(redirect).port not in CIMD_PORTS


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("http://agent.example/client.json", "must be an https URL"),
        ("https://agent.example/", "must have a path"),
        ("https://agent.example/a/../client.json", "must not contain . or .. path segments"),
        ("https://agent.example/client.json#x", "must not contain a user name, password or"),
    ],
)
def test_a_bad_document_url_names_where_it_came_from(home: Path, value: str, why: str) -> None:
    with pytest.raises(OAuthConfigError, match=f"{CLIENT_METADATA_URL_ENV} {why}"):
        offered(home, {}, env={CLIENT_METADATA_URL_ENV: value})
    with pytest.raises(OAuthConfigError, match=f"oauth.client_metadata_url {why}"):
        offered(home, {"client_metadata_url": value}, env={})


def test_a_login_the_server_never_completes_suggests_turning_the_document_off(
    home: Path,
    supporting: OAuthServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(callback, "open_browser", Browser(follow=False))
    configure(home, supporting.url, {"timeout": 1})
    assert main(["mcp", "login", "acme"]) == 1
    err = capsys.readouterr().err
    assert "timed out after 1 s" in err
    assert f"offered the client ID metadata document {DOCUMENT}" in err
    assert "set `oauth.cimd: false` for this server" in err


def test_hermes_prints_the_document_to_publish() -> None:
    done = run_hermes("mcp", "oauth-client-document", DOCUMENT, "--client-name", "Acme Agent")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["client_id"] == DOCUMENT and document["client_name"] == "Acme Agent"
    assert document["token_endpoint_auth_method"] == "none"
    assert len(document["redirect_uris"]) == 10
    assert "http://localhost:27894/callback" in document["redirect_uris"]
    bad = run_hermes("mcp", "oauth-client-document", "http://agent.example/x")
    assert bad.returncode == 2 and "must be an https URL" in bad.stderr
