"""How the administrator's policy recognises what an entry really reaches (round 4 of the
hostile tests): the URL the HTTP client will dial, however it is spelled; the programs that will
really run, found on the child's own PATH, through symbolic links and exec wrappers; and tool
names as given and as registered.  Real policy files, real executables and links in a tmp
folder; the CLI refuses with a sentence naming the rule, and never starts what it refuses."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from hermes_core.config.loader import validate_server
from hermes_core.config.policy import load_policy
from hermes_core.config.policy_match import ServerFacts, server_refusal, tool_refusal
from hermes_core.config.policy_rules import Policy
from hermes_core.host.host import MCPHost
from hermes_core.host.setup.config_source import ConfigSource
from support.cli import run_hermes

SERVER = Path(__file__).resolve().parents[1] / "servers" / "shifting_server.py"
PYTHON = os.path.realpath(sys.executable)
ENV_PROGRAM = os.path.realpath("/usr/bin/env")


def _policy(tmp_path: Path, text: str) -> Policy:
    path = tmp_path / "policy.yaml"
    path.write_text(text)
    policy = load_policy({"HERMES_POLICY": str(path)})
    assert policy is not None
    return policy


def _program(folder: Path, name: str, mark: Path) -> Path:
    """An executable that leaves *mark* behind when it runs (so a test sees it never did)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\necho {name} >> '{mark}'\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def bins(tmp_path: Path) -> dict[str, Path]:
    """``evil/evil-server``, ``evil/python3`` (a same-named program), ``links/allowed`` (a link
    to the evil server), ``safe/ok-server``; every run leaves a line in ``ran``."""
    mark = tmp_path / "ran"
    evil = _program(tmp_path / "evil", "evil-server", mark)
    _program(tmp_path / "evil", "python3", mark)
    _program(tmp_path / "safe", "ok-server", mark)
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "allowed").symlink_to(evil)
    return {
        "root": tmp_path,
        "evil": tmp_path / "evil",
        "safe": tmp_path / "safe",
        "links": tmp_path / "links",
        "mark": mark,
    }


# -- URLs: the host and path the client will dial ------------------------------------------------
DENY_URLS = (
    "deny:\n  servers:\n"
    "    - url: {host: 127.0.0.1}\n"
    "    - url: {host: localhost}\n"
    "    - url: {path: '/admin*'}\n"
    "    - url: 'http://*.internal.example/*'\n"
)


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("http://127。0。0。1:8080/mcp", "deny.servers[0]"),  # ideographic full stops (IDNA)
        ("http://127．0．0．1/mcp", "deny.servers[0]"),  # fullwidth full stops
        ("http://user:pw@127.0.0.1/mcp", "deny.servers[0]"),  # credentials before the host
        ("http://ok.example@127.0.0.1/mcp", "deny.servers[0]"),
        ("http://127.1/mcp", "deny.servers[0]"),  # spellings the resolver reads as 127.0.0.1
        ("http://2130706433/mcp", "deny.servers[0]"),
        ("http://0x7f.0.0.1/mcp", "deny.servers[0]"),
        ("http://127.0.0.1./mcp", "deny.servers[0]"),
        ("http://[::ffff:127.0.0.1]/mcp", "deny.servers[0]"),  # IPv4-mapped IPv6
        ("HTTP://LOCALHOST./mcp", "deny.servers[1]"),  # case and a trailing dot
        ("https://host:443/a/../admin", "deny.servers[2]"),  # dot segments
        ("https://host/a/%2e%2e/admin", "deny.servers[2]"),  # encoded dot segments
        ("https://host/%2E%2e/%61dmin/x", "deny.servers[2]"),
        ("https://host/mcp/..%2f..%2fadmin", "deny.servers[2]"),  # an encoded slash as well
        ("http://API.Internal.Example:80/mcp", "deny.servers[3]"),  # the default port
    ],
)
def test_url_rules_see_the_host_and_path_the_client_dials(
    tmp_path: Path, url: str, rule: str
) -> None:
    policy = _policy(tmp_path, DENY_URLS)
    refused = server_refusal(policy, ServerFacts("web", url=url))
    assert refused is not None and f"denied by the policy rule {rule}" in refused


