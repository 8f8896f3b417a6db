"""``${…}`` expansion at connect time and the ``.env`` reader."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from hermes_core.config import (
    ConfigError,
    ServerConfig,
    expand,
    load_config,
    load_dotenv,
    parse_dotenv,
    resolve,
)
from hermes_core.config.dotenv_file import update_dotenv
from hermes_core.config.interpolate import dotenv_entries

SECRET = "ghp_DO_NOT_LEAK_777"


def server(**entry: object) -> ServerConfig:
    return ServerConfig.model_validate(entry)


def test_environment_and_dotenv_values() -> None:
    cfg = server(
        command="${TOOLS}/bin/server",
        args=["--token", "${TOKEN}", "--mode=${MODE}"],
        env={"GITHUB_TOKEN": "${TOKEN}", "PLAIN": "value"},
    )
    resolved = resolve(
        "github", cfg, env={"TOKEN": "from-env", "TOOLS": "/opt"}, dotenv={"MODE": "fast"}
    )
    assert resolved.command == "/opt/bin/server"
    assert resolved.args == ["--token", "from-env", "--mode=fast"]
    assert resolved.env == {"GITHUB_TOKEN": "from-env", "PLAIN": "value"}
    # pure: the input is untouched
    assert cfg.args == ["--token", "${TOKEN}", "--mode=${MODE}"]


def test_process_environment_wins_over_dotenv() -> None:
    cfg = server(url="https://a.example/${PATH_PART}")
    resolved = resolve("s", cfg, env={"PATH_PART": "env"}, dotenv={"PATH_PART": "dotenv"})
    assert resolved.url == "https://a.example/env"


def test_url_and_header_values_but_never_keys() -> None:
    cfg = server(
        url="https://${HOST}/mcp",
        headers={"Authorization": "Bearer ${TOKEN}"},
    )
    resolved = resolve("s", cfg, env={"HOST": "mcp.example.com"}, dotenv={"TOKEN": "t0k"})
    assert resolved.url == "https://mcp.example.com/mcp"
    assert resolved.headers == {"Authorization": "Bearer t0k"}
    stdio = server(command="x", env={"KEY_${TOKEN}": "${TOKEN}"})
    assert resolve("s", stdio, env={"TOKEN": "t"}, dotenv={}).env == {"KEY_${TOKEN}": "t"}


def test_builtin_context_variables(tmp_path: Path) -> None:
    workspace = tmp_path / "my-project"
    cfg = server(
        command="node",
        args=[
            "${userHome}",
            "${workspaceFolder}",
            "${workspaceFolderBasename}",
            "a${pathSeparator}b",
            "a${/}b",
        ],
    )
    resolved = resolve("fs", cfg, env={"HOME": "/home/ada"}, dotenv={}, workspace=workspace)
    assert resolved.args == [
        "/home/ada",
        str(workspace),
        "my-project",
        f"a{os.sep}b",
        f"a{os.sep}b",
    ]


def test_context_variables_are_case_sensitive_and_win_over_the_environment() -> None:
    cfg = server(command="x", args=["${userHome}", "${USERHOME}"])
    resolved = resolve(
        "s", cfg, env={"HOME": "/h", "userHome": "/not-this", "USERHOME": "/env"}, dotenv={}
    )
    assert resolved.args == ["/h", "/env"]


def test_env_prefix_and_escape() -> None:
    cfg = server(command="x", args=["${env:TOKEN}", "$${TOKEN}", "$$", "${ TOKEN }", "cost: $5"])
    resolved = resolve("s", cfg, env={"TOKEN": "t"}, dotenv={})
    assert resolved.args == ["t", "${TOKEN}", "$$", "t", "cost: $5"]


def test_no_recursive_expansion() -> None:
    cfg = server(command="x", env={"A": "${OUTER}", "B": "${PLAIN}"})
    resolved = resolve(
        "s", cfg, env={"OUTER": "${INNER}", "INNER": "boom", "PLAIN": "p"}, dotenv={}
    )
    assert resolved.env["A"] == "${INNER}"
    # a value that merely looks like an escape stays as it is too
    resolved = resolve("s", cfg, env={"OUTER": "$${x}", "PLAIN": "p"}, dotenv={})
    assert resolved.env == {"A": "$${x}", "B": "p"}


def test_unset_variable_names_variable_server_and_key() -> None:
    cfg = server(command="npx", env={"GITHUB_TOKEN": "${GITHUB_TOKEN}"})
    with pytest.raises(ConfigError) as info:
        resolve("github", cfg, env={}, dotenv={})
    assert str(info.value) == (
        "mcp_servers.github.env.GITHUB_TOKEN: ${GITHUB_TOKEN} is not set "
        "(not in the environment or ~/.hermes/.env)"
    )


def test_unset_variable_in_a_loaded_file_has_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text(
        textwrap.dedent(
            """
            mcp_servers:
              fs:
                command: npx
                args:
                  - -y
                  - "${ROOT}"
            """
        ).lstrip()
    )
    cfg = load_config(path).config.mcp_servers["fs"]
    with pytest.raises(ConfigError) as info:
        resolve("fs", cfg, env={"HERMES_HOME": "/srv/hermes"}, dotenv={})
    assert str(info.value) == (
        f"{path}:6: mcp_servers.fs.args[1]: ${{ROOT}} is not set "
        "(not in the environment or /srv/hermes/.env)"
    )


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("${}", "${} names no variable (write '$${' for a literal '${')"),
        ("${env:}", "${env:} names no variable (write '$${' for a literal '${')"),
        ("x${TOKEN", "'${' has no closing '}' (write '$${' for a literal '${')"),
        (
            "${workspaceFolder}/x",
            "${workspaceFolder} is not available: this session has no workspace folder",
        ),
    ],
)
def test_malformed_placeholders(value: str, reason: str) -> None:
    with pytest.raises(ConfigError) as info:
        resolve("s", server(command="x", args=[value]), env={"TOKEN": "t"}, dotenv={})
    assert str(info.value) == f"mcp_servers.s.args[0]: {reason}"


def test_values_unusable_after_expansion_are_errors_without_the_value() -> None:
    bad_header = server(url="https://a.example", headers={"Authorization": "${TOKEN}"})
    with pytest.raises(ConfigError) as info:
        resolve("s", bad_header, env={"TOKEN": f"{SECRET}\r\nX-Injected: 1"}, dotenv={})
    assert str(info.value) == (
        "mcp_servers.s.headers.Authorization: contains a line break after ${…} expansion"
    )
    bad_url = server(url="${URL}")
    with pytest.raises(ConfigError) as info:
        resolve("s", bad_url, env={"URL": f"file:///{SECRET}"}, dotenv={})
    assert str(info.value) == (
        "mcp_servers.s.url: must start with http:// or https:// (got 'file') (after ${…} expansion)"
    )
    assert SECRET not in str(info.value)


def test_client_cert_identity_header_and_oauth_strings() -> None:
    cfg = server(
        url="https://a.example",
        client_cert=["${CERTS}/c.crt", "${CERTS}/c.key", "${KEY_PASSWORD}"],
        identity_header={"name": "X-User", "value": "${USER_ID}"},
        oauth={"client_id": "${CLIENT_ID}", "redirect_port": 8765},
    )
    env = {"CERTS": "/certs", "KEY_PASSWORD": "pw", "USER_ID": "alice", "CLIENT_ID": "cid"}
    resolved = resolve("s", cfg, env=env, dotenv={})
    assert resolved.client_cert == ["/certs/c.crt", "/certs/c.key", "pw"]
    assert resolved.identity_header is not None and resolved.identity_header.value == "alice"
    assert resolved.oauth is not None
    assert resolved.oauth.written() == {"client_id": "cid", "redirect_port": 8765}
    assert "pw" not in repr(resolved)


def test_every_text_setting_of_oauth_and_sampling_is_expanded_and_checked_again() -> None:
    """Every text key of the sub-models: the README's ``id_token: "${ACME_ID_TOKEN}"`` sends
    the token, a grant named by a variable selects that grant's checks."""
    oauth = {
        "grant": "${GRANT}",
        "client_id": "${CID}",
        "client_secret": "${SECRET}",
        "issuer": "${AS}",
        "idp_token_endpoint": "${IDP}/token",
        "idp_client_id": "hermes-at-idp",
        "id_token": "${ACME_ID_TOKEN}",
        "scope": ["mcp:read", "${EXTRA_SCOPE}"],
        "authorization_params": {"audience": "${AUD}"},
        "client_name": "${NAME}",
    }
    cfg = server(
        url="https://a.example",
        oauth=oauth,
        sampling={"model": "${MODEL}", "allowed_models": ["${MODEL}"], "approval": "${ASK}"},
    )
    env = {
        "GRANT": "identity_assertion",
        "CID": "cid",
        "SECRET": "s3cr3t",
        "AS": "https://as.example",
        "IDP": "https://idp.example",
        "ACME_ID_TOKEN": "eyJ.id.token",
        "AUD": "api://acme",
        "NAME": "Acme Agent",
        "MODEL": "echo",
        "ASK": "ask",
    }
    resolved = resolve("s", cfg, env=env, dotenv={"EXTRA_SCOPE": "mcp:write"})
    settings = resolved.oauth
    assert settings is not None
    assert (settings.grant, settings.client_id, settings.client_secret) == (
        "identity_assertion",
        "cid",
        "s3cr3t",
    )
    assert settings.id_token == "eyJ.id.token"
    assert settings.idp_token_endpoint == "https://idp.example/token"
    assert settings.scope == "mcp:read ${EXTRA_SCOPE}".replace("${EXTRA_SCOPE}", "mcp:write")
    assert settings.authorization_params == {"audience": "api://acme"}
    assert settings.client_name == "Acme Agent"
    assert resolved.sampling is not None
    assert (resolved.sampling.model, resolved.sampling.approval) == ("echo", "ask")
    assert resolved.sampling.allowed_models == ("echo",)
    assert "s3cr3t" not in repr(resolved) and "eyJ" not in repr(resolved)
    # Checked again with the values that will be used.
    with pytest.raises(ConfigError, match=r"oauth.issuer: must be an https URL.*after \$\{"):
        resolve("s", cfg, env={**env, "AS": "http://as.example"}, dotenv={"EXTRA_SCOPE": "x"})
    with pytest.raises(ConfigError, match=r"oauth.grant: must be one of"):
        resolve("s", cfg, env={**env, "GRANT": "password"}, dotenv={"EXTRA_SCOPE": "x"})
    with pytest.raises(ConfigError, match=r"sampling.approval: must be one of auto, ask"):
        resolve("s", cfg, env={**env, "ASK": "sometimes"}, dotenv={"EXTRA_SCOPE": "x"})


