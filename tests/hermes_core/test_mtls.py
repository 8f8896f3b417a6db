"""mTLS and identity headers against a real local TLS server that requires client certificates."""

from __future__ import annotations

import asyncio
import datetime
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from hermes_core.config.loader import parse_config_text
from hermes_core.host.host import MCPHost
from hermes_core.host.setup.from_config import host_servers
from servers.net import free_port, wait_for_port

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.network, pytest.mark.slow]

TLS_SERVER = Path(__file__).parents[1] / "servers" / "tls_server.py"
PASSPHRASE = "pem-passphrase-7731"


@dataclass(frozen=True)
class Pki:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    client_combined: Path
    client_key_encrypted: Path
    stranger_cert: Path
    stranger_key: Path


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _issue(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: x509.Name,
    signer: ec.EllipticCurvePrivateKey,
    *,
    ca: bool = False,
    san: bool = False,
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(issuer)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if san:
        import ipaddress

        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
    return builder.sign(signer, hashes.SHA256())


def _write(path: Path, *parts: bytes) -> Path:
    path.write_bytes(b"".join(parts))
    return path


def _key_pem(key: ec.EllipticCurvePrivateKey, password: str | None = None) -> bytes:
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(password.encode())
        if password
        else serialization.NoEncryption()
    )
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption
    )


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    folder = tmp_path_factory.mktemp("pki")
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_cert = _issue("Hermes Test CA", ca_key, _name("Hermes Test CA"), ca_key, ca=True)
    server_key = ec.generate_private_key(ec.SECP256R1())
    server_cert = _issue("localhost", server_key, ca_cert.subject, ca_key, san=True)
    client_key = ec.generate_private_key(ec.SECP256R1())
    client_cert = _issue("hermes-client", client_key, ca_cert.subject, ca_key)
    stranger_key = ec.generate_private_key(ec.SECP256R1())
    stranger_cert = _issue("stranger", stranger_key, _name("stranger"), stranger_key)
    pem = serialization.Encoding.PEM
    return Pki(
        ca=_write(folder / "ca.pem", ca_cert.public_bytes(pem)),
        server_cert=_write(folder / "server.pem", server_cert.public_bytes(pem)),
        server_key=_write(folder / "server.key", _key_pem(server_key)),
        client_cert=_write(folder / "client.pem", client_cert.public_bytes(pem)),
        client_key=_write(folder / "client.key", _key_pem(client_key)),
        client_combined=_write(
            folder / "client-combined.pem", client_cert.public_bytes(pem), _key_pem(client_key)
        ),
        client_key_encrypted=_write(folder / "client-enc.key", _key_pem(client_key, PASSPHRASE)),
        stranger_cert=_write(folder / "stranger.pem", stranger_cert.public_bytes(pem)),
        stranger_key=_write(folder / "stranger.key", _key_pem(stranger_key)),
    )


@pytest.fixture(scope="module")
def tls_url(pki: Pki) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            str(TLS_SERVER),
            str(port),
            str(pki.server_cert),
            str(pki.server_key),
            str(pki.ca),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_port(port)
    try:
        yield f"https://localhost:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture(autouse=True)
def trust_test_ca(pki: Pki, monkeypatch: pytest.MonkeyPatch) -> None:
    # The client verifies the server against the system store; add our test CA to it.
    monkeypatch.setenv("SSL_CERT_FILE", str(pki.ca))


def connect(config_text: str) -> tuple[str | None, object]:
    loaded = parse_config_text(config_text, "config.yaml")
    servers = host_servers(loaded, env=dict(os.environ))

    async def scenario() -> tuple[str | None, object]:
        async with MCPHost(servers) as host:
            error = host.status()[0].last_error
            result = (
                await host.call_tool("mcp_tls_hello", {"name": "ada"}) if error is None else None
            )
            return error, result

    return asyncio.run(scenario())


@pytest.mark.parametrize(
    "client_cert",
    [
        "client_cert: {combined}",
        "client_cert: [{cert}, {key}]",
        "client_cert: {cert}\n    client_key: {key}",
        "client_cert: [{cert}, {enc}, '{pw}']",
    ],
)
def test_the_right_certificate_is_accepted(pki: Pki, tls_url: str, client_cert: str) -> None:
    entry = client_cert.format(
        combined=pki.client_combined,
        cert=pki.client_cert,
        key=pki.client_key,
        enc=pki.client_key_encrypted,
        pw=PASSPHRASE,
    )
    error, result = connect(
        f"mcp_servers:\n  tls:\n    url: {tls_url}\n    {entry}\n    connect_timeout: 10\n"
    )
    assert error is None
    assert isinstance(result, dict) and result["content"][0]["text"] == "hello ada over mutual TLS"