def test_urls_no_rule_names_still_pass(tmp_path: Path) -> None:
    policy = _policy(tmp_path, DENY_URLS)
    for url in ("https://ok.example/mcp", "http://127.0.0.2/mcp", "https://host/a/admin"):
        assert server_refusal(policy, ServerFacts("web", url=url)) is None, url


def test_an_allow_list_sees_every_reading_of_the_path(tmp_path: Path) -> None:
    policy = _policy(
        tmp_path,
        "allow:\n  servers:\n    - url: 'https://tools.corp.example/mcp/*'\n"
        "    - url: 'HTTPS://Docs.Corp.Example.:443/*'\n",  # a glob is read the same way
    )

    def refused(url: str) -> str | None:
        return server_refusal(policy, ServerFacts("web", url=url))

    assert refused("https://tools.corp.example/mcp/search") is None
    assert refused("HTTPS://Tools.Corp.Example.:443/mcp/search") is None
    assert refused("https://me@tools.corp.example/mcp/search") is None
    assert refused("https://docs.corp.example/any") is None
    for url in (
        "https://tools.corp.example/mcp/../admin",
        "https://tools.corp.example/mcp/%2e%2e/admin",
        "https://tools.corp.example/mcp/a%2f..%2f..%2fadmin",  # the server may decode %2f
        "https://tools.corp.example@evil.example/mcp/x",
        "https://tools.corp.example.evil.example/mcp/x",
    ):
        assert "not allowed by the policy" in str(refused(url)), url


@pytest.mark.parametrize(
    "url", ["http://ｅｖｉｌ.example/mcp", "http://[::1/mcp", "http:///mcp", "ftp://host/mcp"]
)
def test_a_url_the_client_cannot_dial_is_refused_not_allowed(tmp_path: Path, url: str) -> None:
    policy = _policy(tmp_path, "deny:\n  servers:\n    - url: {host: evil.example}\n")
    refused = server_refusal(policy, ServerFacts("web", url=url))
    assert refused is not None and refused.startswith("its URL cannot be judged")


# -- commands: the programs that will really run -------------------------------------------------
def _facts(bins: dict[str, Path], command: str, *args: str, **env: str) -> ServerFacts:
    path = {"PATH": f"{bins['safe']}:{bins['evil']}:/usr/bin:/bin", **env}
    return ServerFacts("srv", command=command, args=args, env=path, cwd=str(bins["root"]))


@pytest.mark.parametrize(
    "argv",
    [
        ["evil-server"],
        ["env", "FOO=1", "evil-server"],
        ["env", "-i", "PATH={evil}", "evil-server", "--x"],
        ["env", "-u", "HOME", "--chdir=/", "-S", "evil-server --flag"],
        ["sh", "-c", "evil-server --x"],
        ["bash", "-ec", "FOO=1 exec evil-server 'a b'"],
        ["bash", "-c", "FOO=bar evil-server"],
        ["nohup", "timeout", "5", "nice", "-n", "5", "evil-server"],
        ["env", "sh", "-c", "env evil-server"],
        ["{links}/allowed"],  # a link named "allowed" to the denied program
        ["./evil/evil-server"],  # relative to the entry's cwd
    ],
)
def test_a_deny_rule_sees_through_wrappers_links_and_paths(
    bins: dict[str, Path], argv: list[str]
) -> None:
    policy = _policy(bins["root"], "deny:\n  servers:\n    - command: evil-server\n")
    words = [w.format(evil=bins["evil"], links=bins["links"]) for w in argv]
    refused = server_refusal(policy, _facts(bins, *words))
    assert refused is not None
    assert "denied by the policy rule deny.servers[0]" in refused
    assert "(command: evil-server)" in refused and str(bins["evil"]) in refused


