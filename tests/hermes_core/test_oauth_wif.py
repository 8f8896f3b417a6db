"""Workload identity (``oauth.grant: jwt_bearer``, RFC 7523) through the real CLI against a real
authorization server (the SDK's, with ``servers.oauth_ext.WorkloadGrant`` taking workload JWTs
signed by the test "platform" key)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from servers.oauth_server import OAuthServer
from support.cli import hermes_at as hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.network, pytest.mark.slow]

PLATFORM_KEY = ec.generate_private_key(ec.SECP256R1())


def workload_jwt(audience: str, *, subject: str = "ci-job-7", expires_in: int = 300) -> str:
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": "https://platform.example",
        "sub": subject,
        "aud": audience,
        "iat": now,
        "exp": now + expires_in,
    }
    return jwt.encode(claims, PLATFORM_KEY, algorithm="ES256")


def configure(home: Path, url: str, oauth: str) -> Path:
    path = home / "config.yaml"
    path.write_text(
        "mcp_servers:\n"
        "  acme:\n"
        f"    url: {url}\n"
        "    auth: oauth\n"
        "    oauth:\n"
        "      grant: jwt_bearer\n"
        f"{oauth}"
    )
    return path


@pytest.fixture
def server() -> Iterator[OAuthServer]:
    running = OAuthServer(workload_key=PLATFORM_KEY.public_key()).start()
    yield running
    running.stop()


def test_the_workload_token_file_is_exchanged_for_access(
    tmp_path: Path, server: OAuthServer
) -> None:
    token_file = tmp_path / "workload.jwt"
    token_file.write_text(workload_jwt(server.base) + "\n")
    configure(tmp_path, server.url, "      assertion_file: ${WORKLOAD_TOKEN_FILE}\n")
    called = hermes(
        tmp_path, "mcp", "call", "--json", "mcp_acme_whoami", WORKLOAD_TOKEN_FILE=str(token_file)
    )
    assert called.returncode == 0, called.stderr
    assert "workload:ci-job-7" in called.stdout
    assert server.workload is not None
    (request,) = server.workload.requests
    assert request["assertion"] == token_file.read_text().strip()
    assert request["resource"] == server.url
    assert server.provider.calls["register"] == 0  # no registration, no browser

    # The platform rotated the file: the next exchange reads the new one.
    token_file.write_text(workload_jwt(server.base, subject="ci-job-8"))
    (tmp_path / "mcp-tokens" / "acme.json").unlink()
    again = hermes(
        tmp_path, "mcp", "call", "--json", "mcp_acme_whoami", WORKLOAD_TOKEN_FILE=str(token_file)
    )
    assert again.returncode == 0, again.stderr
    assert "workload:ci-job-8" in again.stdout


def test_a_refused_assertion_is_reported_once_never_retried(
    tmp_path: Path, server: OAuthServer
) -> None:
    expired = workload_jwt(server.base, expires_in=-120)
    configure(tmp_path, server.url, "      assertion: ${WORKLOAD_JWT}\n")
    called = hermes(tmp_path, "mcp", "call", "--json", "mcp_acme_whoami", WORKLOAD_JWT=expired)
    assert called.returncode != 0
    shown = called.stdout + called.stderr
    assert "the authorization server refused the workload token (invalid_grant" in shown
    assert server.workload is not None and len(server.workload.requests) == 1
    assert expired not in called.stdout + called.stderr


def test_a_token_for_another_audience_is_never_sent(tmp_path: Path, server: OAuthServer) -> None:
    configure(tmp_path, server.url, "      assertion: ${WORKLOAD_JWT}\n")
    elsewhere = workload_jwt("https://auth.other.example")
    called = hermes(tmp_path, "mcp", "call", "--json", "mcp_acme_whoami", WORKLOAD_JWT=elsewhere)
    assert called.returncode != 0
    assert (
        f"names the authorization server {server.base}, but the workload token is for "
        "https://auth.other.example; it is not sent there"
    ) in called.stdout + called.stderr
    assert server.workload is not None and server.workload.requests == []


@pytest.mark.parametrize(
    ("oauth", "line", "message"),
    [
        ("", 5, "oauth.assertion: or oauth.assertion_file (one of them) is required"),
        ("      assertion: a.b.c\n      assertion_file: /x\n", 7, "oauth.assertion: or oauth"),
        ("      grant: jwt_berer\n", 6, "oauth.grant: must be one of"),
        ("      assertion: a.b.c\n      issuer: http://auth.example\n", 8, "oauth.issuer: must be"),
    ],
)
def test_bad_workload_settings_are_errors_at_their_line(
    tmp_path: Path, oauth: str, line: int, message: str
) -> None:
    text = configure(tmp_path, "https://mcp.example.com/mcp", oauth).read_text()
    if "jwt_berer" in oauth:  # replace the grant line, keeping the line numbers
        text = text.replace("      grant: jwt_bearer\n", "")
        (tmp_path / "config.yaml").write_text(text)
    result = hermes(tmp_path, "mcp", "status")
    assert result.returncode == 2, result.stderr
    assert f"config.yaml:{line}: mcp_servers.acme.{message}" in result.stderr


def test_a_workload_token_is_dpop_bound_where_the_server_offers_it(tmp_path: Path) -> None:
    server = OAuthServer(workload_key=PLATFORM_KEY.public_key(), dpop=True, dpop_nonce=True)
    server.start()
    try:
        configure(tmp_path, server.url, "      assertion: ${WORKLOAD_JWT}\n")
        called = hermes(
            tmp_path,
            "mcp",
            "call",
            "--json",
            "mcp_acme_whoami",
            WORKLOAD_JWT=workload_jwt(server.base),
        )
    finally:
        server.stop()
    assert called.returncode == 0, called.stderr
    assert "workload:ci-job-7" in called.stdout
    gate = server.dpop
    assert gate is not None and gate.errors == []
    assert gate.seen["as_nonce_challenge"] == 1 and gate.seen["token_proof"] == 2
    assert gate.seen["rs_nonce_challenge"] >= 1 and gate.seen["dpop_request"] >= 1
    assert gate.seen["bearer_refused"] == 0
