"""The one install service (issue 43 item 1; issue 42 items 15, 16, 19), tried as a user and a
hostile publisher would: the dashboard's Install refused by the administrator's policy and by a
missing auth provider before anything is fetched (a real git server stand-in counts the
requests), a failed fetch that writes nothing; the install screen showing every argument whole
and quoted, a command line too long to show refused; ``127.evil.example`` is no loopback; a
bundle download never follows https to http (real TLS and HTTP servers)."""

from __future__ import annotations

import datetime
import http.server
import ipaddress
import json
import os
import ssl
import subprocess
import sys
import textwrap
import threading
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from hermes_core.catalog.command_line import MAX_SHOWN, quoted
from hermes_core.catalog.registry.client import RegistryClient, RegistryError, download
from hermes_core.catalog.registry.loopback import is_loopback
from hermes_core.catalog.registry.registries import Registry
from servers.net import PORT, http_server
from support.cli import run_hermes
from support.dashboard import chromium, running_dashboard

SERVERS = Path(__file__).resolve().parents[1] / "servers"
DASH = str(SERVERS / "dashboard_server.py")
Run = Callable[..., subprocess.CompletedProcess[str]]


# -- real servers in this process ----------------------------------------------------------


class _Server(http.server.ThreadingHTTPServer):
    hits: list[str]
    routes: dict[str, tuple[int, dict[str, str], bytes]]


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        self.server.hits.append(self.path)
        status, headers, body = self.server.routes.get(self.path, (404, {}, b"not here"))
        self.send_response(status)
        for key, value in {**headers, "Content-Length": str(len(body))}.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture
def serve() -> Iterator[Callable[..., _Server]]:
    """Start an HTTP (or, given a TLS context, HTTPS) server on 127.0.0.1 that records each
    request's path; all are stopped at the end."""
    started: list[_Server] = []

    def start(tls: ssl.SSLContext | None = None) -> _Server:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.hits, server.routes = [], {}
        if tls is not None:
            server.socket = tls.wrap_socket(server.socket, server_side=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.shutdown()
        server.server_close()


def _port(server: _Server) -> int:
    return int(server.server_address[1])


@pytest.fixture
def tls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ssl.SSLContext:
    """A server context for 127.0.0.1 whose certificate the client trusts (SSL_CERT_FILE)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return context


# -- loopback is an address (item 16) ------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8080/", True),
        ("http://127.8.9.10/", True),
        ("http://[::1]:9/", True),
        ("http://[::ffff:127.0.0.1]/", True),
        ("http://localhost:9/", True),
        ("http://127.evil.example/", False),
        ("http://127.0.0.1.evil.example/", False),
        ("http://localhost.evil.example/", False),
        ("http://127.1/", False),  # what a resolver reads as 127.0.0.1: never trusted
        ("http://2130706433/", False),
        ("http://10.0.0.1/", False),
        ("http://[::2]/", False),
        ("http://[::1/", False),  # not a URL at all
    ],
)
def test_loopback_is_an_address_not_a_spelling(url: str, loopback: bool) -> None:
    assert is_loopback(url) is loopback


@pytest.mark.network
def test_127_evil_example_gets_no_token_and_no_plain_http_download(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVIL_REGISTRY_TOKEN", "never-sent")
    registry = Registry("evil", "http://127.evil.example:1", "EVIL_REGISTRY_TOKEN")
    with pytest.raises(RegistryError, match="refusing to send its token over plain http"):
        RegistryClient(registry).server("io.github.acme/x")
    with pytest.raises(RegistryError, match="https:// only"):
        download("http://127.evil.example:1/x.mcpb", 1024, into=tmp_path / "in")
    assert not (tmp_path / "in").exists() or list((tmp_path / "in").iterdir()) == []


# -- a bundle download never goes from https to http (item 16) ------------------------------


@pytest.mark.network
def test_a_bundle_download_never_follows_a_redirect_from_https_to_http(
    tmp_path: Path, serve: Callable[..., _Server], tls: ssl.SSLContext
) -> None:
    body = b"PK\x05\x06" + b"\x00" * 18  # an empty zip: what is fetched does not matter here
    plain = serve()
    plain.routes["/bundle.mcpb"] = (200, {}, body)
    secure = serve(tls)
    secure.routes["/bundle.mcpb"] = (200, {}, body)
    secure.routes["/to-https.mcpb"] = (302, {"Location": "/bundle.mcpb"}, b"")
    to_http = f"http://127.0.0.1:{_port(plain)}/bundle.mcpb"
    secure.routes["/to-http.mcpb"] = (302, {"Location": to_http}, b"")
    into = tmp_path / "downloads"
    base = f"https://127.0.0.1:{_port(secure)}"

    # Over https, a redirect is followed (each hop checked): the file arrives.
    path, digest = download(f"{base}/to-https.mcpb", 1024, into=into)
    assert path.read_bytes() == body and len(digest) == 64
    path.unlink()
    # Plain http on loopback is allowed as a first URL...
    path, _digest = download(to_http, 1024, into=into)
    path.unlink()
    plain.hits.clear()
    # ...but never after https, even to loopback: refused before it is asked.
    with pytest.raises(RegistryError, match=r"redirected from https:// to http://"):
        download(f"{base}/to-http.mcpb", 1024, into=into)
    assert plain.hits == []
    assert list(into.iterdir()) == []

    # The CLI says it in one line and writes nothing.
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HERMES_HOME": str(home),
        "HERMES_CATALOG_PATH": "",
        "SSL_CERT_FILE": os.environ["SSL_CERT_FILE"],
    }
    done = run_hermes("mcp", "install", f"{base}/to-http.mcpb", "--sha256", "a" * 64, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "redirected from https:// to http://" in done.stderr
    assert "Traceback" not in done.stderr
    assert plain.hits == []
    assert not (home / "config.yaml").exists()
    assert list((home / "cache" / "downloads").iterdir()) == []


# -- the install screen (item 15) ----------------------------------------------------------


def test_quoted_keeps_each_word_whole_and_makes_hidden_characters_visible() -> None:
    assert quoted("plain/path-1.0") == "plain/path-1.0"
    assert quoted("${TOKEN}") == "${TOKEN}"  # a reference Hermes fills in
    assert quoted("a   b") == "'a   b'"
    assert quoted("") == "''"
    assert quoted("it's") == "'it'\"'\"'s'"
    assert quoted("one\ntwo") == "$'one\\ntwo'"
    assert quoted("red\x1b[31m") == "$'red\\x1b[31m'"
    assert quoted("zero\u200bwidth") == "$'zero\\u200bwidth'"
    assert quoted("tag\U000e0041") == "$'tag\\U000e0041'"
    assert quoted("nbsp\u00a0x") == "$'nbsp\\xa0x'"


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    data, files = tmp_path / "registry.json", tmp_path / "files"
    files.mkdir()
    data.write_text("[]")
    argv = [sys.executable, str(SERVERS / "registry_server.py"), PORT, str(data), str(files)]
    with http_server(argv, path="") as url:
        yield url, data


def _npm(name: str, arguments: list[dict[str, Any]], env: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "name": name,
        "description": "A server with hostile arguments",
        "version": "1.0.0",
        "packages": [
            {
                "registryType": "npm",
                "identifier": "@acme/args",
                "version": "1.0.0",
                "transport": {"type": "stdio"},
                "packageArguments": arguments,
                "environmentVariables": env,
            }
        ],
    }


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.network
def test_the_install_screen_shows_every_argument_whole_and_refuses_a_command_line_too_long(
    tmp_path: Path, registry: tuple[str, Path]
) -> None:
    url, data = registry
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text("# mine\nmcp_servers: {}\n")
    env = {"HERMES_HOME": str(home), "HERMES_CATALOG_PATH": ""}
    long_arg = "L" * 3000 + " tail"
    arguments = [
        {"type": "positional", "value": long_arg},
        {"type": "positional", "value": "two   spaces"},
        {"type": "named", "name": "--motd", "value": "line one\nline two"},
        {"type": "positional", "value": "\x1b[2Jcleared"},
    ]
    variables = [{"name": "MODE", "value": "a  b\tc"}]
    too_long = [{"type": "positional", "value": "x" * 3000} for _ in range(3)]
    data.write_text(
        json.dumps(
            [
                _npm("io.github.acme/args", arguments, variables),
                _npm("io.github.acme/huge", too_long, []),
            ]
        )
    )
    before = (home / "config.yaml").read_text()

    shown = run_hermes("mcp", "install", "io.github.acme/args", "--registry", url, env=env)
    assert shown.returncode == 2 and "add --yes" in shown.stderr  # no terminal: nothing done
    runs = next(line for line in shown.stdout.splitlines() if line.startswith("  runs:"))
    assert runs == (
        f"  runs:      npx -y @acme/args@1.0.0 '{long_arg}' 'two   spaces' --motd "
        "$'line one\\nline two' $'\\x1b[2Jcleared'"
    )
    assert "  env:       MODE=$'a  b\\tc'" in shown.stdout
    assert "\x1b" not in shown.stdout
    assert (home / "config.yaml").read_text() == before

    huge = run_hermes("mcp", "install", "io.github.acme/huge", "--registry", url, "--yes", env=env)
    assert huge.returncode == 1, huge.stdout + huge.stderr
    assert f"an install shows at most {MAX_SHOWN} in full, so it is refused" in huge.stderr
    assert "Traceback" not in huge.stderr
    assert "x" * 3000 not in huge.stdout  # refused, not shown cut
    assert (home / "config.yaml").read_text() == before
    assert not (home / "installs").exists()


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.network
def test_a_registry_install_the_policy_refuses_writes_nothing(
    tmp_path: Path, registry: tuple[str, Path]
) -> None:
    url, data = registry
    home = tmp_path / "home"
    home.mkdir()
    (home / "policy.yaml").write_text("deny:\n  servers:\n    - command: npx\n")
    env = {
        "HERMES_HOME": str(home),
        "HERMES_CATALOG_PATH": "",
        "HERMES_POLICY": str(home / "policy.yaml"),
    }
    data.write_text(json.dumps([_npm("io.github.acme/args", [], [])]))
    done = run_hermes("mcp", "install", "io.github.acme/args", "--registry", url, "--yes", env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "refused by the administrator's policy" in done.stderr
    assert "nothing was installed" in done.stderr
    assert "Install 'io.github.acme/args'" not in done.stdout  # refused before the screen
    assert not (home / "config.yaml").exists() and not (home / "installs").exists()


# -- the dashboard runs the same steps (item 19) -------------------------------------------


def _dashboard_home(tmp_path: Path, git_url: str) -> tuple[Path, dict[str, str]]:
    home, catalog = tmp_path / "home", tmp_path / "catalog"
    home.mkdir()
    catalog.mkdir()
    (home / "config.yaml").write_text(
        "# my servers (this comment stays)\nmcp_servers:\n"
        "  kept:  # this one too\n    command: /nonexistent/kept\n    enabled: false\n"
    )
    (home / "policy.yaml").write_text("deny:\n  servers:\n    - name: fetchdash\n")
    (catalog / "fetchdash.yaml").write_text(
        textwrap.dedent(
            f"""\
            manifest_version: 1
            name: fetchdash
            description: Built from a git server that counts its requests
            source:
              git: {git_url}
              ref: v1.0.0
            install:
              bootstrap: ["echo built > marker.txt"]
            transport:
              command: {json.dumps(sys.executable)}
              args: [{json.dumps(DASH)}, "two   spaces", "line one\\nline two"]
            """
        )
    )
    (catalog / "providerdash.yaml").write_text(
        textwrap.dedent(
            """\
            manifest_version: 1
            name: providerdash
            description: Signs in with a plugin's auth provider that is not installed
            transport:
              url: https://providerdash.example/mcp
            auth:
              provider: nosuch-provider
            """
        )
    )
    return home, {
        "HERMES_CATALOG_PATH": str(catalog),
        "HERMES_POLICY": str(home / "policy.yaml"),
        "PATH": "/usr/bin:/bin",
    }


@pytest.mark.process
@pytest.mark.network
@pytest.mark.cli
@pytest.mark.slow
def test_the_dashboard_install_checks_policy_and_provider_before_fetching_and_rolls_back(
    tmp_path: Path, serve: Callable[..., _Server]
) -> None:
    git = serve()  # answers 404 to everything: a clone that reaches it fails
    home, extra = _dashboard_home(tmp_path, f"http://127.0.0.1:{_port(git)}/acme/fetchdash.git")
    config = home / "config.yaml"
    before = config.read_text()
    with running_dashboard(home, extra) as dash, chromium() as browser:
        page = browser.new_context().new_page()
        page.goto(dash.url)
        page.click("text=Catalog")
        page.wait_for_load_state("load")  # the stylesheet (white-space: pre-wrap) applied
        # The screen: each argument whole, quoted as one word.
        args = page.locator("#entry-fetchdash tr", has=page.locator("th", has_text="args"))
        assert "'two   spaces' $'line one\\nline two'" in args.inner_text()

        page.locator("#entry-fetchdash").locator("button", has_text="Install").click()
        error = page.inner_text(".error")
        assert "refused by the administrator's policy" in error and "deny.servers[0]" in error
        assert "nothing was installed" in error
        assert git.hits == []  # refused before anything was fetched
        assert config.read_text() == before

        page.locator("#entry-providerdash").locator("button", has_text="Install").click()
        error = page.inner_text(".error")
        assert "'nosuch-provider', which no installed plugin registers" in error
        assert config.read_text() == before

        # The policy lifted: the clone is tried, fails, and nothing is left behind.
        (home / "policy.yaml").write_text("deny:\n  servers:\n    - name: someone-else\n")
        page.locator("#entry-fetchdash").locator("button", has_text="Install").click()
        error = page.inner_text(".error")
        assert "git could not fetch" in error and "nothing was installed" in error
        assert git.hits != []
        assert config.read_text() == before  # comments and all
        assert not (home / "mcp-installs" / "fetchdash").exists()
        assert not (home / ".env").exists()


def _bundle(path: Path, args: list[str]) -> Path:
    manifest = {
        "manifest_version": "0.2",
        "name": "args-bundle",
        "version": "1.0.0",
        "description": "A bundle with hostile arguments",
        "author": {"name": "Test"},
        "server": {
            "type": "python",
            "entry_point": "server/main.py",
            "mcp_config": {"command": "python3", "args": ["${__dirname}/server/main.py", *args]},
        },
    }
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("manifest.json", json.dumps(manifest))
        archive.writestr("server/main.py", "print('never run')\n")
    return path


@pytest.mark.process
@pytest.mark.cli
def test_a_bundle_s_screen_shows_its_arguments_whole_and_refuses_one_too_long(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {"HERMES_HOME": str(home), "HERMES_CATALOG_PATH": ""}
    shown = _bundle(tmp_path / "args.mcpb", ["--name", "two   spaces", "line one\nline two"])
    done = run_hermes("mcp", "install", str(shown), env=env)
    assert done.returncode == 2 and "add --yes" in done.stderr  # no terminal: nothing done
    folder = home / "mcp-installs" / "args-bundle"
    assert (
        f"  runs:      python3 {folder}/server/main.py --name 'two   spaces' "
        "$'line one\\nline two' (python server)"
    ) in done.stdout
    huge = _bundle(tmp_path / "huge.mcpb", ["y" * (MAX_SHOWN + 1)])
    refused = run_hermes("mcp", "install", str(huge), "--yes", env=env)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert f"an install shows at most {MAX_SHOWN} in full" in refused.stderr
    assert not (home / "config.yaml").exists() and not folder.exists()
