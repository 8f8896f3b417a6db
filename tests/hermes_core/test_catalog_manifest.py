"""Catalog manifests: the schema, its errors (file:line), the shipped entries, selection, suggest,
and the ``.env`` writer."""

from __future__ import annotations

import os
import stat
import textwrap
from pathlib import Path

import pytest

from hermes_core.catalog.catalog import Entry, load_catalog, state_of
from hermes_core.catalog.manifest import FutureManifest, ManifestError, parse_manifest
from hermes_core.catalog.selection import (
    excluded_filter,
    filter_for_choice,
    filter_without_probe,
    prechecked,
    prior_filter,
    with_tools,
)
from hermes_core.catalog.suggest import suggestions
from hermes_core.config.dotenv_file import update_dotenv
from hermes_core.config.interpolate import load_dotenv
from hermes_core.config.loader import parse_config_text
from hermes_core.plugins.manager import HermesPluginManager

MINIMAL = """\
manifest_version: 1
name: notes
description: Notes
transport:
  command: notes-mcp
"""


def parsed(text: str, path: str = "notes.yaml") -> Entry:
    result = parse_manifest(textwrap.dedent(text), path)
    assert not isinstance(result, FutureManifest)
    return Entry(result.manifest.name, "test", path, result.manifest, result.declaration)


def error_of(text: str) -> str:
    with pytest.raises(ManifestError) as caught:
        parse_manifest(textwrap.dedent(text), "notes.yaml")
    return str(caught.value)


def test_a_minimal_manifest() -> None:
    entry = parsed(MINIMAL)
    assert entry.manifest is not None
    assert entry.manifest.transport.kind == "stdio"
    assert entry.manifest.auth.keys == [] and entry.manifest.auth.oauth is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (MINIMAL + "sugest: {keywords: [x]}\n", "notes.yaml:6: sugest: is not a manifest key"),
        (
            MINIMAL.replace("  command: notes-mcp", "  command: notes-mcp\n  args: nope"),
            "notes.yaml:6: transport.args: must be a list",
        ),
        (
            MINIMAL + "tools:\n  default_enabled: [a]\n  default_excluded: [b]\n",
            "notes.yaml:6: tools: give default_enabled or default_excluded, not both",
        ),
        (
            MINIMAL.replace("notes-mcp", "${INSTALL_DIR}/bin/notes"),
            "transport uses ${INSTALL_DIR} but the entry has no source or install.bootstrap",
        ),
        (
            MINIMAL + "auth:\n  keys: [{name: NOTES_TOKEN}]\n",
            "auth key NOTES_TOKEN is not used by the transport",
        ),
        (MINIMAL.replace("name: notes", "name: ../x"), "notes.yaml:2: name: must be letters"),
        (
            MINIMAL.replace("manifest_version: 1", "manifest_version: '1.0'"),
            "notes.yaml:1: manifest_version: must be a whole number (this Hermes reads 1)",
        ),
        (
            MINIMAL + "source: {git: 'github.com/x/y'}\n",
            "notes.yaml:6: source.git: must be a git URL",
        ),
        (
            MINIMAL + "requires: {gpu: amd}\n",
            "notes.yaml:6: requires.gpu: ",
        ),
        ("name: [unclosed\n", "notes.yaml:2: YAML syntax error"),
        (
            "manifest_version: 1\nname: notes\ndescription: x\ntransport:\n  url: ftp://x\n",
            "notes.yaml:4: transport: url must start with https:// or http://",
        ),
    ],
)
def test_bad_manifests_name_the_file_line_and_key(text: str, message: str) -> None:
    assert message in error_of(text)


def test_a_manifest_from_the_future_is_not_an_error() -> None:
    result = parse_manifest("manifest_version: 7\nname: later\nshiny_new_key: 1\n", "later.yaml")
    assert result == FutureManifest("later", 7, "")
    entry = Entry("later", "test", "later.yaml", future=result)
    state = state_of(entry, {})
    assert state.state == "requires a newer Hermes" and not state.offerable
    assert state.detail.startswith("⚠ 'later' requires a newer Hermes")