def test_expand_one_string() -> None:
    assert expand("${A}-${/}", env={"A": "a"}, dotenv={}) == f"a-{os.sep}"
    with pytest.raises(ValueError, match=r"\$\{B\} is not set"):
        expand("${B}", env={}, dotenv={})


DOTENV = r"""
# comment line
export GITHUB_TOKEN=ghp_abc123
PLAIN = spaced value   # trailing comment
HASH=a#b
EMPTY=
SINGLE='literal $HOME \n # not a comment'
DOUBLE="line1\nline2 \"quoted\" \\ \$"
MULTI="-----BEGIN KEY-----
abc
-----END KEY-----"
not a valid line
export  SPACED_EXPORT=1
WITH.DOT=x
DUP=first
DUP=second
UNTERMINATED="oops
"""


def test_parse_dotenv() -> None:
    assert parse_dotenv(DOTENV) == {
        "GITHUB_TOKEN": "ghp_abc123",
        "PLAIN": "spaced value",
        "HASH": "a#b",
        "EMPTY": "",
        "SINGLE": "literal $HOME \\n # not a comment",
        "DOUBLE": 'line1\nline2 "quoted" \\ $',
        "MULTI": "-----BEGIN KEY-----\nabc\n-----END KEY-----",
        "SPACED_EXPORT": "1",
        "WITH.DOT": "x",
        "DUP": "second",
        "UNTERMINATED": '"oops',
    }