def test_the_entry_path_decides_which_program_runs(bins: dict[str, Path]) -> None:
    # A same-named program first on the entry's own PATH is what the child runs.
    policy = _policy(bins["root"], f"deny:\n  servers:\n    - path: '{bins['evil']}/*'\n")
    facts = ServerFacts("srv", command="python3", env={"PATH": f"{bins['evil']}:/usr/bin"})
    refused = server_refusal(policy, facts)
    assert refused is not None and f"'python3' is {bins['evil']}/python3" in refused
    assert server_refusal(policy, ServerFacts("srv", command="python3")) is None
    # `env -i PATH=…`, `env PATH=…` and a shell's `PATH=… cmd` move the search too.
    for argv in (
        ["env", "-i", f"PATH={bins['evil']}", "python3"],
        ["env", f"PATH={bins['evil']}", "python3"],
        ["sh", "-c", f"PATH={bins['evil']} python3"],
    ):
        assert "deny.servers[0]" in str(server_refusal(policy, _facts(bins, *argv))), argv


def test_an_allow_list_judges_every_program_by_what_really_runs(bins: dict[str, Path]) -> None:
    policy = _policy(
        bins["root"],
        "allow:\n  servers:\n"
        f"    - path: '{bins['safe']}/*'\n"
        f"    - path: {PYTHON}\n"
        f"    - path: {ENV_PROGRAM}\n"
        "    - command: allowed\n",
    )

    def refused(*argv: str, **env: str) -> str | None:
        return server_refusal(policy, _facts(bins, *argv, **env))

    assert refused("ok-server") is None
    assert refused("env", "FOO=1", "ok-server") is None  # env is allowed, and so is its target
    assert refused(sys.executable, str(SERVER)) is None
    # "allowed" by name, but the link's target is what runs.
    link = refused(str(bins["links"] / "allowed"))
    assert link is not None and "no rule of allow.servers" in link and "evil-server" in link
    # Allowed env, denied target: every program on the way must be allowed.
    wrapped = refused("env", "-i", f"PATH={bins['evil']}", "evil-server")
    assert wrapped is not None and "which 'env' runs" in wrapped
    # The entry's own PATH puts a same-named program first: it is not the allowed python.
    assert "python3" in str(refused("python3", PATH=str(bins["evil"])))


@pytest.mark.parametrize(
    ("argv", "env", "why"),
    [
        (["sh", "-c", "$(cat x)"], {}, "is not one plain command"),
        (["sh", "-c", "ok-server; evil-server"], {}, "is not one plain command"),
        (["bash", "-c", "eval ok-server"], {}, "runs what cannot be told"),
        (["bash", "run.sh"], {}, "runs the shell script 'run.sh'"),
        (["sh"], {}, "reads its commands from standard input"),
        (["bash", "-lc", "ok-server"], {}, "login shell"),
        (["bash", "-c", "ok-server"], {"BASH_ENV": "/tmp/x"}, "BASH_ENV in its environment"),
        (["sudo", "ok-server"], {}, "sudo runs what Hermes does not follow"),
        (["env", "--frobnicate", "ok-server"], {}, "not one Hermes follows"),
        (["ok-server"], {"LD_PRELOAD": "/tmp/evil.so"}, "LD_PRELOAD in its environment"),
        (["npx", "-c", "evil-server"], {}, "not one Hermes follows"),
    ],
)
def test_an_allow_list_refuses_a_wrapper_whose_target_cannot_be_told(
    bins: dict[str, Path], argv: list[str], env: dict[str, str], why: str
) -> None:
    allow = _policy(bins["root"], "allow:\n  servers:\n    - command: '*'\n")
    refused = server_refusal(allow, _facts(bins, *argv, **env))
    assert refused is not None and "what it runs cannot be told" in refused and why in refused
    # A deny list cannot tell either; it judges the wrapper itself (deny the shell to stop it).
    deny = _policy(bins["root"], "deny:\n  servers:\n    - command: evil-server\n")
    assert server_refusal(deny, _facts(bins, *argv, **env)) is None


