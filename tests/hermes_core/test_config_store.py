"""Editing ``config.yaml``: only the entry's lines change, writes are atomic, and a
concurrent edit by another process is never lost."""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hermes_core.config import (
    ConfigConflict,
    ConfigError,
    add_server,
    load_config,
    remove_server,
    set_enabled,
    store,
)
from hermes_core.config.loader import parse_yaml
from hermes_core.yaml_lines import plain

ORIGINAL = textwrap.dedent(
    """\
    # Hermes configuration — hand written
    model:   'anthropic/claude'   # odd spacing kept
    toolsets: [web,terminal]

    mcp_servers:
      # GitHub, read-only
      github:
        command: "npx"
        args: ["-y", '@modelcontextprotocol/server-github']
        env:
          GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}"   # from ~/.hermes/.env
        tools:
          include: [list_issues]

      stripe:
        url: "https://mcp.stripe.com"
        enabled: yes   # on for now
        headers:
          Authorization: "Bearer ***"

    # trailing section
    display:
      theme: ~
    """
)


def write(tmp_path: Path, text: str = ORIGINAL, name: str = "config.yaml") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return path


def changes(old: str, new: str) -> list[tuple[str, list[str], list[str]]]:
    """The line-level differences: (op, old lines, new lines) for each non-equal block."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return [
        (op, a[i1:i2], b[j1:j2]) for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != "equal"
    ]


# --------------------------------------------------------------------------- edits


def test_add_inserts_only_the_new_entry(tmp_path: Path) -> None:
    path = write(tmp_path)
    add_server("codex", {"command": "codex", "args": ["mcp-server"]}, path=path)
    last = '      Authorization: "Bearer ***"\n'
    assert path.read_text() == ORIGINAL.replace(
        last, last + "\n  codex:\n    command: codex\n    args: [mcp-server]\n"
    )
    assert list(load_config(path).config.mcp_servers) == ["github", "stripe", "codex"]


def test_add_writes_a_readable_entry(tmp_path: Path) -> None:
    path = write(tmp_path, "model: x\n")
    entry = {
        "url": "https://mcp.example.com/mcp",
        "headers": {"Authorization": "Bearer ${TOKEN}"},
        "tools": {"exclude": ["*_radar_*", "delete_customer"], "resources": False},
        "timeout": 120,
    }
    add_server("remote", entry, path=path)
    assert path.read_text() == textwrap.dedent(
        """\
        model: x

        mcp_servers:
          remote:
            url: https://mcp.example.com/mcp
            headers:
              Authorization: Bearer ${TOKEN}
            tools:
              exclude: ['*_radar_*', delete_customer]
              resources: false
            timeout: 120
        """
    )
    cfg = load_config(path).config.mcp_servers["remote"]
    assert cfg.headers == {"Authorization": "Bearer ${TOKEN}"}
    assert cfg.tools.exclude == ["*_radar_*", "delete_customer"]


def test_add_writes_list_items_that_look_like_yaml_indicators(tmp_path: Path) -> None:
    # ruamel.yaml writes "?0" plain inside [...], where it reads back as a mapping: such a list
    # is written in block style (before, the edit was refused as "would disturb the file").
    path = write(tmp_path, "model: x\n")
    args = ["?0", "? 0", ": x", "?-", "-0", "a"]
    add_server("odd", {"command": "0", "args": args}, path=path)
    cfg = load_config(path).config.mcp_servers["odd"]
    assert cfg.command == "0" and cfg.args == args
    assert "    args:\n      - ?0\n" in path.read_text()


def test_add_under_an_empty_mcp_servers_key_keeps_its_comments(tmp_path: Path) -> None:
    text = "mcp_servers:   # none yet\n  # example:\n  #   command: x\ntoolsets: 1\n"
    path = write(tmp_path, text)
    add_server("a", {"command": "x"}, path=path)
    assert path.read_text() == (
        "mcp_servers:   # none yet\n  # example:\n  #   command: x\n"
        "  a:\n    command: x\ntoolsets: 1\n"
    )


def test_add_follows_the_file_indentation(tmp_path: Path) -> None:
    path = write(tmp_path, "mcp_servers:\n    a:\n        command: x\n")
    add_server("b", {"command": "y", "env": {"K": "v"}}, path=path)
    assert path.read_text() == (
        "mcp_servers:\n    a:\n        command: x\n"
        "    b:\n        command: y\n        env:\n            K: v\n"
    )


def test_add_refuses_an_existing_name_and_replace_keeps_the_position(tmp_path: Path) -> None:
    path = write(tmp_path)
    with pytest.raises(ConfigError) as info:
        add_server("github", {"command": "x"}, path=path)
    assert (
        str(info.value)
        == f"{path}: mcp_servers.github: already exists (remove it first, or replace it)"
    )
    assert path.read_text() == ORIGINAL
    add_server("github", {"command": "uvx", "args": ["gh-mcp"]}, path=path, replace=True)
    lines = ORIGINAL.splitlines(keepends=True)
    assert path.read_text() == (
        "".join(lines[:6])
        + "  github:\n    command: uvx\n    args: [gh-mcp]\n"
        + "".join(lines[13:])
    )
    assert list(load_config(path).config.mcp_servers) == ["github", "stripe"]


def test_add_validates_before_writing(tmp_path: Path) -> None:
    path = write(tmp_path)
    with pytest.raises(ConfigError) as info:
        add_server("broken", {"command": "x", "timeout": "soon"}, path=path)
    assert str(info.value) == (
        f"{path}: mcp_servers.broken.timeout: must be a number of seconds (got text)"
    )
    with pytest.raises(ConfigError, match="server names start with a letter"):
        add_server("../evil", {"command": "x"}, path=path)
    assert path.read_text() == ORIGINAL
    with pytest.raises(ConfigError, match=r"mcp_servers\.odd\.colour: unknown key; the keys"):
        add_server("odd", {"command": "x", "colour": "blue"}, path=path)
    assert path.read_text() == ORIGINAL


def test_remove_deletes_only_the_entry_and_its_header_comment(tmp_path: Path) -> None:
    path = write(tmp_path)
    remove_server("github", path=path)
    lines = ORIGINAL.splitlines(keepends=True)
    assert changes(ORIGINAL, path.read_text()) == [("delete", lines[5:14], [])]
    remove_server("stripe", path=path)
    assert path.read_text() == (
        "# Hermes configuration — hand written\n"
        "model:   'anthropic/claude'   # odd spacing kept\n"
        "toolsets: [web,terminal]\n"
        "\n"
        "mcp_servers:\n"
        "\n"
        "# trailing section\n"
        "display:\n"
        "  theme: ~\n"
    )
    assert load_config(path).config.mcp_servers == {}
    with pytest.raises(ConfigError) as info:
        remove_server("stripe", path=path)
    assert str(info.value) == f"{path}: mcp_servers.stripe: is not configured"


def test_set_enabled_changes_one_token_or_adds_one_line(tmp_path: Path) -> None:
    path = write(tmp_path)
    assert set_enabled("stripe", False, path=path) is True
    assert changes(ORIGINAL, path.read_text()) == [
        ("replace", ["    enabled: yes   # on for now\n"], ["    enabled: false   # on for now\n"])
    ]
    before = path.read_text()
    assert set_enabled("github", False, path=path) is True
    assert changes(before, path.read_text()) == [("insert", [], ["    enabled: false\n"])]
    assert path.read_text().index("    enabled: false\n") > path.read_text().index("list_issues")
    servers = load_config(path).config.mcp_servers
    assert not servers["github"].enabled and not servers["stripe"].enabled
    assert set_enabled("github", True, path=path) is True
    assert servers["github"].tools.include == ["list_issues"]
    assert load_config(path).config.mcp_servers["github"].enabled


def test_set_enabled_without_change_does_not_write(tmp_path: Path) -> None:
    path = write(tmp_path)
    os.utime(path, (1_000_000, 1_000_000))
    assert set_enabled("stripe", True, path=path) is False  # 'yes' already means on
    assert set_enabled("github", True, path=path) is False  # absent means on
    assert path.stat().st_mtime == 1_000_000 and path.read_text() == ORIGINAL
    with pytest.raises(ConfigError, match=r"mcp_servers\.nope: is not configured"):
        set_enabled("nope", False, path=path)


def test_crlf_files_stay_crlf(tmp_path: Path) -> None:
    original = ORIGINAL.replace("\n", "\r\n")
    path = write(tmp_path, original)
    add_server("codex", {"command": "codex"}, path=path)
    set_enabled("github", False, path=path)
    remove_server("stripe", path=path)
    data = path.read_bytes()
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert data.startswith(original.split("mcp_servers:")[0].encode())
    servers = load_config(path).config.mcp_servers
    assert list(servers) == ["github", "codex"] and not servers["github"].enabled


def test_flow_style_servers_fall_back_to_a_round_trip(tmp_path: Path) -> None:
    text = "# top comment\nmcp_servers: {a: {command: x}}  # inline\ntoolsets: [1, 2]\n"
    path = write(tmp_path, text)
    add_server("b", {"url": "https://b.example"}, path=path)
    new = path.read_text()
    assert new.startswith("# top comment\n")
    assert "# inline" in new
    config = load_config(path).config
    assert list(config.mcp_servers) == ["a", "b"]
    assert config.model_extra == {"toolsets": [1, 2]}


def test_a_broken_file_is_never_overwritten(tmp_path: Path) -> None:
    text = "mcp_servers:\n  a:\n    command: x\n   bad: [\n"
    path = write(tmp_path, text)
    with pytest.raises(ConfigError, match=r":4: YAML syntax error"):
        add_server("b", {"command": "y"}, path=path)
    assert path.read_text() == text


def test_writes_go_through_a_symlinked_config(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    real = write(dotfiles)
    home = tmp_path / "home"
    home.mkdir()
    link = home / "config.yaml"
    link.symlink_to(real)
    set_enabled("github", False, path=link)
    assert link.is_symlink()
    assert not load_config(real).config.mcp_servers["github"].enabled


# --------------------------------------------------------------------------- files


def test_new_home_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "fresh" / ".hermes"
    monkeypatch.setenv("HERMES_HOME", str(home))
    add_server("fs", {"command": "npx", "args": ["-y", "server-filesystem", "/tmp"]})
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    assert stat.S_IMODE((home / "config.yaml").stat().st_mode) == 0o600
    assert (home / "config.yaml").read_text() == (
        "mcp_servers:\n  fs:\n    command: npx\n    args: [-y, server-filesystem, /tmp]\n"
    )
    assert list(load_config().config.mcp_servers) == ["fs"]


def test_file_mode_is_preserved(tmp_path: Path) -> None:
    path = write(tmp_path)
    path.chmod(0o640)
    set_enabled("github", False, path=path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    path.chmod(0o600)
    remove_server("github", path=path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_failed_replace_leaves_the_old_file_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path)

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    # A clear error naming the file (the CLI prints it, exit 2), never a bare OSError.
    with pytest.raises(ConfigError, match=r"config\.yaml: cannot write the file: No space left"):
        add_server("codex", {"command": "codex"}, path=path)
    assert path.read_text() == ORIGINAL
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.yaml", "config.yaml.lock"]


@pytest.mark.process
def test_a_crash_between_temp_write_and_replace_leaves_the_old_file(tmp_path: Path) -> None:
    path = write(tmp_path)
    script = textwrap.dedent(
        f"""
        import os
        from hermes_core.config import add_server

        def crash(src, dst):
            os._exit(17)  # the process dies right before the rename

        os.replace = crash
        add_server("codex", {{"command": "codex"}}, path={str(path)!r})
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert result.returncode == 17, result.stderr.decode()
    assert path.read_text() == ORIGINAL
    (leftover,) = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert "codex" in leftover.read_text()  # the new content was written, never renamed
    assert list(load_config(path).config.mcp_servers) == ["github", "stripe"]


