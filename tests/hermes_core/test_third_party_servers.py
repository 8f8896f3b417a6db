"""Real third-party MCP servers, as users install them: what the raw SDK sees, the user sees.

The servers are installed by the test command (noxfile.py's ``tests`` session): the npm
``@modelcontextprotocol/server-memory``, PyPI's ``mcp-server-time`` and ``mcp-server-git``
and a server written with ``fastmcp`` (tests/servers/fastmcp_server.py), the Python ones
pinned in tests/servers/python-servers.txt and run from their own virtual environment.  The
fastmcp server is reached over stdio and over Streamable HTTP.

Every test asks the raw ``mcp`` SDK client in the same test and compares: a host that drops or
changes a name, a description, an input schema, a title, an annotation, an output schema or
the ``execution`` block (in ``hermes mcp tools --json`` or in the embedding API), or that
loses a result's ``structuredContent`` on the way through ``hermes mcp call``, fails here.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from hermes_core.host.host import HostServer, MCPHost
from servers.net import PORT, http_server
from servers.reference import MEMORY, node, python_server
from support.cli import run_hermes

pytestmark = [
    pytest.mark.process,
    pytest.mark.node,
    pytest.mark.cli,
    pytest.mark.network,
    pytest.mark.slow,
]

FASTMCP_SERVER = Path(__file__).parents[1] / "servers" / "fastmcp_server.py"
#: What ``hermes mcp tools --json`` shows of each tool, next to what the SDK's listing holds.
FIELDS = ("description", "input_schema", "title", "annotations", "output_schema", "execution")


@dataclass(frozen=True)
class Peer:
    """One third-party server, as a stdio command or a URL."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    url: str | None = None

    def host_server(self) -> HostServer:
        if self.url is not None:
            return HostServer(self.name, url=self.url, transport="streamable_http")
        return HostServer(self.name, command=self.command, args=list(self.args), env=self.env)

    def yaml(self) -> str:
        if self.url is not None:
            return f"  {self.name}:\n    url: {self.url}\n"
        text = f"  {self.name}:\n    command: {json.dumps(self.command)}\n"
        text += f"    args: {json.dumps(list(self.args))}\n"
        if self.env:
            text += f"    env: {json.dumps(self.env)}\n"
        return text


CALLS = [
    (
        "time",
        "convert_time",
        {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
    ),
    ("git", "git_status", {"repo_path": "{repo}"}),
    ("git", "git_log", {"repo_path": "{repo}", "max_count": 1}),
    ("git", "git_diff_unstaged", {"repo_path": "{repo}"}),
    ("fast", "stock", {"sku": "ABC-12", "include_empty": True}),
    ("fast", "note", {"text": "hi"}),
    ("fasthttp", "stock", {"sku": "XYZ-7"}),
    ("fasthttp", "reserve", {"sku": "XYZ-7", "quantity": 3}),
]


def _arguments(arguments: dict[str, Any], repo: Path) -> dict[str, Any]:
    return {k: str(repo) if v == "{repo}" else v for k, v in arguments.items()}


# --------------------------------------------------------------------------- the raw SDK


async def _sdk(peer: Peer, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    """The raw SDK client: the tool listing, and the results of *calls*, as JSON."""
    from mcp import ClientSession, StdioServerParameters

    async def run(session: Any) -> tuple[Any, list[Any]]:
        await session.initialize()
        listed = await session.list_tools()
        tools = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]
        results = []
        for tool, arguments in calls:
            result = await session.call_tool(tool, arguments)
            results.append(result.model_dump(mode="json", by_alias=True, exclude_none=True))
        return tools, results

    if peer.url is not None:
        from mcp.client.streamable_http import streamable_http_client

        async with (
            streamable_http_client(peer.url) as (read, write),
            ClientSession(read, write) as session,
        ):
            return await run(session)
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=str(peer.command), args=list(peer.args), env={**os.environ, **peer.env}
    )
    with open(os.devnull, "w") as quiet:
        async with (
            stdio_client(params, errlog=quiet) as (read, write),
            ClientSession(read, write) as session,
        ):
            return await run(session)