def test_the_one_dotenv_scanner_gives_reader_and_writer_the_same_assignments(
    tmp_path: Path,
) -> None:
    """``parse_dotenv`` (reading) and ``update_dotenv`` (writing in place) share one scanner:
    each assignment's span is where its value is written, and rewriting every key with its
    own value changes nothing else in the file."""
    entries = list(dotenv_entries(DOTENV))
    assert {e.key: e.value for e in entries} == parse_dotenv(DOTENV)
    written = {e.key: DOTENV[e.start : e.end] for e in entries}
    assert written["PLAIN"] == "spaced value"  # the comment and the blanks are outside
    assert written["DOUBLE"] == r'"line1\nline2 \"quoted\" \\ \$"'
    assert written["MULTI"].startswith('"-----BEGIN') and written["MULTI"].endswith('-----"')
    path = tmp_path / ".env"
    path.write_text(DOTENV)
    update_dotenv({"PLAIN": "new", "MULTI": "one\nline", "ADDED": "x"}, path)
    after = path.read_text()
    assert parse_dotenv(after) == {
        **parse_dotenv(DOTENV),
        "PLAIN": "new",
        "MULTI": "one\nline",
        "ADDED": "x",
    }
    assert "PLAIN = new   # trailing comment" in after
    # Everything else stays byte for byte.
    assert after.split("PLAIN")[0] == DOTENV.split("PLAIN")[0]
    assert "HASH=" + DOTENV.split("HASH=")[1].split("MULTI=")[0] + "MULTI=" in after
    assert after.endswith(DOTENV.split('-----END KEY-----"')[1] + "ADDED=x\n")