def test_auth_shorthands() -> None:
    linear = parsed(
        "manifest_version: 1\nname: l\ndescription: d\ntransport: {url: 'https://x/mcp'}\n"
        "auth: oauth\n"
    )
    assert linear.manifest is not None and linear.manifest.auth.oauth == {}


def test_every_shipped_manifest_parses_and_the_catalog_has_its_kinds(
    hermes_pm: HermesPluginManager,
) -> None:
    found = load_catalog(hermes_pm)
    assert found.problems == []
    shipped = {n: e for n, e in found.entries.items() if "(built-in)" in e.origin}
    assert len(shipped) >= 10
    for name in ("filesystem", "memory", "git", "time", "fetch", "sequential-thinking"):
        manifest = shipped[name].manifest
        assert manifest is not None and manifest.transport.kind == "stdio", name
    linear, figma, cloudflare = (shipped[n].manifest for n in ("linear", "figma", "cloudflare"))
    assert linear is not None and linear.auth.oauth == {}
    assert figma is not None and figma.auth.oauth == {"client_name": "Claude Code"}
    assert cloudflare is not None and cloudflare.tools.default_excluded
    from hermes_core.cli.mcp_add import PRESETS

    codex = shipped["codex"].manifest
    assert codex is not None
    assert {"command": codex.transport.command, "args": codex.transport.args} == PRESETS["codex"]
    # Every pinned npm/PyPI package names an exact version (supply chain).
    for entry in shipped.values():
        assert entry.manifest is not None
        for arg in entry.manifest.transport.args:
            if arg.startswith("@") or arg.startswith("mcp-server-"):
                assert "@2" in arg or "==" in arg or arg.count("@") == 2, (entry.name, arg)


def test_prechecked_order_previous_choice_then_default_enabled_then_all() -> None:
    tools = ["find_issues", "get_issue", "create_issue", "delete_workspace"]
    assert prechecked(tools, ["get_*"], None, ["find_issues"]) == {"get_issue"}
    assert prechecked(tools, None, ["delete_*"], ["find_issues"]) == set(tools) - {
        "delete_workspace"
    }
    assert prechecked(tools, None, None, ["find_*", "get_issue"]) == {"find_issues", "get_issue"}
    assert prechecked(tools, None, None, None) == set(tools)


def test_a_choice_becomes_include_or_nothing() -> None:
    tools = ["a", "b", "c"]
    assert filter_for_choice(tools, ["c", "a"]) == {"include": ["a", "c"]}
    assert filter_for_choice(tools, tools) == {"exclude": []}  # "all", as a choice
    assert filter_for_choice(tools, []) == {"include": []}
    assert filter_without_probe(None, None, ["a"]) == {"include": ["a"]}
    assert filter_without_probe(None, ["x"], ["a"]) == {"exclude": ["x"]}
    assert filter_without_probe(None, None, None) == {}
    assert excluded_filter(None, ["mine"], ["*delete*", "mine"]) == {
        "exclude": ["mine", "*delete*"]
    }
    assert excluded_filter(["only"], None, ["*delete*"]) == {"include": ["only"]}
    entry = {"command": "x", "tools": {"include": ["a"], "prompts": False}}
    assert with_tools(entry, {}, {"resources": False}) == {
        "command": "x",
        "tools": {"prompts": False, "resources": False},
    }
    assert with_tools({"command": "x", "tools": {"exclude": ["a"]}}, {}) == {"command": "x"}


