"""Each client's documented format, read from a fixture and translated to Hermes' entries."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from hermes_core.config import expand
from hermes_core.importing.dotenv_update import update_dotenv
from hermes_core.importing.model import SourceError
from hermes_core.importing.plan import ImportPlan, UnknownNames, build_plan
from hermes_core.importing.sources import SOURCES, read_servers
from hermes_core.importing.variables import DIALECTS, Untranslatable, to_hermes

FIXTURES = Path(__file__).with_name("import_fixtures")


def plan_of(source: str, fixture: str, **kwargs: object) -> ImportPlan:
    servers, files = read_servers(
        SOURCES[source], paths=[FIXTURES / fixture], cwd=Path("/work/app"), environ={}
    )
    assert files == [FIXTURES / fixture]
    options: dict[str, object] = {"existing": {}, "environ": {}, "dotenv": {}, **kwargs}
    return build_plan(servers, **options)  # type: ignore[arg-type]


def entries(plan: ImportPlan) -> dict[str, object]:
    return {p.item.name: p.item.entry for p in plan.items}


def skipped(plan: ImportPlan, name: str) -> list[str]:
    (item,) = [p.item for p in plan.items if p.item.name == name]
    return [str(skip) for skip in item.skipped]


def test_claude_code_user_file_with_local_project_entries() -> None:
    plan = plan_of("claude-code", "claude.json")
    got = entries(plan)
    assert got["github"] == {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_PERSONAL_ACCESS_TOKEN}"},
    }
    assert plan.secrets() == {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_FIXTURE_NOT_A_REAL_TOKEN_0001"}
    assert got["sentry"] == {"url": "https://mcp.sentry.dev/mcp"}
    assert got["internal-api"] == {
        "url": "${API_BASE_URL:-https://api.example.com}/sse",
        "transport": "sse",
        "headers": {"Authorization": "Bearer ${API_KEY}", "X-Team": "platform"},
    }
    assert got["figma"] == {
        "url": "https://mcp.figma.com/mcp",
        "auth": "oauth",
        "oauth": {"client_id": "figma-client-123", "redirect_port": 8080},
    }
    assert got["ide"] is None
    assert "the 'ws-ide' transport is not one Hermes supports" in skipped(plan, "ide")[0]
    assert skipped(plan, "signed")[0].startswith("headersHelper: Hermes does not run")
    # Local scope: the entry for /work/app, not the one for /elsewhere.
    assert got["postgres"] == {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-postgres", "${DATABASE_URL}"],
    }
    assert "other" not in got
    oauth_notes = next(p.item.notes for p in plan.items if p.item.name == "figma")
    assert "uses OAuth: log in once with `hermes mcp login figma`" in oauth_notes


def test_claude_code_project_file_and_defaults() -> None:
    got = entries(plan_of("claude-code", "mcp.json"))
    assert got["everything"] == {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-everything"],
        "env": {"LOG_LEVEL": "${LOG_LEVEL:-info}", "HOME_DIR": "${HOME}"},
    }
    assert got["github"] == {
        "url": "https://api.githubcopilot.com/mcp/",
        "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"},
    }


def test_claude_desktop_values_are_literal() -> None:
    plan = plan_of("claude-desktop", "claude_desktop_config.json")
    got = entries(plan)
    assert got["brave-search"] == {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-brave-search"],
        "env": {"BRAVE_API_KEY": "${BRAVE_API_KEY}"},
    }
    assert plan.secrets() == {"BRAVE_API_KEY": "BSA_FIXTURE_KEY_0002"}
    # Claude Desktop does not expand ${…}: Hermes must pass the same text.
    literal = got["literal"]
    assert isinstance(literal, dict)
    assert literal["args"][1] == "price is $${PRICE}"
    assert expand(literal["args"][1], env={"PRICE": "9"}, dotenv={}) == "price is ${PRICE}"


def test_cursor_comments_env_prefix_context_and_auth() -> None:
    plan = plan_of("cursor", "cursor.json")
    got = entries(plan)
    assert got["notes"] == {
        "command": "${userHome}/bin/notes-mcp",
        "args": ["--root", "${workspaceFolder}/notes"],
        "env": {"NOTES_TOKEN": "${NOTES_TOKEN}", "MODE": "fast"},
    }
    assert skipped(plan, "notes") == [
        "envFile: Hermes reads variables from $HERMES_HOME/.env; copy them there"
    ]
    assert got["linear"] == {
        "url": "https://mcp.linear.app/mcp",
        "headers": {"Authorization": "Bearer ${LINEAR_API_KEY}"},
    }
    assert got["oauth-app"] == {
        "url": "https://mcp.example.com/mcp",
        "auth": "oauth",
        "oauth": {
            "client_id": "${APP_CLIENT_ID}",
            "client_secret": "${OAUTH_APP_CLIENT_SECRET}",
            "scope": "read write",
        },
    }
    assert plan.secrets() == {"OAUTH_APP_CLIENT_SECRET": "cs_FIXTURE_0003"}
    assert got["bad-variable"] is None
    assert skipped(plan, "bad-variable") == [
        "args[0]: '${config:editor.fontSize}' is not a variable Hermes can expand; "
        "the server is not imported"
    ]


def test_vscode_inputs_types_cwd_and_dev() -> None:
    plan = plan_of("vscode", "vscode.json")
    got = entries(plan)
    assert got["perplexity"] == {
        "command": "npx",
        "args": ["-y", "server-perplexity-ask"],
        "env": {"PERPLEXITY_API_KEY": "${PERPLEXITY_KEY}", "REGION": "${REGION}"},
        "cwd": "${workspaceFolder}/tools",
    }
    (perplexity,) = [p.item for p in plan.items if p.item.name == "perplexity"]
    assert {v: (s.id, s.password, s.default) for v, s in perplexity.inputs.items()} == {
        "PERPLEXITY_KEY": ("perplexity-key", True, None),
        "REGION": ("region", False, "eu"),
    }
    assert got["github"] == {"url": "https://api.githubcopilot.com/mcp/"}
    assert got["legacy"] == {
        "url": "http://localhost:3001/sse",
        "transport": "sse",
        "headers": {"X-Api-Key": "${LEGACY_KEY}"},
    }
    # A relative cwd is taken from the project folder holding .vscode/.
    dev = got["dev-server"]
    assert isinstance(dev, dict)
    assert dev["cwd"] == str(FIXTURES / "server")
    assert "dev: VS Code's watch/debug mode has no Hermes equivalent" in skipped(plan, "dev-server")


def test_vscode_user_settings_block(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(
        '{"editor.fontSize": 14, // comment\n "mcp": {"inputs": [{"id": "k", "password": true}],'
        ' "servers": {"s": {"type": "stdio", "command": "srv", "env": {"K": "${input:k}"}}}}}'
    )
    servers, _ = read_servers(SOURCES["vscode"], paths=[settings], environ={})
    plan = build_plan(servers, existing={}, environ={}, dotenv={})
    assert entries(plan) == {"s": {"command": "srv", "env": {"K": "${K}"}}}
    assert plan.items[0].item.inputs["K"].password is True
    assert plan.items[0].item.source.key == "mcp.servers.s"


def test_codex_toml() -> None:
    plan = plan_of("codex", "codex.toml")
    got = entries(plan)
    assert got["context7"] == {
        "command": "npx",
        "args": ["-y", "@upstash/context7-mcp"],
        "env": {
            "LOG": "debug",
            "PRICE": "$${NOT_EXPANDED}",
            "CONTEXT7_API_KEY": "${CONTEXT7_API_KEY:-}",
        },
        "cwd": "/srv/context7",
        "connect_timeout": 20,
        "timeout": 45.5,
        # disabled_tools wins in Codex: taken out of the allow list.
        "tools": {"include": ["resolve-library-id", "get-library-docs"]},
    }
    assert got["figma"] == {
        "url": "https://mcp.figma.com/mcp",
        "headers": {
            "X-Figma-Region": "us-east-1",
            "X-Org": "${FIGMA_ORG}",
            "Authorization": "Bearer ${FIGMA_OAUTH_TOKEN}",
        },
    }
    assert skipped(plan, "figma")[0].startswith("required: Hermes never refuses to start")
    assert got["notion"] == {
        "url": "https://mcp.notion.com/mcp",
        "enabled": False,
        "auth": "oauth",
        "oauth": {"scope": "read write"},
    }
    assert skipped(plan, "notion") == [
        "oauth_resource: Hermes sends the server's URL as the resource indicator"
    ]


def test_gemini_settings() -> None:
    plan = plan_of("gemini", "gemini.json")
    got = entries(plan)
    assert got["pythonTools"] == {
        "command": "python",
        "args": ["-m", "my_mcp_server", "--port", "8080"],
        "env": {"DATABASE_URL": "${DB_CONNECTION_STRING}", "API_KEY": "${EXTERNAL_API_KEY}"},
        "cwd": str(FIXTURES / "mcp-servers" / "python"),
        "timeout": 15,
        "tools": {"include": ["safe_tool", "file_reader"]},
    }
    assert "trust: Hermes has no confirmation bypass for a server's tools" in skipped(
        plan, "pythonTools"
    )
    assert got["httpServer"] == {
        "url": "https://api.example.com/mcp",
        "headers": {"Authorization": "Bearer ${API_TOKEN}"},
        "timeout": 5,
    }
    assert got["sseServer"] == {"url": "http://localhost:8081/events", "transport": "sse"}
    assert got["googleCloud"] == {"url": "https://my-gcp-service.run.app/mcp"}
    assert got["discovered"] == {
        "url": "https://oauth.example.com/sse",
        "transport": "sse",
        "auth": "oauth",
        "oauth": {
            "client_id": "gem-client",
            "client_secret": "${DISCOVERED_CLIENT_SECRET}",
            "scope": "mcp",
        },
    }


def test_windsurf() -> None:
    plan = plan_of("windsurf", "windsurf.json")
    got = entries(plan)
    assert got["github"] == {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
        "tools": {"exclude": ["delete_repository"]},
    }
    assert got["remote"] == {
        "url": "https://remote.example.com/mcp",
        "headers": {"API_KEY": "${REMOTE_KEY}"},
    }
    assert got["off"] == {"command": "unused-server", "enabled": False}
    assert got["from-file"] == {"command": "server"}
    assert skipped(plan, "from-file") == [
        "env.TOKEN: '${file:/run/secrets/token}' is not a variable Hermes can expand"
    ]


def test_existing_names_kept_overwrite_replaces_and_prefix_clash() -> None:
    existing = {"sentry": {"url": "https://old.example/mcp"}, "internal_api": {"command": "x"}}
    plan = plan_of("claude-code", "claude.json", existing=existing)
    actions = {p.item.name: p.action for p in plan.items}
    assert actions["sentry"] == "keep"
    assert any("'internal-api' and 'internal_api' share the tool prefix" in c for c in plan.clashes)
    plan = plan_of("claude-code", "claude.json", existing=existing, overwrite=True)
    assert {p.item.name: p.action for p in plan.items}["sentry"] == "replace"


def test_only_selects_and_unknown_names_are_listed() -> None:
    plan = plan_of("claude-code", "mcp.json", only=["github"])
    assert [p.item.name for p in plan.items] == ["github"]
    with pytest.raises(
        UnknownNames, match=r"no server named 'gihtub' \(found: everything, github\)"
    ):
        plan_of("claude-code", "mcp.json", only=["gihtub"])


def test_a_secret_name_taken_by_another_value_gets_the_server_prefix() -> None:
    plan = plan_of(
        "claude-desktop",
        "claude_desktop_config.json",
        environ={"BRAVE_API_KEY": "something-else"},
    )
    assert entries(plan)["brave-search"] == {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-brave-search"],
        "env": {"BRAVE_API_KEY": "${BRAVE_SEARCH_BRAVE_API_KEY}"},
    }


def test_strict_json_clients_reject_comments(tmp_path: Path) -> None:
    bad = tmp_path / ".mcp.json"
    bad.write_text('{\n  // no\n  "mcpServers": {}\n}\n')
    with pytest.raises(SourceError, match=r"\.mcp\.json:2: not valid JSON .*does not accept"):
        read_servers(SOURCES["claude-code"], paths=[bad])
    toml = tmp_path / "config.toml"
    toml.write_text("[mcp_servers.x\n")
    with pytest.raises(SourceError, match=r"config\.toml: not valid TOML"):
        read_servers(SOURCES["codex"], paths=[toml])


def test_default_paths_per_os(tmp_path: Path) -> None:
    env = {"HOME": "/home/ada", "APPDATA": "C:/Users/ada/AppData/Roaming"}
    cwd = Path("/work/app")

    def paths(source: str, platform: str) -> list[str]:
        return [str(f.path) for f in SOURCES[source].files(env, cwd, platform)]

    assert paths("claude-desktop", "darwin") == [
        "/home/ada/Library/Application Support/Claude/claude_desktop_config.json"
    ]
    assert paths("claude-desktop", "win32") == [
        str(Path("C:/Users/ada/AppData/Roaming") / "Claude" / "claude_desktop_config.json")
    ]
    assert paths("claude-desktop", "linux") == [
        "/home/ada/.config/Claude/claude_desktop_config.json"
    ]
    assert paths("claude-code", "linux") == ["/home/ada/.claude.json", "/work/app/.mcp.json"]
    assert paths("cursor", "linux") == ["/home/ada/.cursor/mcp.json", "/work/app/.cursor/mcp.json"]
    assert paths("vscode", "darwin")[2] == "/work/app/.vscode/mcp.json"
    assert paths("vscode", "linux")[:2] == [
        "/home/ada/.config/Code/User/settings.json",
        "/home/ada/.config/Code/User/mcp.json",
    ]
    assert paths("codex", "linux") == [
        "/home/ada/.codex/config.toml",
        "/work/app/.codex/config.toml",
    ]
    assert paths("gemini", "linux")[1] == "/work/app/.gemini/settings.json"
    assert paths("windsurf", "win32") == ["/home/ada/.codeium/windsurf/mcp_config.json"]


@pytest.mark.parametrize(
    ("dialect", "text", "expected"),
    [
        ("claude-code", "${A}-${B:-x y}", "${A}-${B:-x y}"),
        ("claude-code", "${userHome}", "${env:userHome}"),
        ("cursor", "${env:A}/${workspaceFolderBasename}", "${A}/${workspaceFolderBasename}"),
        ("vscode", "${input:api-key}", "${API_KEY}"),
        ("gemini", "$HOME/x${Y}", "${HOME}/x${Y}"),
        ("codex", "a${B}c$${D}", "a$${B}c$$${D}"),
        ("windsurf", "${env:T}", "${T}"),
    ],
)
def test_variable_forms(dialect: str, text: str, expected: str) -> None:
    assert to_hermes(text, DIALECTS[dialect]) == expected


def test_untranslatable_forms() -> None:
    with pytest.raises(Untranslatable, match="no \\$\\{VAR:-default\\} form"):
        to_hermes("${A:-b}", DIALECTS["gemini"])
    with pytest.raises(Untranslatable, match="command:x"):
        to_hermes("${command:x}", DIALECTS["vscode"])


def test_dotenv_update_is_atomic_private_and_keeps_other_lines(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text("# my secrets\nexport KEEP='x y'  \nCHANGE=old # note\n\nMULTI=\"a\nb\"\n")
    os.chmod(path, 0o644)
    written = update_dotenv(path, {"CHANGE": "new value$", "NEW": "v", "KEEP": "x y"})
    assert written == ["CHANGE", "NEW"]
    assert path.read_text() == (
        '# my secrets\nexport KEEP=\'x y\'  \nCHANGE="new value\\$" # note\n\nMULTI="a\nb"\nNEW=v\n'
    )
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    from hermes_core.config import parse_dotenv

    assert parse_dotenv(path.read_text())["CHANGE"] == "new value$"
    # A quoted value spanning lines is replaced whole; nothing else moves.
    assert update_dotenv(path, {"MULTI": "c"}) == ["MULTI"]
    assert path.read_text().endswith("\n\nMULTI=c\nNEW=v\n")


def test_claude_code_precedence_and_per_project_switches(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "app"
    home.mkdir()
    project.mkdir()
    (home / ".claude.json").write_text(
        json.dumps(
            {
                "mcpServers": {"github": {"command": "user-github"}},
                "projects": {
                    str(project): {
                        "mcpServers": {"db": {"command": "local-db"}},
                        "disabledMcpjsonServers": ["risky"],
                        "disabledMcpServers": ["github"],
                    }
                },
            }
        )
    )
    (project / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "db": {"command": "project-db"},
                    "risky": {"command": "risky"},
                    "github": {"command": "project-github"},
                }
            }
        )
    )
    servers, files = read_servers(SOURCES["claude-code"], environ={"HOME": str(home)}, cwd=project)
    assert files == [home / ".claude.json", project / ".mcp.json"]
    plan = build_plan(servers, existing={}, environ={}, dotenv={})
    written = {p.item.name: p.item.entry for p in plan.to_write()}
    # local (projects.<folder>) > project (.mcp.json) > user (mcpServers); but a .mcp.json
    # server the user never approved (not in enabledMcpjsonServers) comes last: it never
    # replaces the user's own entry of its name (issue 27, item 2).
    assert written == {
        "github": {"command": "user-github", "enabled": False},
        "risky": {"command": "risky", "enabled": False},
        "db": {"command": "local-db"},
    }
    shadowed = {p.item.source.origin for p in plan.items if p.action == "shadowed"}
    assert shadowed == {
        f"{project / '.mcp.json'}: mcpServers.github",
        f"{project / '.mcp.json'}: mcpServers.db",
    }
    (risky,) = [p.item for p in plan.items if p.item.name == "risky"]
    assert "imported disabled: declined in Claude Code for this project" in risky.notes
