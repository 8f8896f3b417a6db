"""``config.yaml`` loading: every key, defaults, warnings, and file:line errors."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from hermes_core.config import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_TOOL_TIMEOUT,
    ConfigError,
    HermesConfig,
    IdentityHeader,
    ServerConfig,
    config_path,
    hermes_home,
    load_config,
    parse_config_text,
)

SECRET = "sk_live_DO_NOT_LEAK_4242"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str) -> ConfigError:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return info.value


FULL = """
# every key of the user guide's table
model: some-model
mcp_servers:
  everything:
    command: "npx"
    args: ["-y", "@modelcontextprotocol/server-everything", 8080]
    env:
      TOKEN: "${TOKEN}"
      PORT: 0x1F
      RATIO: 1.50
      DEBUG: yes
    url: "https://mcp.example.com/mcp"
    headers:
      Authorization: "Bearer ***"
    client_cert: ["~/.certs/c.crt", "~/.certs/c.key", "${KEY_PASSWORD}"]
    identity_header:
      name: "X-User-Id"
      value_from: "static"
      value: "alice"
    timeout: 120
    connect_timeout: 15.5
    idle_timeout_seconds: 900
    max_lifetime_seconds: 86400
    enabled: false
    supports_parallel_tool_calls: true
    tools:
      include: [create_issue, "*_dns_*"]
      exclude: [delete_issue]
      resources: false
      prompts: false
    auth: oauth
    oauth:
      redirect_port: 8765
      client_name: "Claude Code"
    sampling:
      enabled: true
      max_tokens_cap: 4096
    elicitation:
      timeout: 300
    transport: sse
timeouts:
  mcp:
    tool_call: 42
"""


def test_every_key_is_parsed(tmp_path: Path) -> None:
    loaded = load_config(write(tmp_path, FULL))
    cfg = loaded.config.mcp_servers["everything"]
    assert cfg.command == "npx"
    assert cfg.args == ["-y", "@modelcontextprotocol/server-everything", "8080"]
    # numbers and booleans where text is expected keep the spelling the user wrote
    assert cfg.env == {"TOKEN": "${TOKEN}", "PORT": "0x1F", "RATIO": "1.50", "DEBUG": "yes"}
    assert cfg.url == "https://mcp.example.com/mcp"
    assert cfg.headers == {"Authorization": "Bearer ***"}
    assert cfg.client_cert == ["~/.certs/c.crt", "~/.certs/c.key", "${KEY_PASSWORD}"]
    assert cfg.client_key is None
    assert cfg.identity_header == IdentityHeader(
        name="X-User-Id", value_from="static", value="alice"
    )
    assert (cfg.timeout, cfg.connect_timeout) == (120.0, 15.5)
    assert (cfg.idle_timeout_seconds, cfg.max_lifetime_seconds) == (900.0, 86400.0)
    assert cfg.enabled is False
    assert cfg.supports_parallel_tool_calls is True
    assert cfg.tools.include == ["create_issue", "*_dns_*"]
    assert cfg.tools.exclude == ["delete_issue"]
    assert (cfg.tools.resources, cfg.tools.prompts) == (False, False)
    assert cfg.auth == "oauth"
    assert cfg.oauth is not None
    assert cfg.oauth.written() == {"redirect_port": 8765, "client_name": "Claude Code"}
    assert cfg.sampling is not None
    assert cfg.sampling.model_dump(exclude_unset=True) == {"enabled": True, "max_tokens_cap": 4096}
    assert cfg.elicitation is not None and cfg.elicitation.timeout == 300.0
    assert cfg.transport == "sse"
    assert loaded.config.enabled_servers() == {}
    # other top-level keys are kept as read
    assert loaded.config.model_extra == {
        "model": "some-model",
        "timeouts": {"mcp": {"tool_call": 42}},
    }
    assert loaded.exists and loaded.digest is not None


def test_defaults_from_the_reference(tmp_path: Path) -> None:
    path = write(tmp_path, "mcp_servers:\n  fs:\n    command: npx\n")
    cfg = load_config(path).config.mcp_servers["fs"]
    assert cfg.transport == "stdio"
    assert cfg.args == [] and cfg.env == {} and cfg.headers == {}
    assert cfg.timeout == DEFAULT_TOOL_TIMEOUT == 300.0
    assert cfg.connect_timeout == DEFAULT_CONNECT_TIMEOUT == 60.0
    assert cfg.idle_timeout_seconds == 0.0 and cfg.max_lifetime_seconds == 0.0
    assert cfg.enabled is True and cfg.supports_parallel_tool_calls is False
    assert cfg.tools.include is None and cfg.tools.exclude is None
    assert cfg.tools.resources is True and cfg.tools.prompts is True
    assert cfg.auth is None and cfg.oauth is None
    assert cfg.sampling is None and cfg.elicitation is None
    assert cfg.client_cert is None and cfg.client_key is None and cfg.identity_header is None


def test_nulls_mean_the_default(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        mcp_servers:
          fs:
            command: npx
            args:
            env:
            enabled:
            timeout:
            tools:
        """,
    )
    cfg = load_config(path).config.mcp_servers["fs"]
    assert cfg.args == [] and cfg.env == {} and cfg.enabled is True
    assert cfg.timeout == 300.0 and cfg.tools.resources is True


