"""A third-party plugin's transport, auth provider and GPU probe, consumed end to end.

The plugin is a distribution written to a temporary folder outside the repository (a
``pyproject.toml`` with a ``hermes.plugins`` entry point, and the installed layout that
``pip install`` would produce: ``*.dist-info`` with ``entry_points.txt`` beside the module,
on the child's ``sys.path``).  Each test writes ``config.yaml`` and runs the real
``hermes`` command; the servers are real (server-everything over stdio and Streamable
HTTP, and an ``mcp`` SDK server that shows the headers it received).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from servers.net import free_port, stop, wait_for_port
from servers.reference import EVERYTHING, node
from support.cli import run_hermes

pytestmark = [
    pytest.mark.process,
    pytest.mark.node,
    pytest.mark.cli,
    pytest.mark.network,
    pytest.mark.slow,
]

SERVERS = Path(__file__).parents[1] / "servers"
TOKEN = "acme-7f3a9c"  # what ${ACME_TOKEN} holds in these tests

PLUGIN = '''
"""acme-hermes: a transport, an auth provider, a GPU probe and an app for Hermes."""

import os
from contextlib import asynccontextmanager

import httpx2

from hermes_core.host.transports import open_stdio
from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import (
    AppDeclaration,
    AuthContext,
    AuthProviderSpec,
    GpuProbe,
    LocationKind,
    MessagingChannel,
    MessagingPlatform,
    SendReceipt,
    TransportSpec,
)


class _Changed:
    """A server spec with some attributes replaced."""

    def __init__(self, spec, **changes):
        self._spec = spec
        self.__dict__.update(changes)

    def __getattr__(self, name):
        return getattr(self._spec, name)


def _mark(what, spec):
    marker = os.environ.get("ACME_MARKER")
    if marker:
        with open(marker, "a") as fh:
            fh.write(f"{what} {spec.name}\\n")


@asynccontextmanager
async def _launch(spec, errlog):
    """`launch: {node: ..., script: ..., tag: ...}`: a node MCP server over stdio, tagged."""
    launch = spec.options["launch"]
    _mark("launcher", spec)
    child = _Changed(
        spec,
        command=launch["node"],
        args=[launch["script"], "stdio"],
        env={**spec.env, "ACME_TAG": str(launch.get("tag", ""))},
    )
    async with open_stdio(child, errlog) as streams:
        yield streams


@asynccontextmanager
async def _env_stdio(spec, errlog):
    """stdio, with ACME_TRANSPORT=env_stdio in the server's environment."""
    _mark("env_stdio", spec)
    child = _Changed(spec, env={**spec.env, "ACME_TRANSPORT": "env_stdio"})
    async with open_stdio(child, errlog) as streams:
        yield streams


class _Token(httpx2.Auth):
    def __init__(self, scheme, token):
        self._value = f"{scheme} {token}"

    def auth_flow(self, request):
        if self._value.endswith(" raise-in-auth-flow"):
            raise RuntimeError("the token store cannot be read")
        request.headers["Authorization"] = self._value
        yield request


def _create(context: AuthContext):
    token = context.settings.get("token") or context.env.get("ACME_TOKEN")
    if not token:
        raise ValueError(f"MCP server '{context.server}': acme_token.token is not set")
    return _Token(context.settings.get("scheme", "Bearer"), token)


def _create_env(context: AuthContext):
    """For local servers: the token as an environment variable of the server's process."""
    assert context.url == ""
    return {context.settings.get("variable", "ACME_SECRET"): context.env["ACME_TOKEN"]}


def _acme_home(ctx, location):
    """`{kind: acme_home, name: X}`: ~/.acme/X/bin/X."""
    return [ctx.join(ctx.expand("~"), ".acme", location.value, "bin", location.value)]


def _egpu(host):
    flag = host.env().get("ACME_EGPU_FLAG")
    return "nvidia" if flag and host.exists(flag) else None


class _Outbox:
    """Messages as files: <folder>/<adapter name>-<chat>.txt."""

    def __init__(self, name, folder):
        self._name, self._folder = name, folder

    def channels(self):
        return [MessagingChannel("inbox", name="Inbox")]

    def send(self, chat_id, text):
        if chat_id != "inbox":
            raise ValueError(f"no chat {chat_id!r}")
        with open(os.path.join(self._folder, f"{self._name}-{chat_id}.txt"), "a") as fh:
            fh.write(text + "\\n")
        return SendReceipt(message_id="1", detail="written")