def test_no_certificate_is_a_clear_error(tls_url: str) -> None:
    error, _ = connect(f"mcp_servers:\n  tls:\n    url: {tls_url}\n    connect_timeout: 10\n")
    assert error is not None and error.startswith(f"cannot connect to {tls_url}")
    assert "if it requires a client certificate, set client_cert" in error


def test_an_unknown_certificate_is_refused(pki: Pki, tls_url: str) -> None:
    error, _ = connect(
        f"mcp_servers:\n  tls:\n    url: {tls_url}\n"
        f"    client_cert: [{pki.stranger_cert}, {pki.stranger_key}]\n    connect_timeout: 10\n"
    )
    assert error is not None and error.startswith(f"cannot connect to {tls_url}")
    assert "it may not accept this client_cert" in error


def test_a_missing_file_is_named_before_connecting(tmp_path: Path) -> None:
    missing = tmp_path / "nope.pem"
    error, _ = connect(
        f"mcp_servers:\n  tls:\n    url: https://localhost:1/mcp\n    client_cert: {missing}\n"
    )
    assert error == f"MCP server 'tls': client_cert not found at '{missing}'"


def test_a_wrong_passphrase_never_shows_the_passphrase(pki: Pki, tls_url: str) -> None:
    error, _ = connect(
        f"mcp_servers:\n  tls:\n    url: {tls_url}\n"
        f"    client_cert: [{pki.client_cert}, {pki.client_key_encrypted}, 'wrong-secret-991']\n"
    )
    assert error is not None and "wrong-secret-991" not in error
    assert "cannot use the client certificate" in error


def _headers_seen(pki: Pki, tls_url: str, extra: str) -> str:
    loaded = parse_config_text(
        f"mcp_servers:\n  tls:\n    url: {tls_url}\n"
        f"    client_cert: [{pki.client_cert}, {pki.client_key}]\n{extra}",
        "config.yaml",
    )
    servers = host_servers(loaded, env=dict(os.environ))

    async def scenario() -> str:
        async with MCPHost(servers) as host:
            result = await host.call_tool("mcp_tls_headers_seen")
            return str(result["content"][0]["text"])

    return asyncio.run(scenario())


def test_identity_header_static_and_explicit_headers_win(pki: Pki, tls_url: str) -> None:
    seen = _headers_seen(pki, tls_url, "    identity_header: {name: X-Hermes-User, value: alice}\n")
    assert "x-hermes-user: alice" in seen.splitlines()
    seen = _headers_seen(
        pki,
        tls_url,
        "    headers: {x-hermes-user: bob}\n"
        "    identity_header: {name: X-Hermes-User, value: alice}\n",
    )
    assert "x-hermes-user: bob" in seen.splitlines()


def test_identity_header_from_the_profile(
    pki: Pki, tls_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HERMES_PROFILE", "work")
    seen = _headers_seen(
        pki, tls_url, "    identity_header: {name: X-Profile, value_from: profile}\n"
    )
    assert "x-profile: work" in seen.splitlines()


@pytest.fixture(scope="module")
def tls_sse_url(pki: Pki) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [
            *(sys.executable, str(TLS_SERVER), str(port)),
            *(str(pki.server_cert), str(pki.server_key), str(pki.ca), "sse"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_port(port)
    try:
        yield f"https://localhost:{port}/sse"
    finally:
        process.terminate()
        process.wait(10)


def test_mtls_over_sse_through_the_cli(pki: Pki, tls_sse_url: str, tmp_path: Path) -> None:
    """``transport: sse`` sends the client certificate (it used to be silently left out)."""
    from support.cli import run_hermes

    (tmp_path / "config.yaml").write_text(
        f"mcp_servers:\n  tls:\n    url: {tls_sse_url}\n    transport: sse\n"
        f"    client_cert: [{pki.client_cert}, {pki.client_key}]\n    connect_timeout: 20\n"
    )
    env = {"HERMES_HOME": str(tmp_path), "SSL_CERT_FILE": str(pki.ca)}
    called = run_hermes(
        "mcp", "call", "--json", "mcp_tls_hello", "--args", '{"name": "ada"}', env=env
    )
    assert called.returncode == 0, called.stdout + called.stderr
    assert "hello ada over mutual TLS" in called.stdout
    # Without the certificate the TLS server refuses, and the error says what to set.
    (tmp_path / "config.yaml").write_text(
        f"mcp_servers:\n  tls:\n    url: {tls_sse_url}\n    transport: sse\n"
        "    connect_timeout: 20\n"
    )
    refused = run_hermes("mcp", "test", "tls", "--json", env=env)
    assert refused.returncode == 1
    assert "set client_cert" in json.loads(refused.stdout)["error"]