# --------------------------------------------------------------------------- concurrency


def run_python(script: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)], capture_output=True, timeout=60
    )
    assert result.returncode == 0, result.stderr.decode()


def edit_before_commit(monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    """Run *script* in another process after our edit was planned, before it is written."""
    original = store.locked
    done: list[bool] = []

    @contextlib.contextmanager
    def interleaved(target: Path, label: str) -> Iterator[None]:
        if not done:
            done.append(True)
            run_python(script)
        with original(target, label):
            yield

    monkeypatch.setattr(store, "locked", interleaved)


@pytest.mark.process
def test_concurrent_add_by_another_process_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path)
    edit_before_commit(
        monkeypatch,
        f"""
        from hermes_core.config import add_server
        add_server("other", {{"url": "https://other.example"}}, path={str(path)!r})
        """,
    )
    add_server("mine", {"command": "mine"}, path=path)
    servers = load_config(path).config.mcp_servers
    assert list(servers) == ["github", "stripe", "other", "mine"]
    assert path.read_text().startswith(ORIGINAL.split("# trailing section")[0].rstrip("\n"))


@pytest.mark.process
def test_concurrent_hand_edit_elsewhere_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path)
    edit_before_commit(
        monkeypatch,
        f"""
        with open({str(path)!r}, "a") as fh:
            fh.write("log_level: debug   # added by hand\\n")
        """,
    )
    set_enabled("github", False, path=path)
    text = path.read_text()
    assert text.endswith("log_level: debug   # added by hand\n")
    assert changes(ORIGINAL + "log_level: debug   # added by hand\n", text) == [
        ("insert", [], ["    enabled: false\n"])
    ]


