"""HostServer's repr shows where a server is without its secrets, as the config models do."""

from __future__ import annotations

import pytest

from hermes_core.config.models import display_url as config_display_url
from hermes_core.host.server_spec import HostServer
from hermes_core.sanitize.urls import display_url


def test_the_repr_shows_the_shape_of_a_server_and_none_of_its_secrets() -> None:
    remote = HostServer(
        "db",
        url="https://user:hunter2@db.example.com/mcp?key=sk-123#frag",
        transport="streamable_http",
        headers={"Authorization": "Bearer sk-456"},
    )
    assert repr(remote) == (
        "HostServer('db', streamable_http, https://***@db.example.com/mcp?***, enabled=True)"
    )
    local = HostServer("files", command="npx", args=["--token", "sk-789"], env={"K": "sk-0"})
    assert repr(local) == "HostServer('files', stdio, npx (2 args), enabled=True)"
    for secret in ("hunter2", "sk-"):
        assert secret not in repr(remote) + repr(local)


@pytest.mark.parametrize(
    "url",
    [
        "https://a:b@h/p?q=1",
        "https://h/p#f",
        "http://h:8080/",
        "not a url",
        "https://x@y@h/p?a#b",
    ],
)
def test_it_shows_a_url_as_the_config_models_do(url: str) -> None:
    assert display_url(url) == config_display_url(url)
