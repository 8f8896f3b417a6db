"""server_json liveness: the runtime file, endpoint composition and token hygiene."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict

import pytest

from hermes_platform.resolver.app import AppDef, AppLocation
from hermes_platform.resolver.liveness import compose_endpoint, endpoint, probe_local, read_session
from hermes_platform.testing import FakeHost

MakeHost = Callable[..., FakeHost]
TOKEN = "s3cret-token-value"


def live_app(endpoint_path: str = "/mcp") -> AppDef:
    return AppDef(
        "vendor",
        "linux",
        "executable",
        (AppLocation("path", "/opt/v"),),
        liveness_kind="server_json",
        liveness_path="~/.vendor/server.json",
        endpoint_path=endpoint_path,
    )


def runtime(host: FakeHost, **data: object) -> None:
    host.add_file("/home/user/.vendor/server.json", json.dumps(data).encode())


def test_local_probe_reads_pid_and_endpoint(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("linux", live_pids=[4242])
    runtime(host, pid=4242, http="http://127.0.0.1:1/ignored?x=1", token=TOKEN)
    probe = probe_local(live_app())
    assert (probe.running.state, probe.endpoint.state) == ("present", "present")
    assert probe.endpoint.value == "http://127.0.0.1:1/mcp"
    with pytest.raises(TypeError):
        bool(probe)


def test_endpoint_rereads_the_file_every_call_and_hides_the_token(
    hermes_fake_host: MakeHost,
) -> None:
    host = hermes_fake_host("linux", live_pids=[7])
    runtime(host, pid=7, http="http://localhost:8080/x", token=TOKEN)
    first = endpoint(live_app())
    assert first is not None and first.url == "http://localhost:8080/mcp"
    assert first.token == TOKEN
    assert TOKEN not in repr(first) and TOKEN not in str(first.as_dict())
    session = read_session(live_app())
    assert session is not None and TOKEN not in repr(session)
    runtime(host, pid=7, http="http://[::1]:9090/", token=TOKEN)
    second = endpoint(live_app())
    assert second is not None and second.url == "http://[::1]:9090/mcp"


def test_no_runtime_file(hermes_fake_host: MakeHost) -> None:
    hermes_fake_host("linux")
    probe = probe_local(live_app())
    assert probe.running.state == "absent"
    assert probe.running.detail == "runtime file missing or unreadable"
    assert endpoint(live_app()) is None


def test_dead_pid_has_no_endpoint(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("linux")
    runtime(host, pid=999, http="http://127.0.0.1:5/")
    assert probe_local(live_app()).running.state == "absent"
    assert endpoint(live_app()) is None


@pytest.mark.parametrize("pid", [2**31, True, "1234", 0, -1, 1.5, None])
def test_pathological_pids(hermes_fake_host: MakeHost, pid: object) -> None:
    host = hermes_fake_host("linux", live_pids=[1, 1234])
    runtime(host, pid=pid, http="http://127.0.0.1:5/")
    probe = probe_local(live_app())
    assert probe.running.state == "unavailable"
    assert endpoint(live_app()) is None


@pytest.mark.parametrize(
    ("url", "detail"),
    [
        ("", "no url in runtime file"),
        ("http://[::1", "malformed endpoint"),
        ("https://127.0.0.1:5/", "endpoint must be plain http without userinfo"),
        ("http://user:pw@127.0.0.1:5/", "endpoint must be plain http without userinfo"),
        ("http://example.com:5/", "endpoint must be loopback"),
        ("http://10.0.0.1:5/", "endpoint must be loopback"),
        ("http://127.0.0.1/", "endpoint needs a numeric port"),
        ("http://127.0.0.1:99999/", "malformed endpoint"),
        ("http://127.0.0.1:0/", "endpoint needs a numeric port"),
    ],
)
def test_only_plain_loopback_http_is_accepted(url: str, detail: str) -> None:
    result = compose_endpoint(url, "/mcp")
    assert (result.state, result.detail) == ("unavailable", detail)


@pytest.mark.parametrize(
    "path", ["//evil.example/x", "/a/../../b", "/mcp?x=1", "/mcp#f", "@evil/x"]
)
def test_hostile_endpoint_paths_never_move_the_host(path: str) -> None:
    result = compose_endpoint("http://127.0.0.1:8080", path)
    if result.state == "present":
        assert result.value is not None and result.value.startswith("http://127.0.0.1:8080/")
    else:
        assert result.detail == "endpoint path must stay on loopback"


def test_no_public_result_has_a_token_field(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("linux", live_pids=[7])
    runtime(host, pid=7, http="http://127.0.0.1:5/", token=TOKEN)
    probe = probe_local(live_app())
    assert TOKEN not in repr(probe) and TOKEN not in json.dumps(asdict(probe))