def test_a_refusal_never_shows_a_secret_of_the_entry(bins: dict[str, Path]) -> None:
    secret = "sk-live-0123456789abcdef"
    allow = _policy(bins["root"], "allow:\n  servers:\n    - command: ok-server\n")
    for argv in (
        ["sh", "-c", f"ok-server --token {secret}; true"],
        ["env", "-S", f"ok-server --token={secret} $X"],
        ["env", f"--token={secret}", "ok-server"],
        ["npx", f"--auth-token={secret}", "pkg"],
        ["uvx", "--from", f"git+https://me:{secret}@git.example/x.git", "tool"],
    ):
        refused = server_refusal(allow, _facts(bins, *argv))
        assert refused is not None and "not allowed by the policy" in refused, argv
        assert secret not in refused, refused


def test_npx_and_uvx_are_judged_by_the_package_they_run(bins: dict[str, Path]) -> None:
    deny = _policy(bins["root"], "deny:\n  servers:\n    - command: evil-package\n")
    for argv in (
        ["npx", "-y", "evil-package"],
        ["npx", "--yes", "evil-package@1.2.3", "--flag"],
        ["npx", "-p", "Evil-Package@latest", "run-it"],
        ["npm", "exec", "--yes", "--", "evil-package"],
        ["uvx", "evil-package==1.0"],
        ["uvx", "--from", "Evil_Package[extra]>=1", "tool"],
        ["uvx", "--with", "numpy,evil.package", "mcp-server-time"],
        ["uv", "tool", "run", "evil-package@latest"],
        ["env", "npx", "-y", "evil-package"],
    ):
        refused = server_refusal(deny, _facts(bins, *argv))
        assert refused is not None and "deny.servers[0]" in refused, argv
        assert "package" in refused
    assert server_refusal(deny, _facts(bins, "npx", "-y", "@acme/fine@1")) is None
    allow = _policy(
        bins["root"],
        "allow:\n  servers:\n    - command: npx\n    - command: npx-cli.js\n"
        "    - command: '@modelcontextprotocol/*'\n",
    )
    fine = _facts(bins, "npx", "-y", "@modelcontextprotocol/server-memory@2026.8.31")
    assert server_refusal(allow, fine) is None
    other = server_refusal(allow, _facts(bins, "npx", "-y", "evil-package"))
    assert other is not None and "the npx package 'evil-package'" in other


def test_a_bridge_package_is_judged_by_the_url_it_connects_to(bins: dict[str, Path]) -> None:
    deny = _policy(bins["root"], DENY_URLS)
    for argv, rule in (
        (["npx", "-y", "mcp-remote", "http://127。0。0。1:8080/mcp"], "deny.servers[0]"),
        (
            ["npx", "-y", "mcp-remote@0.1", "HTTP://LOCALHOST./mcp", "--allow-http"],
            "deny.servers[1]",
        ),
        (
            ["uvx", "mcp-proxy", "--transport", "streamablehttp", "https://h/a/../admin"],
            "deny.servers[2]",
        ),
    ):
        refused = str(server_refusal(deny, _facts(bins, *argv)))
        assert f"denied by the policy rule {rule}" in refused, (argv, refused)
        assert f"{argv[0]!r} connects to" in refused
    assert (
        server_refusal(deny, _facts(bins, "npx", "-y", "mcp-remote", "https://ok.example/mcp"))
        is None
    )
    allow = _policy(
        bins["root"],
        "allow:\n  servers:\n    - command: '*'\n    - url: 'https://ok.example/mcp'\n",
    )
    fine = _facts(bins, "npx", "-y", "mcp-remote", "https://ok.example/mcp")
    assert server_refusal(allow, fine) is None
    other = server_refusal(allow, _facts(bins, "npx", "-y", "mcp-remote", "https://evil.example/"))
    assert other is not None and "matches https://evil.example/, which 'npx' connects to" in other