def _outbox(name, settings):
    return _Outbox(name, settings["folder"])


@hookimpl
def messaging_platform():
    return [MessagingPlatform("acme_outbox", _outbox, "messages as files in a folder")]


@hookimpl
def transport():
    return [
        TransportSpec("launcher", "launch", "a node server, tagged", connect=_launch),
        TransportSpec("env_stdio", "command", "stdio with ACME_TRANSPORT", connect=_env_stdio),
    ]


@hookimpl
def auth_provider():
    return [
        AuthProviderSpec("acme_token", "Acme's API token", create=_create),
        AuthProviderSpec("acme_env", "Acme's token for local servers", create=_create_env,
                         stdio=True),
    ]


@hookimpl
def location_kind():
    return [LocationKind(name="acme_home", os="linux", key="name", presence="executable",
                         locate=_acme_home)]


@hookimpl
def gpu_probe():
    return [GpuProbe("acme-egpu", "linux", _egpu)]


@hookimpl
def declare_app():
    return [AppDeclaration(
        server="acme-render",
        app={"linux": {"presence": "executable",
                       "location": [{"kind": "acme_home", "name": "render"}]}},
        requires={"app": True, "gpu": "nvidia"},
        where="acme_hermes/plugin.yaml",
        display_name="Acme Render",
    )]
