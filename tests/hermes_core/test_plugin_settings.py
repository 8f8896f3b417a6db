"""Plugin settings models: checked when ``config.yaml`` is read, secrets masked, end to end.

A real plugin distribution (``support.dists``) registers a Unix-socket transport (built on
``open_byte_stream``) and an auth provider for local servers, each with a pydantic settings
model.  The real CLI reads a ``config.yaml`` that uses them: errors name the file, the line and
a did-you-mean both when the plugins are loaded and when ``mcp list`` checks against its record
of them; ``mcp list`` shows the socket path and masks only the secret field; ``mcp call``
reaches a real server through the socket.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel, Field, SecretStr

from hermes_core.config.kinds import BUILTIN_KINDS, ServerKinds, settings_of
from hermes_core.config.loader import load_config
from hermes_core.config.models import ConfigError
from hermes_core.config.plugin_settings import SettingsShape
from support.dists import hermes_with, install

pytestmark = [pytest.mark.process, pytest.mark.cli]

SERVER = Path(__file__).parents[1] / "servers" / "unix_socket_server.py"

PLUGIN = """
from contextlib import asynccontextmanager

import anyio
from pydantic import BaseModel, Field, SecretStr

from hermes_core.host.transports import open_byte_stream
from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import AuthProviderSpec, TransportSpec


class SocketSettings(BaseModel, extra="forbid"):
    path: str
    retries: int = 0


class TokenSettings(BaseModel, extra="forbid"):
    token: SecretStr
    account: str = Field(min_length=2)


@asynccontextmanager
async def _connect(spec, errlog):
    settings = SocketSettings.model_validate({"path": spec.options["socket"]})
    with anyio.fail_after(spec.connect_timeout):
        stream = await anyio.connect_unix(settings.path)
    async with open_byte_stream(stream, spec, errlog) as streams:
        yield streams


def _create(context):
    return {"ACME_ACCOUNT": TokenSettings.model_validate(context.settings).account}


@hookimpl
def transport():
    return [TransportSpec("unix_socket", "socket", "MCP over a Unix socket",
                          connect=_connect, settings=SocketSettings)]


@hookimpl
def auth_provider():
    return [AuthProviderSpec("acme_token", "a token for local Acme servers",
                             create=_create, stdio=True, settings=TokenSettings)]
"""


@pytest.fixture
def site(tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    install(folder, "acme-socket-hermes", "acme_socket_hermes", "acme-socket", PLUGIN)
    return folder


@pytest.fixture
def socket_path(tmp_path: Path) -> Iterator[str]:
    path = str(tmp_path / "mcp.sock")
    child = subprocess.Popen([sys.executable, str(SERVER), path], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "listening\n"
        yield path
    finally:
        child.kill()
        child.wait()
        if child.stdout is not None:
            child.stdout.close()


def _listed(site: Path, home: Path, config: str) -> subprocess.CompletedProcess[str]:
    (home / "config.yaml").write_text(config)
    return hermes_with(site, "mcp", "list", HERMES_HOME=str(home))


GOOD = """\
mcp_servers:
  acme:
    socket: {path}
    auth: acme_token
    acme_token:
      token: ${{ACME_TOKEN}}
      account: blue