def test_tool_globs_match_the_registered_and_the_given_name_case_insensitively(
    tmp_path: Path,
) -> None:
    policy = _policy(
        tmp_path,
        "deny:\n  tools: ['*/delete_*', 'my-api/Drop-*', 'mcp_files_wipe*']\n"
        "allow:\n  tools: ['*/*']\n",
    )

    def rule(server: str, tool: str) -> str | None:
        refused = tool_refusal(policy, server, tool)
        if refused is None:
            return None
        assert refused.startswith("denied by the policy rule deny.tools[")
        return refused.split()[5]

    assert rule("github", "delete-all") == "deny.tools[0]"  # registered as delete_all
    assert rule("github", "DELETE_REPO") == "deny.tools[0]"
    assert rule("github", "ｄｅｌｅｔｅ_x") == "deny.tools[0]"  # fullwidth letters
    assert rule("github", "dele\u200bte_x") == "deny.tools[0]"  # an invisible character
    assert rule("my_api", "drop_table") == "deny.tools[1]"  # the glob read as registered
    assert rule("files", "wipe.all") == "deny.tools[2]"  # mcp_files_wipe_all
    assert rule("github", "create_issue") is None
    assert rule("github", "deleted") is None


@pytest.mark.process
def test_a_probe_of_one_entry_never_starts_what_the_policy_refuses(
    bins: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The door every probe goes through (`mcp add`, the catalog's install and dashboard).
    policy = bins["root"] / "policy.yaml"
    policy.write_text("deny:\n  servers:\n    - command: evil-server\n")
    monkeypatch.setenv("HERMES_POLICY", str(policy))
    entry = {"command": "env", "args": ["FOO=1", str(bins["evil"] / "evil-server")]}
    cfg, problems, _warnings = validate_server("probe", entry)
    assert cfg is not None and not problems
    server = ConfigSource().server("probe", cfg)

    async def scenario() -> str | None:
        async with MCPHost([server]) as host:
            (row,) = host.status()
            return row.last_error

    error = asyncio.run(scenario())
    assert error is not None and "refused by the administrator's policy" in error
    assert "deny.servers[0]" in error
    assert not bins["mark"].exists()


# -- through the CLI ---------------------------------------------------------------------------
def _home(root: Path, policy: str, servers: str) -> dict[str, str]:
    (root / "policy.yaml").write_text(policy)
    (root / "config.yaml").write_text("mcp_servers:\n" + servers)
    return {"HERMES_HOME": str(root), "HERMES_POLICY": str(root / "policy.yaml")}


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_cli_add_refuses_every_spelling_of_a_denied_url_or_program(tmp_path: Path) -> None:
    mark = tmp_path / "ran"
    evil = _program(tmp_path / "evil", "evil-server", mark)
    env = _home(
        tmp_path,
        "deny:\n  servers:\n    - url: {host: 127.0.0.1}\n    - url: {host: localhost}\n"
        "    - url: {path: '/admin*'}\n    - command: evil-server\n",
        "  kept:\n    url: https://example.test/mcp\n",
    )
    before = (tmp_path / "config.yaml").read_text()
    attempts = [
        (["web", "http://127。0。0。1:8080/mcp"], "deny.servers[0]"),
        (["web", "HTTP://LOCALHOST./mcp"], "deny.servers[1]"),
        (["web", "https://host:443/a/../admin"], "deny.servers[2]"),
        (["web", "https://host/a/%2e%2e/admin"], "deny.servers[2]"),
        (["web", "http://user@127.0.0.1/mcp"], "deny.servers[0]"),
        (["wrapped", "--", "env", "FOO=1", str(evil)], "deny.servers[3]"),
        (["shell", "--", "sh", "-c", f"{evil} --x"], "deny.servers[3]"),
        (["own-path", "-e", f"PATH={evil.parent}", "--", "evil-server"], "deny.servers[3]"),
    ]
    for words, rule in attempts:
        added = run_hermes("mcp", "add", "--no-probe", *words, env=env)
        assert added.returncode == 1, (words, added.stdout, added.stderr)
        assert (
            f"MCP server '{words[0]}' is refused by the administrator's policy: denied by the "
            f"policy rule {rule} in {tmp_path / 'policy.yaml'}" in added.stderr
        ), added.stderr
        assert "nothing was written" in added.stderr and "Traceback" not in added.stderr
    assert (tmp_path / "config.yaml").read_text() == before
    assert not mark.exists()


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_cli_status_refuses_wrapped_and_relocated_programs_and_never_starts_them(
    bins: dict[str, Path],
) -> None:
    root, evil = bins["root"], bins["evil"]
    servers = {
        "plain": {"command": "evil-server", "env": {"PATH": str(evil)}},
        "env-wrapped": {"command": "env", "args": ["FOO=1", f"{evil}/evil-server"]},
        "env-cleared": {"command": "env", "args": ["-i", f"PATH={evil}", "evil-server"]},
        "shell": {"command": "sh", "args": ["-c", f"{evil}/evil-server --x"]},
        "own-path": {"command": "python3", "env": {"PATH": str(evil)}},
        "linked": {"command": str(bins["links"] / "allowed")},
        "package": {"command": "npx", "args": ["-y", "evil-package"]},
        "opaque": {"command": "sh", "args": ["-c", "$(cat x)"]},
        "real": {
            "command": "env",
            "args": ["PYTHONUNBUFFERED=1", sys.executable, str(SERVER)],
        },
    }
    policy = (
        "deny:\n  servers:\n    - path: '" + str(evil) + "/*'\n    - command: evil-package\n"
        "allow:\n  servers:\n    - command: '*'\n"
    )
    entries = "".join(f"  {name}: {json.dumps(entry)}\n" for name, entry in servers.items())
    env = _home(root, policy, entries)
    status = run_hermes("mcp", "status", "--json", env=env)
    assert status.returncode in (0, 1), status.stderr
    rows = {row["server"]: row for row in json.loads(status.stdout)}
    prefix = "is refused by the administrator's policy: denied by the policy rule"
    for name in ("plain", "env-wrapped", "env-cleared", "shell", "own-path", "linked"):
        error = str(rows[name]["last_error"])
        assert f"MCP server '{name}' {prefix} deny.servers[0]" in error, (name, error)
        assert str(evil) in error, (name, error)
    assert f"{prefix} deny.servers[1]" in str(rows["package"]["last_error"])
    assert "the npx package 'evil-package'" in str(rows["package"]["last_error"])
    assert "what it runs cannot be told" in str(rows["opaque"]["last_error"])
    # What the policy allows still runs, through its env wrapper; what it refused never ran.
    assert rows["real"]["connection"] == "connected", rows["real"]
    assert not bins["mark"].exists()


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_cli_call_refuses_a_hyphenated_tool_the_glob_names_as_registered(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(
        json.dumps(
            {
                "delete-all": {"description": "Delete everything."},
                "DELETE_Repo": {"description": "Delete a repository."},
                "look": {"description": "Read something."},
            }
        )
    )
    events = tmp_path / "events"
    entry = {
        "command": sys.executable,
        "args": [str(SERVER)],
        "env": {"SHIFT_FILE": str(tools), "EVENT_LOG": str(events)},
        "tools": {"include": ["*"]},
    }
    env = _home(tmp_path, "deny:\n  tools: ['*/delete_*']\n", f"  shift: {json.dumps(entry)}\n")
    listed = run_hermes("mcp", "tools", env=env)
    assert "mcp_shift_look" in listed.stdout, listed.stderr
    assert "delete" not in listed.stdout.lower()
    for name in ("mcp_shift_delete_all", "mcp_shift_DELETE_Repo"):
        called = run_hermes("mcp", "call", "--json", name, "--args", "{}", env=env)
        assert called.returncode == 1, (called.stdout, called.stderr)
        body = json.loads(called.stdout)
        assert body["state"] == "policy"
        assert "denied by the policy rule deny.tools[0]" in body["error"]
        assert "(*/delete_*)" in body["error"]
    assert "call" not in events.read_text()