@pytest.mark.process
def test_concurrent_edit_of_the_same_server_is_a_conflict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path)
    edit_before_commit(
        monkeypatch,
        f"""
        from pathlib import Path
        p = Path({str(path)!r})
        p.write_text(p.read_text().replace('url: "https://mcp.stripe.com"',
                                           'url: "https://mcp.stripe.com/v2"'))
        """,
    )
    with pytest.raises(ConfigConflict) as info:
        remove_server("stripe", path=path)
    assert str(info.value) == (
        f"{path}: mcp_servers.stripe: was changed by another program while this edit was being "
        "made; nothing was written (run the command again)"
    )
    assert load_config(path).config.mcp_servers["stripe"].url == "https://mcp.stripe.com/v2"


@pytest.mark.process
def test_many_processes_adding_at_once_lose_nothing(tmp_path: Path) -> None:
    path = write(tmp_path)
    go = tmp_path / "go"
    script = textwrap.dedent(
        """
        import sys, time
        from pathlib import Path
        from hermes_core.config import add_server
        worker, path, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
        (go.parent / f"ready-{worker}").touch()  # imported: ready to contend
        while not go.exists():
            time.sleep(0.005)
        for n in range(3):
            add_server(f"w{worker}-{n}", {"command": "x", "args": [worker]}, path=path)
        """
    )
    workers = [
        subprocess.Popen([sys.executable, "-c", script, str(i), str(path), str(go)])
        for i in range(6)
    ]
    ready = [tmp_path / f"ready-{i}" for i in range(6)]
    deadline = time.monotonic() + 120
    while not all(r.exists() for r in ready):  # every worker imported, so they really race
        assert time.monotonic() < deadline and all(w.poll() is None for w in workers)
        time.sleep(0.01)
    go.touch()
    assert all(w.wait(timeout=120) == 0 for w in workers)
    servers = load_config(path).config.mcp_servers
    expected = {f"w{i}-{n}" for i in range(6) for n in range(3)} | {"github", "stripe"}
    assert set(servers) == expected
    assert path.read_text().startswith(ORIGINAL.split("# trailing section")[0].rstrip("\n"))
    assert "# trailing section\ndisplay:\n  theme: ~\n" in path.read_text()


