"""DPoP (RFC 9449, SEP-1932) through the real CLI against a real authorization server that binds
its tokens (``servers.oauth_ext.DPoPGate`` in front of the SDK's server): ``oauth.dpop`` set in
config.yaml, ``hermes mcp login`` in one process, ``hermes mcp call`` in the next."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from servers.oauth_server import OAuthServer
from support.browser import browser_env
from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.network, pytest.mark.slow]


def hermes(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_hermes(*args, env={"HERMES_HOME": str(home), **browser_env(home)})


def configure(home: Path, url: str, oauth: str) -> Path:
    path = home / "config.yaml"
    path.write_text(
        "mcp_servers:\n"
        "  acme:\n"
        f"    url: {url}\n"
        "    auth: oauth\n"
        "    oauth:\n"
        "      client_name: Hermes test\n"
        f"{oauth}"
    )
    return path


def saved(home: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((home / "mcp-tokens" / "acme.json").read_text())
    return document


def whoami(home: Path) -> subprocess.CompletedProcess[str]:
    return hermes(home, "mcp", "call", "--json", "mcp_acme_whoami")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def dpop_server() -> Iterator[OAuthServer]:
    server = OAuthServer(dpop=True, dpop_nonce=True).start()
    yield server
    server.stop()


def test_dpop_true_binds_the_tokens_and_every_request_proves_the_key(
    home: Path, dpop_server: OAuthServer
) -> None:
    configure(home, dpop_server.url, "      dpop: true\n")
    login = hermes(home, "mcp", "login", "acme")
    assert login.returncode == 0, login.stderr
    gate = dpop_server.dpop
    assert gate is not None
    assert gate.errors == []
    # The token request carried a proof, was asked for the server's nonce once, and retried.
    assert gate.seen["as_nonce_challenge"] == 1
    assert gate.seen["token_proof"] == 2
    document = saved(home)
    access = document["tokens"]["access_token"]
    assert gate.bound[access]  # the server bound what the client saved
    assert set(document["dpop"]["key"]) == {"kty", "crv", "x", "y", "d"}

    # The next process presents the bound token with the DPoP scheme and fresh proofs,
    # answering the MCP server's own nonce challenge without a new login.
    before = gate.seen["dpop_request"]
    called = whoami(home)
    assert called.returncode == 0, called.stderr
    assert gate.seen["rs_nonce_challenge"] >= 1
    assert gate.seen["dpop_request"] > before
    assert gate.seen["bearer_refused"] == 0 and gate.seen["replay"] == 0
    assert gate.errors == []
    assert dpop_server.provider.calls["authorize"] == 1  # no second login

    # Bound means bound: the same token sent as a plain bearer token is refused.
    request = urllib.request.Request(
        dpop_server.url,
        data=b"{}",
        headers={"Authorization": f"Bearer {access}", "Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    refused.value.close()
    assert refused.value.code == 401
    # Neither the key nor the token is ever shown.
    for output in (login.stdout, login.stderr, called.stdout, called.stderr):
        assert access not in output and document["dpop"]["key"]["d"] not in output


def test_dpop_false_asks_for_bearer_tokens_even_where_dpop_is_offered(
    home: Path, dpop_server: OAuthServer
) -> None:
    configure(home, dpop_server.url, "      dpop: false\n")
    login = hermes(home, "mcp", "login", "acme")
    assert login.returncode == 0, login.stderr
    called = whoami(home)
    assert called.returncode == 0, called.stderr
    gate = dpop_server.dpop
    assert gate is not None
    assert gate.seen["token_proof"] == 0 and gate.seen["dpop_request"] == 0
    assert "dpop" not in saved(home)


def test_dpop_auto_is_the_default_and_follows_the_server(
    home: Path, dpop_server: OAuthServer
) -> None:
    configure(home, dpop_server.url, "")
    assert hermes(home, "mcp", "login", "acme").returncode == 0
    assert whoami(home).returncode == 0
    gate = dpop_server.dpop
    assert gate is not None
    assert gate.seen["token_proof"] >= 1 and gate.seen["dpop_request"] >= 1

    plain = OAuthServer().start()  # offers no DPoP: bearer tokens, as before
    try:
        other = home / "plain"
        other.mkdir()
        configure(other, plain.url, "")
        assert hermes(other, "mcp", "login", "acme").returncode == 0
        assert "dpop" not in saved(other)
        assert whoami(other).returncode == 0
    finally:
        plain.stop()


def test_dpop_true_refuses_a_server_that_hands_out_bearer_tokens(home: Path) -> None:
    plain = OAuthServer().start()
    try:
        configure(home, plain.url, "      dpop: true\n")
        login = hermes(home, "mcp", "login", "acme")
    finally:
        plain.stop()
    assert login.returncode != 0
    assert "oauth.dpop is true, but the authorization server answered with a Bearer token" in (
        login.stderr
    )
    assert not (home / "mcp-tokens" / "acme.json").exists()


@pytest.mark.parametrize(
    ("oauth", "line", "message"),
    [
        ("      dpop: maybe\n", 7, "mcp_servers.acme.oauth.dpop: must be true, false or auto"),
        ("      dpo: true\n", 7, "mcp_servers.acme.oauth.dpo: unknown key (did you mean 'dpop'?"),
        (
            "      grant: client_credentials\n      client_id: x\n      client_secret: y\n"
            "      dpop: true\n",
            10,
            "mcp_servers.acme.oauth.dpop: is not supported with grant: client_credentials",
        ),
    ],
)
def test_a_dpop_setting_that_cannot_work_stops_every_command_at_its_line(
    home: Path, oauth: str, line: int, message: str
) -> None:
    path = configure(home, "https://mcp.example.com/mcp", oauth)
    result = hermes(home, "mcp", "status")
    assert result.returncode == 2
    assert f"error: {path}:{line}: {message}" in result.stderr


def test_a_dpop_value_from_a_variable_is_checked_once_expanded(home: Path) -> None:
    path = configure(home, "https://mcp.example.com/mcp", "      dpop: ${DPOP_MODE}\n")
    result = run_hermes("mcp", "status", env={"HERMES_HOME": str(home), "DPOP_MODE": "sometimes"})
    assert result.returncode == 1  # that server fails; the command runs
    assert (
        f"last error: {path}:7: mcp_servers.acme.oauth.dpop: must be true, false or auto "
        "(after ${…} expansion)"
    ) in result.stdout


def test_a_proof_is_what_rfc_9449_describes() -> None:
    import jwt

    from hermes_core.auth.dpop import DPoPKey, access_token_hash
    from servers.oauth_ext import thumbprint

    key = DPoPKey.generate()
    proof = key.proof("post", "https://mcp.example/mcp?x=1#f", access_token="tok", nonce="n-1")
    header = jwt.get_unverified_header(proof)
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256"
    assert "d" not in header["jwk"]
    claims = jwt.decode(
        proof, jwt.PyJWK(header["jwk"], algorithm="ES256").key, algorithms=["ES256"]
    )
    assert claims["htm"] == "POST" and claims["htu"] == "https://mcp.example/mcp"
    assert claims["ath"] == access_token_hash("tok") and claims["nonce"] == "n-1"
    assert (
        claims["jti"]
        != jwt.decode(
            key.proof("POST", "https://mcp.example/mcp"), options={"verify_signature": False}
        )["jti"]
    )
    assert key.thumbprint == thumbprint(header["jwk"])
    # Saved and read back, it is the same key; its private part is never in a repr.
    again = DPoPKey.from_private_jwk(key.private_jwk())
    assert again.thumbprint == key.thumbprint
    assert key.private_jwk()["d"] not in repr(key)