@pytest.mark.parametrize(
    ("written", "expected"),
    [("off", False), ("'yes'", True), ("No", False), ("1", True), ("0", False), ("true", True)],
)
def test_boolish_values(tmp_path: Path, written: str, expected: bool) -> None:
    path = write(tmp_path, f"mcp_servers:\n  s:\n    command: x\n    enabled: {written}\n")
    assert load_config(path).config.mcp_servers["s"].enabled is expected


def test_tool_filters_accept_one_name_and_keep_an_empty_include(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        mcp_servers:
          a:
            url: https://a.example
            tools: {include: create_issue}
          b:
            url: https://b.example
            tools: {include: []}
        """,
    )
    servers = load_config(path).config.mcp_servers
    assert servers["a"].tools.include == ["create_issue"]
    assert servers["b"].tools.include == []


def test_transport_rules(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        mcp_servers:
          http:
            url: https://a.example/mcp
          sse:
            url: https://a.example/sse
            transport: SSE
          both:
            command: npx
            url: https://a.example/mcp
          forced:
            command: npx
            url: https://a.example/mcp
            transport: stdio
        """,
    )
    loaded = load_config(path)
    servers = loaded.config.mcp_servers
    assert servers["http"].transport == "streamable_http"
    assert servers["sse"].transport == "sse"
    assert servers["both"].transport == "streamable_http"
    assert servers["forced"].transport == "stdio"
    messages = [str(w) for w in loaded.warnings]
    assert (
        f"{path}:8: mcp_servers.both.command: both 'url' and 'command' are set; using the HTTP "
        "transport ('url'). Remove 'command' to silence this warning."
    ) in messages
    assert (
        f"{path}:12: mcp_servers.forced.url: ignored because transport: stdio uses 'command'"
        in (messages)
    )


@pytest.mark.parametrize(
    ("entry", "line", "message"),
    [
        (
            'heders:\n      Authorization: "Bearer secret"',
            4,
            "mcp_servers.github.heders: unknown key (did you mean 'headers'?)",
        ),
        ("trsut: untrusted", 4, "mcp_servers.github.trsut: unknown key (did you mean 'trust'?)"),
        (
            "tools:\n      includes: [a]",
            5,
            "mcp_servers.github.tools.includes: unknown key (did you mean 'include'?)",
        ),
        (
            "future_setting: 3",
            4,
            "mcp_servers.github.future_setting: unknown key; the keys here are: always_load, args,",
        ),
    ],
)
def test_unknown_keys_fail_closed(tmp_path: Path, entry: str, line: int, message: str) -> None:
    # A misspelt key must never leave a server running without what the user asked for
    # (trsut: untrusted would otherwise run every tool without asking).
    path = tmp_path / "config.yaml"
    path.write_text(f"mcp_servers:\n  github:\n    command: npx\n    {entry}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}:{line}: {message}")
    assert "secret" not in str(info.value)