# --------------------------------------------------------------------------- property

_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\0"),
    max_size=12,
) | st.sampled_from(["yes", "~", "null", "*x", "#c", "a: b", "${TOKEN}", "'q'", '"d"', " pad "])
_NAMES = st.sampled_from(["github", "stripe", "new-one", "x.y", "z_9"])
_ENTRY = st.fixed_dictionaries(
    {"command": _TEXT.filter(lambda t: bool(t.strip()))},
    optional={
        "args": st.lists(_TEXT, max_size=3),
        "env": st.dictionaries(
            st.from_regex(r"[A-Z_][A-Z0-9_]{0,6}", fullmatch=True), _TEXT, max_size=2
        ),
        "enabled": st.booleans(),
        "timeout": st.integers(min_value=1, max_value=999),
    },
)
_OPS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), _NAMES, _ENTRY),
        st.tuples(st.just("remove"), _NAMES, st.none()),
        st.tuples(st.just("enable"), _NAMES, st.booleans()),
    ),
    max_size=6,
)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(ops=_OPS)
@example(ops=[("add", "new-one", {"command": "0", "args": ["?0"]})])  # found by Hypothesis
def test_any_edit_sequence_keeps_the_rest_of_the_file(ops: list[tuple[str, str, Any]]) -> None:
    head = ORIGINAL.split("mcp_servers:")[0]
    tail = "# trailing section\ndisplay:\n  theme: ~\n"
    model: dict[str, Any] = {
        name: dict(entry) for name, entry in plain(parse_yaml(ORIGINAL, "x"))["mcp_servers"].items()
    }
    with tempfile.TemporaryDirectory() as directory:
        path = write(Path(directory))
        for op, name, arg in ops:
            if op == "add":
                if name in model:
                    with pytest.raises(ConfigError, match="already exists"):
                        add_server(name, arg, path=path)
                else:
                    add_server(name, arg, path=path)
                    model[name] = dict(arg)
            elif op == "remove":
                if name in model:
                    remove_server(name, path=path)
                    del model[name]
                else:
                    with pytest.raises(ConfigError, match="is not configured"):
                        remove_server(name, path=path)
            elif name in model:
                effective = model[name].get("enabled", True)
                changed = set_enabled(name, arg, path=path)
                on = {"yes": True, True: True, False: False}
                assert changed is (on.get(effective, effective) is not arg)
                if changed:
                    model[name]["enabled"] = arg
            else:
                with pytest.raises(ConfigError, match="is not configured"):
                    set_enabled(name, arg, path=path)
            text = path.read_text()
            assert text.startswith(head) and text.endswith(tail)
            data = plain(parse_yaml(text, "x"))
            assert (data["mcp_servers"] or {}) == model
            assert list(load_config(path).config.mcp_servers) == list(model)