'''

PYPROJECT = """
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "acme-hermes"
version = "1.2.0"
dependencies = ["hermes-core"]

[project.entry-points."hermes.plugins"]
acme = "acme_hermes"
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The acme-hermes distribution: its source tree, and its installed layout in a site."""
    source = tmp_path_factory.mktemp("acme-hermes-src")
    (source / "pyproject.toml").write_text(PYPROJECT.lstrip())
    (source / "acme_hermes.py").write_text(PLUGIN.lstrip())
    folder = tmp_path_factory.mktemp("site")
    (folder / "acme_hermes.py").write_text((source / "acme_hermes.py").read_text())
    info = folder / "acme_hermes-1.2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-hermes\nVersion: 1.2.0\n")
    (info / "entry_points.txt").write_text("[hermes.plugins]\nacme = acme_hermes\n")
    (info / "RECORD").write_text("")
    return folder


def write_config(home: Path, body: str) -> Path:
    path = home / "config.yaml"
    path.write_text("# acme servers\n" + textwrap.dedent(body).lstrip())
    return path


def hermes(site: Path, home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    pythonpath = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    return run_hermes(
        *args,
        env={
            "PYTHONPATH": pythonpath,
            "HERMES_HOME": str(home),
            "ACME_TOKEN": TOKEN,
            "ACME_MARKER": str(home / "marker"),
            **env,
        },
        cwd=home,
    )


def markers(home: Path) -> list[str]:
    path = home / "marker"
    return path.read_text().splitlines() if path.exists() else []


def everything_stdio(transport: str = "") -> str:
    line = f"    transport: {transport}\n" if transport else ""
    return f"    command: {node()}\n    args: [{json.dumps(str(EVERYTHING))}, stdio]\n{line}"


# --------------------------------------------------------------------------- servers


def _start(command: list[str], port: int, **env: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        command,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
    except RuntimeError:
        process.kill()
        process.wait(10)
        raise
    return process


@pytest.fixture(scope="module")
def headers_server() -> Iterator[str]:
    """Our SDK server, answering 401 unless ``Authorization: Bearer <TOKEN>`` is sent."""
    port = free_port()
    process = _start(
        [sys.executable, str(SERVERS / "headers_server.py"), str(port)],
        port,
        REQUIRE_AUTHORIZATION=f"Bearer {TOKEN}",
    )
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


@pytest.fixture(scope="module")
def everything_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """server-everything over Streamable HTTP, refusing requests without the bearer token;
    the second item is the file listing the Authorization header of every request it got."""
    log = tmp_path_factory.mktemp("everything-http") / "authorization.log"
    port = free_port()
    process = _start(
        [node(), "-r", str(SERVERS / "require_auth.cjs"), str(EVERYTHING), "streamableHttp"],
        port,
        PORT=str(port),
        HERMES_TEST_REQUIRE_AUTH=f"Bearer {TOKEN}",
        HERMES_TEST_AUTH_LOG=str(log),
    )
    try:
        yield f"http://127.0.0.1:{port}/mcp", log
    finally:
        stop(process)


# --------------------------------------------------------------------------- transport


def test_cli_hook_transport_selected_by_its_config_key(site: Path, home: Path) -> None:
    write_config(
        home,
        f"""
        mcp_servers:
          tagged:
            launch:
              node: {json.dumps(node())}
              script: {json.dumps(str(EVERYTHING))}
              tag: ${{ACME_TAG_SOURCE}}
        """,
    )
    listed = hermes(site, home, "mcp", "list")
    assert listed.returncode == 0, listed.stderr
    assert "tagged  [launcher]  launch: ***" in listed.stdout
    assert listed.stderr == ""  # `launch:` is the transport's key, not an unknown key

    result = hermes(
        site,
        home,
        "mcp",
        "call",
        "--json",
        "mcp_tagged_get_env",
        ACME_TAG_SOURCE="tag-from-the-env",
    )
    assert result.returncode == 0, result.stderr
    env = json.loads(json.loads(result.stdout)["content"][0]["text"])
    assert env["ACME_TAG"] == "tag-from-the-env"  # ${VAR} applied inside the transport's key
    assert markers(home) == ["launcher tagged"]

    status = hermes(site, home, "mcp", "status", "--json", ACME_TAG_SOURCE="x")
    (row,) = json.loads(status.stdout)
    assert (row["transport"], row["connection"]) == ("launcher", "connected")
    assert row["tools"] > 0


def test_cli_hook_transport_selected_by_name_on_every_command(site: Path, home: Path) -> None:
    write_config(home, "mcp_servers:\n  wrapped:\n" + everything_stdio("env_stdio"))
    status = hermes(site, home, "mcp", "status", "--json")
    assert status.returncode == 0, status.stderr
    (row,) = json.loads(status.stdout)
    assert (row["server"], row["transport"], row["connection"]) == (
        "wrapped",
        "env_stdio",
        "connected",
    )
    tools = hermes(site, home, "mcp", "tools", "wrapped")
    assert "mcp_wrapped_get_env" in tools.stdout
    tested = hermes(site, home, "mcp", "test", "wrapped")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    called = hermes(site, home, "mcp", "call", "--json", "mcp_wrapped_get_env")
    env = json.loads(json.loads(called.stdout)["content"][0]["text"])
    assert env["ACME_TRANSPORT"] == "env_stdio"
    # status, tools, test and call: each opened the server through the plugin's transport
    assert markers(home) == ["env_stdio wrapped"] * 4


def test_cli_hook_transport_in_the_probe_of_mcp_add(site: Path, home: Path) -> None:
    result = hermes(
        site,
        home,
        "mcp",
        "add",
        "probed",
        "--command",
        node(),
        "--transport",
        "env_stdio",
        "--args",
        str(EVERYTHING),
        "stdio",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("added 'probed' (")
    assert markers(home) == ["env_stdio probed"]
    assert "transport: env_stdio" in (home / "config.yaml").read_text()


def test_an_unknown_transport_is_a_config_error_listing_the_registered_ones(
    site: Path, home: Path
) -> None:
    path = write_config(home, "mcp_servers:\n  wrapped:\n" + everything_stdio("env_stdoi"))
    for command in (
        ["mcp", "status"],
        ["mcp", "list"],
        ["mcp", "call", "--json", "mcp_wrapped_echo"],
    ):
        result = hermes(site, home, *command)
        assert result.returncode == 2, command
        assert result.stderr == (
            f"error: {path}:6: mcp_servers.wrapped.transport: unknown transport 'env_stdoi' "
            "(did you mean 'env_stdio'?); registered: stdio, streamable_http, sse, launcher, "
            "env_stdio (plugins add more: `hermes plugins list`)\n"
        )
    assert markers(home) == []


def test_without_its_plugin_only_the_server_using_its_transport_fails(
    site: Path, home: Path
) -> None:
    """``--no-plugins`` (or the plugin disabled): the entries naming its transport, or holding
    its key, fail alone with the reason; every other server works, on every command."""
    path = write_config(
        home,
        "mcp_servers:\n  wrapped:\n"
        + everything_stdio("env_stdio")
        + "  plain:\n"
        + everything_stdio()
        + f"  tagged:\n    launch: {{node: {json.dumps(node())}, script: x}}\n",
    )
    reason = (
        f"{path}:6: mcp_servers.wrapped.transport: unknown transport 'env_stdio' (did you mean "
        "'stdio'?); registered: stdio, streamable_http, sse (plugins add more: `hermes plugins "
        "list`)"
    )
    for flags, env in ((["--no-plugins"], {}), ([], {"HERMES_DISABLE_PLUGINS": "acme"})):
        off = "plugins are off (--no-plugins)" if flags else "plugin acme is disabled"
        status = hermes(site, home, *flags, "mcp", "status", "--json", **env)
        rows = {row["server"]: row for row in json.loads(status.stdout)}
        assert rows["plain"]["connection"] == "connected", status.stderr
        assert rows["wrapped"]["connection"] == rows["tagged"]["connection"] == "failed"
        assert rows["wrapped"]["last_error"].startswith(reason + " — " + off)
        assert "mcp_servers.tagged: needs either 'command'" in rows["tagged"]["last_error"]
        assert f"warning: {reason} — {off}" in status.stderr
        # `mcp list` warns and goes on too (it exited 2: issue 27, item 17), twice: the second
        # run prints the record of the first.
        for _ in range(2):
            listed = hermes(site, home, *flags, "mcp", "list", "--json", **env)
            assert listed.returncode == 0, listed.stderr
            assert [row["server"] for row in json.loads(listed.stdout)] == ["plain"]
            assert f"warning: {reason} — {off}" in listed.stderr
        if not flags:
            continue  # the other commands once (the same loading path)

        tools = hermes(site, home, *flags, "mcp", "tools", **env)
        assert "mcp_plain_echo" in tools.stdout
        called = hermes(
            site,
            home,
            *flags,
            "mcp",
            "call",
            "--json",
            "mcp_plain_echo",
            "--args",
            '{"message": "hi"}',
            **env,
        )
        assert called.returncode == 0, called.stderr
        assert json.loads(called.stdout)["content"][0]["text"] == "Echo: hi"
        refused = hermes(site, home, *flags, "mcp", "call", "--json", "mcp_wrapped_echo", **env)
        assert refused.returncode != 0 and "unknown transport 'env_stdio'" in refused.stderr
    assert markers(home) == []  # the plugin's transport never ran

    # A bad value of a key Hermes knows is still the whole file's error (exit 2).
    write_config(home, "mcp_servers:\n  plain:\n" + everything_stdio() + "    trust: maybe\n")
    result = hermes(site, home, "--no-plugins", "mcp", "status")
    assert result.returncode == 2 and "mcp_servers.plain.trust: must be full or untrusted" in (
        result.stderr
    )


# --------------------------------------------------------------------------- auth


def secured(url: str, auth: str = "acme_token", settings: str = "") -> str:
    return f"mcp_servers:\n  secured:\n    url: {url}\n    auth: {auth}\n{settings}"


def test_cli_hook_auth_provider_header_reaches_the_server(
    site: Path, home: Path, headers_server: str
) -> None:
    write_config(
        home,
        secured(
            headers_server,
            settings="    acme_token:\n      token: ${SECURED_TOKEN}\n      scheme: Bearer\n",
        ),
    )
    result = hermes(
        site, home, "mcp", "call", "--json", "mcp_secured_headers_seen", SECURED_TOKEN=TOKEN
    )
    assert result.returncode == 0, result.stdout + result.stderr
    seen = json.loads(result.stdout)["content"][0]["text"].splitlines()
    assert f"authorization: Bearer {TOKEN}" in seen

    status = hermes(site, home, "mcp", "status", "--json", SECURED_TOKEN=TOKEN)
    (row,) = json.loads(status.stdout)
    assert (row["transport"], row["connection"]) == ("streamable_http", "connected")

    wrong = hermes(site, home, "mcp", "status", "--json", SECURED_TOKEN="not-the-token")
    (row,) = json.loads(wrong.stdout)
    assert row["connection"] == "failed" and "401" in row["last_error"]
    assert "not-the-token" not in wrong.stdout + wrong.stderr


def test_cli_hook_auth_provider_with_server_everything_over_http(
    site: Path, home: Path, everything_http: tuple[str, Path]
) -> None:
    url, log = everything_http
    write_config(home, secured(url))  # no settings: the provider reads ACME_TOKEN
    before = len(log.read_text().splitlines()) if log.exists() else 0
    result = hermes(site, home, "mcp", "tools", "secured")
    assert result.returncode == 0, result.stderr
    assert "mcp_secured_echo" in result.stdout
    called = hermes(
        site, home, "mcp", "call", "--json", "mcp_secured_echo", "--args", '{"message": "hi"}'
    )
    assert json.loads(called.stdout)["content"][0]["text"] == "Echo: hi"
    seen = log.read_text().splitlines()[before:]
    assert seen and set(seen) == {f"Bearer {TOKEN}"}  # every request server-everything got


def test_cli_hook_auth_provider_in_the_probe_of_mcp_add(
    site: Path, home: Path, headers_server: str
) -> None:
    result = hermes(
        site, home, "mcp", "add", "probed", "--url", headers_server, "--auth", "acme_token"
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # headers_seen + 5 utilities (list/read resources, resource templates, list/get prompts)
    assert result.stdout.startswith("added 'probed' (1 tool + 5 host tools)")
    assert "auth: acme_token" in (home / "config.yaml").read_text()


@pytest.mark.parametrize(
    ("auth", "hint"),
    [
        ("oath", " (did you mean 'oauth'?)"),
        ("vault_token", " (did you mean 'acme_token'?)"),
    ],
)
def test_an_unknown_auth_provider_is_a_config_error_never_a_connection_without_auth(
    site: Path, home: Path, headers_server: str, auth: str, hint: str
) -> None:
    path = write_config(home, secured(headers_server, auth=auth))
    for command in (["mcp", "status"], ["mcp", "tools"], ["mcp", "list"]):
        result = hermes(site, home, *command)
        assert result.returncode == 2, command
        assert result.stderr == (
            f"error: {path}:5: mcp_servers.secured.auth: unknown auth provider {auth!r}{hint}; "
            "registered: headers, oauth, acme_token, acme_env "
            "(plugins add more: `hermes plugins list`)\n"
        )
    added = hermes(site, home, "mcp", "add", "other", "--url", headers_server, "--auth", auth)
    assert added.returncode == 2
    assert f"mcp_servers.other.auth: unknown auth provider {auth!r}" in added.stderr
    assert "other" not in (home / "config.yaml").read_text()


def test_without_its_plugin_a_server_naming_its_auth_never_connects(
    site: Path, home: Path, everything_http: tuple[str, Path]
) -> None:
    url, log = everything_http
    write_config(home, secured(url) + "  local:\n" + everything_stdio())
    before = log.read_text() if log.exists() else ""
    result = hermes(site, home, "mcp", "status", "--json", HERMES_DISABLE_PLUGINS="acme")
    rows = {row["server"]: row for row in json.loads(result.stdout)}
    assert rows["secured"]["connection"] == "failed"
    assert (
        "mcp_servers.secured.auth: unknown auth provider 'acme_token'"
        in (rows["secured"]["last_error"])
    )
    assert rows["local"]["connection"] == "connected"
    assert (log.read_text() if log.exists() else "") == before  # the server was never contacted
    # Without any plugin disabled, an unregistered name stays the whole file's error.
    write_config(home, secured(url, auth="acme_tokn") + "  local:\n" + everything_stdio())
    assert hermes(site, home, "mcp", "status").returncode == 2


def test_auth_on_a_stdio_server_is_an_error_unless_the_provider_serves_local_servers(
    site: Path, home: Path
) -> None:
    for auth in ("acme_token", "oauth", "headers"):
        path = write_config(
            home, "mcp_servers:\n  local:\n" + everything_stdio() + f"    auth: {auth}\n"
        )
        result = hermes(site, home, "mcp", "status")
        assert result.returncode == 2, auth
        assert result.stderr == (
            f"error: {path}:6: mcp_servers.local.auth: auth: {auth} authorises HTTP requests, "
            "and this server has no url (transport stdio); remove it, or use a provider that "
            "serves local servers (acme_env)\n"
        )
    # acme_env declares stdio=True: its create() gives the process its environment.
    write_config(
        home,
        "mcp_servers:\n  local:\n"
        + everything_stdio()
        + "    auth: acme_env\n    acme_env: {variable: ACME_FROM_AUTH}\n",
    )
    called = hermes(site, home, "mcp", "call", "--json", "mcp_local_get_env")
    assert called.returncode == 0, called.stderr
    env = json.loads(json.loads(called.stdout)["content"][0]["text"])
    assert env["ACME_FROM_AUTH"] == TOKEN


def test_an_auth_provider_that_cannot_be_made_fails_only_its_server(
    site: Path, home: Path, headers_server: str
) -> None:
    write_config(home, secured(headers_server) + "  local:\n" + everything_stdio())
    result = hermes(site, home, "mcp", "status", "--json", ACME_TOKEN="")
    rows = {row["server"]: row for row in json.loads(result.stdout)}
    assert rows["secured"]["connection"] == "failed"
    assert rows["secured"]["last_error"] == "MCP server 'secured': acme_token.token is not set"
    assert rows["local"]["connection"] == "connected"


def test_an_auth_flow_that_raises_fails_only_its_server_with_the_error(
    site: Path, home: Path, headers_server: str
) -> None:
    write_config(home, secured(headers_server) + "  local:\n" + everything_stdio())
    result = hermes(site, home, "mcp", "status", "--json", ACME_TOKEN="raise-in-auth-flow")
    rows = {row["server"]: row for row in json.loads(result.stdout)}
    assert rows["secured"]["connection"] == "failed"
    assert "the token store cannot be read" in rows["secured"]["last_error"], rows["secured"]
    assert rows["local"]["connection"] == "connected"
    assert "Traceback" not in result.stderr


# --------------------------------------------------------------------------- gpu probe


def test_cli_hook_gpu_probe_location_kind_and_declare_app_in_apps_check(
    site: Path, home: Path
) -> None:
    render = home / ".acme" / "render" / "bin" / "render"
    render.parent.mkdir(parents=True)
    render.write_text("#!/bin/sh\n")
    render.chmod(0o755)
    flag = home / "egpu-attached"
    flag.write_text("")
    result = hermes(site, home, "apps", "check", "--json", HOME=str(home), ACME_EGPU_FLAG=str(flag))
    payload = json.loads(result.stdout)
    assert payload["gpu_class"] == "nvidia"  # the plugin's probe; this machine has no GPU
    servers = {s["server"]: s for s in payload["servers"]}
    assert (servers["acme-render"]["state"], servers["acme-render"]["path"]) == (
        "available",
        str(render),
    )
    assert servers["acme-render"]["source"] == "plugin acme, acme-hermes 1.2.0"


# --------------------------------------------------------------------------- messaging


def test_cli_hook_messaging_platform_sends_through_hermes_mcp_serve(site: Path, home: Path) -> None:
    # Hermes serving itself: `hermes mcp call` reaches `hermes mcp serve` (a stdio server of
    # config.yaml), whose `messages_send` goes through the plugin's adapter.
    outbox = home / "outbox"
    outbox.mkdir()
    write_config(
        home,
        f"""
        messaging:
          notes:
            adapter: acme_outbox
            folder: ${{OUTBOX}}
        mcp_servers:
          self:
            command: {json.dumps(sys.executable)}
            args: ["-m", "hermes_core", "mcp", "serve"]
            env:
              PYTHONPATH: ${{PYTHONPATH}}
              HERMES_HOME: ${{HERMES_HOME}}
              OUTBOX: ${{OUTBOX}}
        """,
    )
    channels = hermes(
        site,
        home,
        "mcp",
        "call",
        "--json",
        "mcp_self_channels_list",
        "--args",
        "{}",
        OUTBOX=str(outbox),
    )
    assert channels.returncode == 0, channels.stdout + channels.stderr
    listed = json.loads(channels.stdout)["structuredContent"]["channels"]
    assert [c["target"] for c in listed] == ["notes:inbox"]
    sent = hermes(
        site,
        home,
        "mcp",
        "call",
        "--json",
        "mcp_self_messages_send",
        "--args",
        json.dumps({"target": "notes:inbox", "message": "hello from a plugin"}),
        OUTBOX=str(outbox),
    )
    assert sent.returncode == 0, sent.stdout + sent.stderr
    assert (outbox / "notes-inbox.txt").read_text() == "hello from a plugin\n"