def test_keys_that_do_not_apply_warn(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        mcp_servers:
          local:
            command: npx
            headers: {X-A: b}
            identity_header: {name: X-User, value: alice}
          remote:
            url: https://a.example
            env: {A: b}
            idle_timeout_seconds: 60
            identity_header: {name: X-User}
        """,
    )
    loaded = load_config(path)
    assert [str(w) for w in loaded.warnings] == [
        f"{path}:4: mcp_servers.local.headers: only applies to HTTP servers; ignored for this "
        "stdio server",
        f"{path}:5: mcp_servers.local.identity_header: identity_header is only supported on "
        "HTTP/SSE transports — ignored for stdio servers",
        f"{path}:10: mcp_servers.remote.identity_header: identity_header uses value_from: static "
        "without a value — ignoring",
        f"{path}:8: mcp_servers.remote.env: only applies to stdio servers; ignored for this HTTP "
        "server",
        f"{path}:9: mcp_servers.remote.idle_timeout_seconds: only applies to stdio servers; "
        "ignored for this HTTP server",
    ]
    assert loaded.config.mcp_servers["remote"].identity_header is None
    assert loaded.config.mcp_servers["local"].identity_header is not None


def test_hidden_whitespace_is_reported_without_the_value(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        f'mcp_servers:\n  s:\n    command: x\n    env:\n      TOKEN: "{SECRET} "\n',
    )
    (warning,) = load_config(path).warnings
    assert str(warning) == (
        f"{path}:5: mcp_servers.s.env.TOKEN: value has hidden leading or trailing whitespace"
    )
    assert SECRET not in str(warning)


def test_header_values_with_outer_whitespace_are_refused_without_the_value(
    tmp_path: Path,
) -> None:
    # An HTTP library refuses such a value with an error quoting it (into status and logs).
    error = error_of(
        tmp_path,
        f"mcp_servers:\n  s:\n    url: https://a.example\n    headers:\n"
        f'      Authorization: "Bearer {SECRET} "\n',
    )
    assert str(error) == (
        f"{tmp_path / 'config.yaml'}:5: mcp_servers.s.headers.Authorization: has leading or "
        "trailing whitespace (remove it; the value is not shown)"
    )
    assert SECRET not in str(error) + repr(error)


@pytest.mark.parametrize(
    ("body", "line", "key", "reason"),
    [
        (
            "    command: npx\n    timeout: soon\n",
            4,
            "timeout",
            "must be a number of seconds (got text)",
        ),
        (
            "    command: npx\n    timeout: 0\n",
            4,
            "timeout",
            "must be a positive number of seconds",
        ),
        (
            "    command: npx\n    timeout: true\n",
            4,
            "timeout",
            "must be a number of seconds (got true/false)",
        ),
        (
            "    command: npx\n    connect_timeout: [1]\n",
            4,
            "connect_timeout",
            "must be a number of seconds (got a list)",
        ),
        (
            "    command: npx\n    idle_timeout_seconds: -5\n",
            4,
            "idle_timeout_seconds",
            "must be 0 (off) or a positive number of seconds",
        ),
        (
            "    command: npx\n    max_lifetime_seconds: .nan\n",
            4,
            "max_lifetime_seconds",
            "must be a finite number of seconds",
        ),
        (
            "    command: npx\n    enabled: maybe\n",
            4,
            "enabled",
            "must be true or false (got text)",
        ),
        (
            "    command: npx\n    supports_parallel_tool_calls: 2\n",
            4,
            "supports_parallel_tool_calls",
            "must be true or false (got a number)",
        ),
        ("    command: [npx]\n", 3, "command", "must be text (got a list)"),
        ("    command: ''\n", 3, "command", "must not be empty"),
        (
            "    command: npx\n    args: -y pkg\n",
            4,
            "args",
            'must be a list, e.g. args: ["-y", "package-name"] (got text)',
        ),
        (
            "    command: npx\n    args:\n      - a\n      - {b: c}\n",
            6,
            "args[1]",
            "must be text (got a mapping)",
        ),
        (
            "    command: npx\n    env: [A]\n",
            4,
            "env",
            "must be a mapping of NAME: value (got a list)",
        ),
        (
            "    command: npx\n    env:\n      A: 1\n      B:\n",
            6,
            "env.B",
            "must be text (got nothing (null))",
        ),
        ("    url: ftp://a.example\n", 3, "url", "must start with http:// or https:// (got 'ftp')"),
        ("    url: https://\n", 3, "url", "has no host name"),
        ("    url: 42\n", 3, "url", "must be an http:// or https:// URL (got a number)"),
        (
            "    url: https://a.example\n    headers:\n      'Bad Name': x\n",
            5,
            "headers.Bad Name",
            "'Bad Name' is not a valid HTTP header name",
        ),
        (
            "    url: https://a.example\n    headers:\n      Authorization: {a: b}\n",
            5,
            "headers.Authorization",
            "must be text (got a mapping)",
        ),
        (
            "    url: https://a.example\n    client_cert: [a.crt]\n",
            4,
            "client_cert",
            "the list form must have 2 or 3 elements (got 1)",
        ),
        (
            "    url: https://a.example\n    client_cert: [a.crt, b.key]\n    client_key: c.key\n",
            5,
            "client_key",
            "specify either client_cert as a list [cert, key] or client_cert + client_key, "
            "not both",
        ),
        (
            "    url: https://a.example\n    client_cert: [a.crt, b.key, {a: 1}]\n",
            4,
            "client_cert[2]",
            "must be the key passphrase as text (got a mapping)",
        ),
        (
            "    url: https://a.example\n    tools:\n      include: {a: 1}\n",
            5,
            "tools.include",
            "must be a list of tool names or globs (got a mapping)",
        ),
        (
            "    url: https://a.example\n    tools:\n      prompts: nope\n",
            5,
            "tools.prompts",
            "must be true or false (got text)",
        ),
        (
            "    url: https://a.example\n    tools: [a]\n",
            4,
            "tools",
            "must be a mapping with include/exclude/resources/prompts (got a list)",
        ),
        (
            "    url: https://a.example\n    oauth: yes\n",
            4,
            "oauth",
            "must be a mapping of oauth settings (got text)",
        ),
        (
            "    url: https://a.example\n    sampling: [1]\n",
            4,
            "sampling",
            "must be a mapping (got a list)",
        ),
        (
            "    url: https://a.example\n    auth: {a: 1}\n",
            4,
            "auth",
            "must be the name of an auth scheme such as oauth (got a mapping)",
        ),
        (
            "    url: https://a.example\n    transport: websocket\n",
            4,
            "transport",
            "unknown transport 'websocket'; registered: stdio, streamable_http, sse "
            "(plugins add more: `hermes plugins list`)",
        ),
        ("    command: npx\n    transport: sse\n", 4, "transport", "transport: sse needs a 'url'"),
        (
            "    timeout: 3\n",
            2,
            "",
            "needs either 'command' (a stdio server) or 'url' (an HTTP server)",
        ),
    ],
)
def test_wrong_values_name_file_line_server_and_key(
    tmp_path: Path, body: str, line: int, key: str, reason: str
) -> None:
    # the header comment shifts every line of the table by one
    path = write(tmp_path, "# servers\nmcp_servers:\n  srv:\n" + body)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    error = info.value
    full_key = f"mcp_servers.srv.{key}" if key else "mcp_servers.srv"
    assert str(error) == f"{path}:{line + 1}: {full_key}: {reason}"
    assert (error.path, error.line, error.key, error.reason) == (
        str(path),
        line + 1,
        full_key,
        reason,
    )


def test_all_problems_are_kept_first_by_line(tmp_path: Path) -> None:
    error = error_of(
        tmp_path,
        """
        mcp_servers:
          a:
            command: npx
            timeout: x
          b:
            url: nope
            enabled: perhaps
        """,
    )
    assert [(e.line, e.key) for e in error.all] == [
        (4, "mcp_servers.a.timeout"),
        (6, "mcp_servers.b.url"),
        (7, "mcp_servers.b.enabled"),
    ]


def test_non_strict_loading_drops_only_the_bad_server(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        mcp_servers:
          good:
            command: npx
          bad:
            command: npx
            timeout: x
        """,
    )
    loaded = load_config(path, strict=False)
    assert list(loaded.config.mcp_servers) == ["good"]
    assert [str(e) for e in loaded.errors] == [
        f"{path}:6: mcp_servers.bad.timeout: must be a number of seconds (got text)"
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "mcp_servers: [a, b]\n",
            "{p}:1: mcp_servers: must be a mapping of server names to their settings (got a list)",
        ),
        (
            "mcp_servers:\n  fs: npx\n",
            "{p}:2: mcp_servers.fs: must be a mapping of settings such as command: or url: "
            "(got text)",
        ),
        (
            "mcp_servers:\n  'my server':\n    command: npx\n",
            "{p}:2: mcp_servers.my server: server names start with a letter or digit and use only "
            "letters, digits, '_', '.' and '-' (at most 64 characters)",
        ),
        (
            "mcp_servers:\n  123:\n    command: npx\n",
            "{p}:2: mcp_servers.123: server names must be text (got a number); "
            "put the name in quotes",
        ),
        (
            "- a\n- b\n",
            "{p}:1: the file must be a mapping of settings such as mcp_servers: (got a list)",
        ),
        (
            "mcp_servers:\n  fs:\n    command: npx\n   args: [a]\n",
            "{p}:4: YAML syntax error: expected <block end>, but found '<block mapping start>'",
        ),
        (
            "mcp_servers:\n  fs:\n    command: npx\n    command: uvx\n",
            '{p}:4: YAML syntax error: found duplicate key "command"',
        ),
    ],
)
def test_shape_and_syntax_errors(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    error = error_of(tmp_path, text)
    assert str(error) == message.format(p=path)


def test_secrets_never_appear_in_errors_or_repr(tmp_path: Path) -> None:
    text = f"""
    mcp_servers:
      remote:
        url: "https://a.example/mcp?token={SECRET}"
        headers:
          Authorization: "Bearer {SECRET}"
          X-Other: ["{SECRET}"]
        client_cert: ["a.crt", "b.key", "{SECRET}"]
        oauth: {{client_id: abc, client_secret: "{SECRET}"}}
        identity_header: {{name: X-User, value: "{SECRET}"}}
      local:
        command: npx
        env:
          TOKEN: "{SECRET}"
          NESTED: {{a: "{SECRET}"}}
        timeout: "{SECRET}"
    """
    error = error_of(tmp_path, text)
    for problem in error.all:
        assert SECRET not in str(problem)
        assert SECRET not in repr(problem)
    assert error.__cause__ is None
    assert {e.key for e in error.all} == {
        "mcp_servers.remote.headers.X-Other",
        "mcp_servers.local.env.NESTED",
        "mcp_servers.local.timeout",
    }
    # a valid entry's repr and str hide every secret too
    good = text.replace(f'X-Other: ["{SECRET}"]', "X-Other: b").replace(
        f'NESTED: {{a: "{SECRET}"}}', "NESTED: b"
    )
    good = good.replace(f'timeout: "{SECRET}"', "timeout: 5")
    config = load_config(write(tmp_path, good)).config
    remote = config.mcp_servers["remote"]
    for shown in (repr(config), str(config), repr(remote), repr(config.mcp_servers["local"])):
        assert SECRET not in shown
    assert "url='https://a.example/mcp?***'" in repr(remote)
    assert "'Authorization': '***'" in repr(remote)
    assert "client_id" in repr(remote)  # keys stay visible


def test_pydantic_errors_of_direct_construction_hide_input() -> None:
    with pytest.raises(Exception) as info:
        ServerConfig(command="npx", env={"A": ["x" + SECRET]})  # type: ignore[dict-item]
    assert SECRET not in str(info.value)


def test_missing_file_is_an_empty_config(tmp_path: Path) -> None:
    loaded = load_config(tmp_path / "nope" / "config.yaml")
    assert loaded.config == HermesConfig()
    assert loaded.config.mcp_servers == {} and loaded.warnings == () and not loaded.exists


def test_empty_and_comment_only_files(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "# nothing yet\n")).config.mcp_servers == {}
    assert load_config(write(tmp_path, "mcp_servers:\n")).config.mcp_servers == {}