def test_add_servers_writes_every_entry_in_one_edit_or_none(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    original = "# top\nmcp_servers:\n  # first\n  a:\n    command: a  # inline\n"
    path.write_text(original)
    store.add_servers(
        {"b": {"command": "b", "args": ["-x"]}, "c": {"url": "https://c.example/mcp"}},
        path=path,
    )
    assert path.read_text() == original + (
        "  b:\n    command: b\n    args: [-x]\n  c:\n    url: https://c.example/mcp\n"
    )
    written = path.read_text()
    # One bad entry (or an existing name): nothing at all is written.
    with pytest.raises(ConfigError, match=r"mcp_servers\.e\.url"):
        store.add_servers({"d": {"command": "d"}, "e": {"url": "ftp://nope"}}, path=path)
    with pytest.raises(ConfigError, match=r"mcp_servers\.a: already exists"):
        store.add_servers({"d": {"command": "d"}, "a": {"command": "other"}}, path=path)
    assert path.read_text() == written
    store.add_servers({"d": {"command": "d"}, "a": {"command": "other"}}, path=path, replace=True)
    assert path.read_text().startswith("# top\nmcp_servers:\n  # first\n  a:\n    command: other\n")
    assert set(load_config(path).config.mcp_servers) == {"a", "b", "c", "d"}
