"""What a failed HTTP connection is explained as (issue 27, item 19).

The names end in ``.invalid`` (RFC 2606: never resolves, with or without a network), so the
lookup fails for real; the refused port is a port nothing listens on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from servers.net import free_port
from support.cli import run_hermes


def status_error(home: Path, url: str) -> str:
    (home / "config.yaml").write_text(
        f"mcp_servers:\n  far:\n    url: {url}\n    connect_timeout: 30\n"
    )
    done = run_hermes("mcp", "status", "--json", env={"HERMES_HOME": str(home)})
    assert done.returncode == 1, done.stderr
    (row,) = json.loads(done.stdout)
    return str(row["last_error"])


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.network
@pytest.mark.parametrize("scheme", ["https", "http"])
def test_a_name_that_does_not_resolve_is_said_so(tmp_path: Path, scheme: str) -> None:
    error = status_error(tmp_path, f"{scheme}://mcp.hermes-test.invalid/mcp")
    assert "the host name 'mcp.hermes-test.invalid' did not resolve" in error
    assert "client_cert" not in error and "dropped the connection" not in error


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.network
def test_a_refused_connection_is_not_blamed_on_a_certificate(tmp_path: Path) -> None:
    error = status_error(tmp_path, f"https://127.0.0.1:{free_port()}/mcp")
    assert error.startswith("cannot connect to https://127.0.0.1:")
    assert "client_cert" not in error and "did not resolve" not in error