def test_hermes_home_and_default_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("HERMES_HOME", raising=False)
    assert hermes_home() == tmp_path / "home" / ".hermes"
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "h"))
    assert hermes_home() == tmp_path / "h"
    assert config_path() == tmp_path / "h" / "config.yaml"
    assert hermes_home({"HERMES_HOME": "~/x"}) == tmp_path / "home" / "x"
    (tmp_path / "h").mkdir()
    (tmp_path / "h" / "config.yaml").write_text("mcp_servers:\n  a:\n    command: x\n")
    assert list(load_config().config.mcp_servers) == ["a"]


def test_tool_call_timeout_precedence() -> None:
    text = """
    timeouts: {mcp: {tool_call: 42}}
    mcp_servers:
      own: {command: a, timeout: 7}
      inherits: {command: a}
    """
    config = parse_config_text(textwrap.dedent(text)).config
    assert config.tool_call_timeout("own") == 7.0
    assert config.tool_call_timeout("inherits") == 42.0
    plain = parse_config_text("mcp_servers:\n  a: {command: a}\n").config
    assert plain.tool_call_timeout("a") == 300.0


def test_reloading_the_same_text_gives_equal_configs(tmp_path: Path) -> None:
    first = load_config(write(tmp_path, FULL)).config
    moved = tmp_path / "other.yaml"
    moved.write_text("\n\n" + textwrap.dedent(FULL).lstrip("\n"))
    second = load_config(moved).config
    assert first == second
    assert first.mcp_servers["everything"].source != second.mcp_servers["everything"].source
    assert first.mcp_servers["everything"].line_of("timeout") == 20
    assert second.mcp_servers["everything"].line_of("timeout") == 22


def test_models_are_usable_without_a_file() -> None:
    cfg = ServerConfig.model_validate({"url": "https://a.example", "transport": "sse"})
    assert cfg.transport == "sse" and cfg.source is None and cfg.line_of("url") is None
    assert ServerConfig(command="x", requested_transport=None).transport == "stdio"