"""


@pytest.mark.parametrize("recorded", [False, True], ids=["plugins-loaded", "from-the-record"])
def test_settings_are_checked_when_config_yaml_is_read(
    site: Path, tmp_path: Path, recorded: bool
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    if recorded:  # a first run loads the plugins and records their settings' shapes
        first = _listed(site, home, GOOD.format(path="/run/acme.sock"))
        assert first.returncode == 0, first.stderr
        assert (home / "cache" / "plugin-config-keys.json").exists()
    missing = _listed(
        site, home, "mcp_servers:\n  acme:\n    socket: /run/a.sock\n    auth: acme_token\n"
    )
    assert missing.returncode == 2
    assert (
        "config.yaml:4: mcp_servers.acme.auth: auth: acme_token needs its settings under "
        "'acme_token:' (required: token, account)" in missing.stderr
    ), missing.stderr
    typo = _listed(
        site,
        home,
        "mcp_servers:\n  acme:\n    socket: /run/a.sock\n    auth: acme_token\n"
        "    acme_token:\n      token: x\n      acount: blue\n",
    )
    assert typo.returncode == 2
    assert (
        "config.yaml:7: mcp_servers.acme.acme_token.acount: unknown setting (did you mean "
        "'account'?)" in typo.stderr
    ), typo.stderr
    kind = _listed(site, home, "mcp_servers:\n  acme:\n    socket: [not, a, path]\n")
    assert kind.returncode == 2
    assert "config.yaml:3: mcp_servers.acme.socket:" in kind.stderr, kind.stderr
    assert "settings of transport unix_socket" in kind.stderr
    assert "Traceback" not in missing.stderr + typo.stderr + kind.stderr


def test_mcp_list_shows_what_is_not_secret(site: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        "mcp_servers:\n  acme:\n    socket:\n      path: /run/acme.sock\n      retries: 2\n"
        "    auth: acme_token\n    acme_token: {token: s3cr3t-value, account: blue}\n"
    )
    for _ in range(2):  # plugins loaded, then the record of them
        listed = hermes_with(site, "mcp", "list", HERMES_HOME=str(home))
        assert listed.returncode == 0, listed.stderr
        assert "acme  [unix_socket]  socket: {path: /run/acme.sock, retries: 2}" in listed.stdout
        assert "s3cr3t-value" not in listed.stdout + listed.stderr


def test_a_tool_is_called_through_the_socket_transport(
    site: Path, tmp_path: Path, socket_path: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(GOOD.format(path=socket_path))
    (home / ".env").write_text("ACME_TOKEN=t0ken\n")
    (home / ".env").chmod(0o600)
    listed = hermes_with(site, "mcp", "list", HERMES_HOME=str(home))
    assert f"acme  [unix_socket]  socket: {socket_path}" in listed.stdout, listed.stderr
    called = hermes_with(
        site,
        "mcp",
        "call",
        "--json",
        "mcp_acme_echo",
        "--args",
        '{"text": "via the socket"}',
        HERMES_HOME=str(home),
    )
    assert called.returncode == 0, called.stderr
    assert "via the socket" in called.stdout


class _Model(BaseModel):
    path: str
    token: SecretStr
    hidden: str = Field(default="", json_schema_extra={"secret": True})
    count: int | None = None


def test_a_shape_survives_its_record_and_checks_kinds_without_the_model() -> None:
    shape = SettingsShape.of_model(_Model)
    assert [(f.name, f.required, f.secret) for f in shape.fields] == [
        ("path", True, False),
        ("token", True, True),
        ("hidden", False, True),
        ("count", False, False),
    ]
    again = SettingsShape.from_record(shape.record())
    assert again == shape and again.model is None
    assert again.shown() == {"path", "count"}
    assert again.problem({"path": "p", "token": "t", "count": "many"}) == (
        ("count",),
        "must be a whole number",
    )
    assert again.problem({"path": "p", "token": "t", "count": "${N}"}) is None
    assert again.problem({"path": "p", "token": "t", "count": True}) is not None
    assert shape.problem({"path": "p", "token": "t", "count": "x"}) is not None


def test_the_loader_places_a_model_error_at_its_line(tmp_path: Path) -> None:
    from hermes_core.plugins.types import AuthProviderSpec

    spec = AuthProviderSpec("acme_token", create=lambda c: None, settings=_Model)
    kinds = ServerKinds(
        BUILTIN_KINDS.transports,
        (*BUILTIN_KINDS.auth, "acme_token"),
        settings=settings_of({}, {"acme_token": spec}),
    )
    path = tmp_path / "config.yaml"
    path.write_text(
        "mcp_servers:\n  s:\n    url: https://x.example/mcp\n    auth: acme_token\n"
        "    acme_token:\n      path: p\n      token: t\n      count: lots\n"
    )
    with pytest.raises(ConfigError) as raised:
        load_config(path, kinds=kinds)
    assert "config.yaml:8: mcp_servers.s.acme_token.count:" in str(raised.value)


SAMPLING_PLUGIN = """
from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import SamplingProvider
from hermes_core.sampling.backend import Completion, ModelInfo, TextPart
from pydantic import BaseModel, SecretStr


class GreeterSettings(BaseModel, extra="forbid"):
    greeting: str
    api_key: SecretStr


async def _complete(request):
    settings = request.settings
    assert settings.api_key.get_secret_value() == "k-1"
    said = "".join(p.text for m in request.messages for p in m.parts if isinstance(p, TextPart))
    return Completion(text=f"{settings.greeting}: {said}", model="greet-1")


@hookimpl
def sampling_provider():
    return [SamplingProvider("greeter", models=lambda: [ModelInfo("greet-1")],
                             complete=_complete, settings=GreeterSettings)]
"""

SAMPLING_CONFIG = """\
sampling:
  backend: greeter
  model: greet-1
sampling_backends:
  greeter:
    greeting: ${{GREETING}}
    api_key: k-1
mcp_servers:
  sampler:
    command: {python}
    args: [{server}]
"""


def test_a_sampling_backend_gets_its_settings_from_config_yaml(tmp_path: Path) -> None:
    site, home = tmp_path / "site", tmp_path / "home"
    site.mkdir()
    home.mkdir()
    install(site, "greeter-hermes", "greeter_hermes", "greeter", SAMPLING_PLUGIN)
    server = Path(__file__).parents[1] / "servers" / "sampling_server.py"
    config = SAMPLING_CONFIG.format(python=sys.executable, server=server)
    (home / "config.yaml").write_text(config)
    env = {"HERMES_HOME": str(home), "GREETING": "Hello from config"}
    called = hermes_with(
        site, "mcp", "call", "--json", "mcp_sampler_ask", "--args", '{"prompt": "hi"}', **env
    )
    assert called.returncode == 0, called.stderr
    outcome = json.loads(json.loads(called.stdout)["content"][0]["text"])
    assert outcome["text"] == "Hello from config: hi", outcome

    for _ in range(2):  # plugins loaded, then mcp list's record of them
        (home / "config.yaml").write_text(config.replace("  greeter:\n", "  greetr:\n"))
        typo = hermes_with(site, "mcp", "list", **env)
        assert typo.returncode == 2
        assert (
            "config.yaml:5: sampling_backends.greetr: no sampling backend named 'greetr' "
            "(did you mean 'greeter'? registered: greeter" in typo.stderr
        ), typo.stderr
        (home / "config.yaml").write_text(config.replace("    greeting:", "    greting:"))
        key = hermes_with(site, "mcp", "list", **env)
        assert key.returncode == 2
        assert (
            "config.yaml:6: sampling_backends.greeter.greting: unknown setting (did you "
            "mean 'greeting'?)" in key.stderr
        ), key.stderr