def test_parse_dotenv_crlf_and_no_expansion() -> None:
    assert parse_dotenv("A=1\r\nB=${A}\r\n") == {"A": "1", "B": "${A}"}


def test_load_dotenv_from_hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    assert load_dotenv() == {}
    (tmp_path / ".env").write_text("TOKEN=from-dotenv\n")
    assert load_dotenv() == {"TOKEN": "from-dotenv"}
    (tmp_path / "config.yaml").write_text(
        'mcp_servers:\n  gh:\n    command: npx\n    env: {GITHUB_TOKEN: "${TOKEN}"}\n'
    )
    cfg = load_config().config.mcp_servers["gh"]
    resolved = resolve("gh", cfg, env={}, dotenv=load_dotenv())
    assert resolved.env == {"GITHUB_TOKEN": "from-dotenv"}


@pytest.mark.parametrize(
    ("text", "env", "dotenv", "expected"),
    [
        ("${LEVEL:-info}", {}, {}, "info"),
        ("${LEVEL:-info}", {"LEVEL": ""}, {}, "info"),  # empty counts as unset, as in a shell
        ("${LEVEL:-info}", {"LEVEL": "debug"}, {}, "debug"),
        ("${LEVEL:-info}", {}, {"LEVEL": "warn"}, "warn"),
        ("${env:LEVEL:-x y}", {}, {}, "x y"),
        ("${LEVEL:-}", {}, {}, ""),
        ("${BASE:-https://api.example.com}/v1", {}, {}, "https://api.example.com/v1"),
        ("${A:-$HOME}", {"HOME": "/h"}, {}, "$HOME"),  # the default is taken literally
    ],
)
def test_defaults(text: str, env: dict[str, str], dotenv: dict[str, str], expected: str) -> None:
    assert expand(text, env=env, dotenv=dotenv) == expected


def test_cwd_is_expanded_and_must_be_absolute(tmp_path: Path) -> None:
    cfg = server(command="srv", cwd="${workspaceFolder}/data")
    resolved = resolve("s", cfg, env={}, dotenv={}, workspace=tmp_path)
    assert resolved.cwd == f"{tmp_path}/data"
    home = resolve("s", server(command="srv", cwd="~/x"), env={}, dotenv={})
    assert home.cwd == os.path.expanduser("~/x")
    with pytest.raises(ConfigError, match=r"mcp_servers\.s\.cwd: must be an absolute folder"):
        resolve("s", server(command="srv", cwd="relative/dir"), env={}, dotenv={})


def test_cwd_on_an_http_server_is_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("mcp_servers:\n  r:\n    url: https://r.example/mcp\n    cwd: /tmp\n")
    loaded = load_config(path)
    assert [str(w) for w in loaded.warnings] == [
        f"{path}:4: mcp_servers.r.cwd: only applies to stdio servers; ignored for this HTTP server"
    ]