def sdk_call(peer: Peer, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    _, (result,) = asyncio.run(_sdk(peer, [(tool, arguments)]))
    return dict(result)


def expected(tool: dict[str, Any]) -> dict[str, Any]:
    """What Hermes must show of one tool of the SDK's listing."""
    annotations = tool.get("annotations")
    return {
        "description": tool.get("description", ""),
        "input_schema": tool["inputSchema"],
        # The title, else the annotations' title (the spec's order of precedence).
        "title": tool.get("title") or (annotations or {}).get("title"),
        "annotations": annotations,
        "output_schema": tool.get("outputSchema"),
        "execution": tool.get("execution"),
    }


def shown(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: entry[key] for key in FIELDS}


# --------------------------------------------------------------------------- the peers


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository with one commit (for mcp-server-git)."""
    folder = tmp_path_factory.mktemp("repo")
    git = ["git", "-C", str(folder), "-c", "user.name=Ada", "-c", "user.email=ada@example.org"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True)
    (folder / "README.md").write_text("# hello\n")
    subprocess.run([*git, "add", "README.md"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "First words"], check=True)
    (folder / "README.md").write_text("# hello, world\n")
    return folder


@pytest.fixture(scope="module")
def fastmcp_url() -> Iterator[str]:
    """The fastmcp server over Streamable HTTP, on a free port of 127.0.0.1."""
    with http_server([python_server("python"), str(FASTMCP_SERVER), "http", PORT]) as url:
        yield url


@pytest.fixture(scope="module")
def peers(
    tmp_path_factory: pytest.TempPathFactory, repo: Path, fastmcp_url: str
) -> dict[str, Peer]:
    memory_file = tmp_path_factory.mktemp("memory") / "memory.jsonl"
    assert MEMORY.exists(), "run `nox -s tests` to install the npm reference servers"
    return {
        "memory": Peer("memory", node(), (str(MEMORY),), {"MEMORY_FILE_PATH": str(memory_file)}),
        "time": Peer("time", python_server("mcp-server-time"), ("--local-timezone", "UTC")),
        "git": Peer("git", python_server("mcp-server-git"), ("--repository", str(repo))),
        "fast": Peer("fast", python_server("python"), (str(FASTMCP_SERVER),)),
        "fasthttp": Peer("fasthttp", url=fastmcp_url),
    }


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, peers: dict[str, Peer]) -> Path:
    folder = tmp_path_factory.mktemp("hermes-home")
    (folder / "config.yaml").write_text(
        "mcp_servers:\n" + "".join(peer.yaml() for peer in peers.values())
    )
    return folder


def hermes(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_hermes(*args, env={"HERMES_HOME": str(home)}, timeout=180)


NAMES = ["memory", "time", "git", "fast", "fasthttp"]


@dataclass
class Seen:
    """What the raw SDK client saw of one server: its tools, and the results of its CALLS."""

    tools: dict[str, dict[str, Any]]
    results: dict[str, dict[str, Any]]


@pytest.fixture(scope="module")
def sdk(peers: dict[str, Peer], repo: Path) -> dict[str, Seen]:
    """One raw SDK session per server (listing, then every call of CALLS for it)."""
    seen = {}
    for name, peer in peers.items():
        calls = [(tool, _arguments(args, repo)) for n, tool, args in CALLS if n == name]
        tools, results = asyncio.run(_sdk(peer, calls))
        seen[name] = Seen(
            {tool["name"]: tool for tool in tools},
            {tool: result for (tool, _), result in zip(calls, results, strict=True)},
        )
    return seen


# --------------------------------------------------------------------------- listings


@pytest.mark.parametrize("name", NAMES)
def test_the_tool_list_is_what_the_raw_sdk_lists(
    name: str, peers: dict[str, Peer], sdk: dict[str, Seen], home: Path
) -> None:
    peer = peers[name]
    raw = sdk[name].tools
    assert raw, f"{name} listed no tools"

    async def embedded() -> dict[str, dict[str, Any]]:
        async with MCPHost([peer.host_server()]) as host:
            status = host.status()[0]
            assert status.last_error is None, status.last_error
            return {t.tool: t.__dict__ for t in host.tools() if not t.utility}

    through_api = asyncio.run(embedded())
    listed = hermes(home, "mcp", "tools", name, "--json")
    assert listed.returncode == 0, listed.stderr
    through_cli = {t["tool"]: t for t in json.loads(listed.stdout) if not t["utility"]}

    assert sorted(through_api) == sorted(raw)
    assert sorted(through_cli) == sorted(raw)
    for tool, sent in raw.items():
        assert shown(through_api[tool]) == expected(sent), tool
        assert shown(through_cli[tool]) == expected(sent), tool
        assert through_cli[tool]["name"] == f"mcp_{name}_{tool}"
        read_only = bool((sent.get("annotations") or {}).get("readOnlyHint"))
        assert through_cli[tool]["read_only"] is read_only, tool


def test_the_servers_send_what_the_comparison_is_about(sdk: dict[str, Seen]) -> None:
    """The listings compared above really carry titles, annotations, output schemas and
    ``execution`` (else the comparison would prove little)."""
    memory, time, git = (sdk[n].tools for n in ("memory", "time", "git"))
    fast = sdk["fasthttp"].tools
    assert memory["read_graph"]["title"] == "Read Graph"
    assert memory["read_graph"]["execution"] == {"taskSupport": "forbidden"}
    assert "outputSchema" in memory["read_graph"]
    assert "outputSchema" in time["get_current_time"]
    assert git["git_status"]["annotations"]["readOnlyHint"] is True
    assert git["git_reset"]["annotations"]["destructiveHint"] is True
    assert fast["stock"]["title"] == "Look up stock"
    assert fast["stock"]["inputSchema"]["properties"]["sku"]["pattern"] == r"^[A-Z]{3}-\d+$"
    assert fast["reserve"]["inputSchema"]["properties"]["quantity"]["maximum"] == 100
    assert fast["stock"]["outputSchema"]["required"] == ["sku", "count", "warehouses"]


# --------------------------------------------------------------------------- calls


@pytest.mark.parametrize(("name", "tool", "arguments"), CALLS)
def test_a_call_through_the_cli_returns_what_the_server_sent(
    name: str,
    tool: str,
    arguments: dict[str, Any],
    sdk: dict[str, Seen],
    home: Path,
    repo: Path,
) -> None:
    arguments = _arguments(arguments, repo)
    sent = sdk[name].results[tool]
    called = hermes(
        home, "mcp", "call", "--json", f"mcp_{name}_{tool}", "--args", json.dumps(arguments)
    )
    assert called.returncode == 0, called.stderr
    result = json.loads(called.stdout)
    assert not sent.get("isError") and not result.get("isError"), (sent, result)
    assert result["content"] == sent["content"]
    assert result.get("structuredContent") == sent.get("structuredContent")


def test_structured_results_arrive_as_the_servers_built_them(
    peers: dict[str, Peer], home: Path, repo: Path
) -> None:
    """Not only equal to the SDK's: the values the servers are known to produce."""
    called = hermes(
        home, "mcp", "call", "--json", "mcp_fasthttp_stock", "--args", '{"sku": "ABC-12"}'
    )
    assert json.loads(called.stdout)["structuredContent"] == {
        "sku": "ABC-12",
        "count": 12,
        "warehouses": ["north", "south"],
    }
    args = {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
    called = hermes(
        home, "mcp", "call", "--json", "mcp_time_convert_time", "--args", json.dumps(args)
    )
    converted = json.loads(called.stdout)["structuredContent"]
    assert converted["source"]["timezone"] == "UTC"
    assert converted["target"]["timezone"] == "Asia/Tokyo"
    assert converted["target"]["datetime"].split("T")[1].startswith("21:00")


def test_memory_keeps_what_a_call_stored_and_the_host_api_reads_it(
    peers: dict[str, Peer], home: Path
) -> None:
    """server-memory through both ways in: the CLI stores, the embedding API reads back the
    structured graph, equal to what the raw SDK reads."""
    entity = {"name": "Hermes", "entityType": "project", "observations": ["hosts MCP servers"]}
    stored = hermes(
        home,
        "mcp",
        "call",
        "--json",
        "mcp_memory_create_entities",
        "--args",
        json.dumps({"entities": [entity]}),
    )
    assert stored.returncode == 0, stored.stderr

    async def read() -> dict[str, Any]:
        async with MCPHost([peers["memory"].host_server()]) as host:
            return await host.call_tool("mcp_memory_read_graph", {})

    graph = asyncio.run(read())
    assert not graph.get("isError"), graph
    assert entity in graph["structuredContent"]["entities"]
    assert (
        graph["structuredContent"]
        == sdk_call(peers["memory"], "read_graph", {})["structuredContent"]
    )


def test_a_bad_argument_is_the_servers_error_not_a_crash(
    peers: dict[str, Peer], home: Path
) -> None:
    """fastmcp refuses an argument breaking its schema (``quantity`` at most 100): the error
    result reaches the user as the server sent it, exit code 1."""
    arguments = {"sku": "XYZ-7", "quantity": 101}
    sent = sdk_call(peers["fasthttp"], "reserve", arguments)
    assert sent.get("isError") is True
    called = hermes(
        home, "mcp", "call", "--json", "mcp_fasthttp_reserve", "--args", json.dumps(arguments)
    )
    assert called.returncode == 1
    shown_text = called.stdout + called.stderr
    assert "Traceback" not in shown_text
    assert sent["content"][0]["text"].splitlines()[0] in shown_text