def test_all_tools_chosen_is_remembered_apart_from_never_chosen() -> None:
    tools = ["find_issues", "get_issue", "delete_workspace"]
    chosen = filter_for_choice(tools, tools)
    written = with_tools({"command": "x"}, chosen)
    assert written == {"command": "x", "tools": {"exclude": []}}
    # a reinstall (or `configure`) reads it back as "all", not as the manifest's default
    include, exclude = prior_filter(written)
    assert prechecked(tools, include, exclude, ["find_issues"]) == set(tools)
    assert filter_without_probe(include, exclude, ["find_issues"]) == {"exclude": []}
    assert excluded_filter(include, exclude, ["*delete*"]) == {"exclude": []}
    # never chosen: the manifest's default applies
    assert prechecked(tools, *prior_filter({"command": "x"}), ["find_issues"]) == {"find_issues"}


def test_suggest_whole_words_and_host_suffixes() -> None:
    figma = parsed(
        "manifest_version: 1\nname: figma\ndescription: d\ntransport: {url: 'https://x/mcp'}\n"
        "suggest: {keywords: [Figma, design system], hosts: [.figma.com]}\n"
    )
    memory = parsed(
        MINIMAL.replace("name: notes", "name: memory") + "suggest: {keywords: [remember]}\n"
    )
    acme = parsed(MINIMAL.replace("name: notes", "name: acme") + "suggest: {hosts: [acme.dev]}\n")
    entries = [figma, memory, acme]

    def names(text: str) -> list[str]:
        return [s.entry.name for s in suggestions(entries, text)]

    assert names("open this FIGMA file") == ["figma"]
    assert names("figmatic and rememberable") == []
    assert names("our design   system docs") == ["figma"]
    assert names("see https://www.figma.com/file/abc please remember") == ["figma", "memory"]
    assert names("see https://notfigma.com/x") == []
    assert names("https://acme.dev.evil.example/x and acme.dev") == []
    assert names("https://API.acme.dev/v1") == ["acme"]
    assert [s.why for s in suggestions(entries, "https://API.acme.dev/v1")] == [
        "link to api.acme.dev"
    ]


def test_dotenv_updates_in_place_atomically_with_mode_0600(tmp_path: Path) -> None:
    env = tmp_path / ".env"
    original = (
        "# my keys\n"
        "export OTHER=keep me  # a comment\n"
        "\n"
        'TOKEN="old"\n'
        "MULTI='line one\nline two'\n"
    )
    env.write_text(original)
    os.chmod(env, 0o644)
    update_dotenv({"TOKEN": 'n3w$ecret "quoted"', "NEW_KEY": "plain-value"}, env)
    text = env.read_text()
    assert stat.S_IMODE(env.stat().st_mode) == 0o600
    assert text.startswith("# my keys\nexport OTHER=keep me  # a comment\n\n")
    assert "MULTI='line one\nline two'\n" in text
    assert text.endswith("NEW_KEY=plain-value\n")
    values = load_dotenv(env)
    assert values == {
        "OTHER": "keep me",
        "TOKEN": 'n3w$ecret "quoted"',
        "MULTI": "line one\nline two",
        "NEW_KEY": "plain-value",
    }
    update_dotenv({"OTHER": "changed"}, env)
    assert env.read_text().splitlines()[1] == "export OTHER=changed  # a comment"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".env.")] in ([], [".env.lock"])


def test_server_entries_are_valid_config(hermes_pm: HermesPluginManager, tmp_path: Path) -> None:
    from hermes_core.catalog.install import server_entry
    from hermes_core.config.store import add_server

    found = load_catalog(hermes_pm)
    config = tmp_path / "config.yaml"
    for name, entry in found.entries.items():
        assert entry.manifest is not None
        add_server(name, server_entry(entry.manifest, tmp_path / name), path=config)
    loaded = parse_config_text(config.read_text(), str(config))
    figma_oauth = loaded.config.mcp_servers["figma"].oauth
    assert figma_oauth is not None and figma_oauth.client_name == "Claude Code"
    assert loaded.config.mcp_servers["linear"].auth == "oauth"
