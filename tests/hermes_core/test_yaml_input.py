"""Hostile YAML in config.yaml, plugin.yaml and SKILL.md: file:line, exit 2, bounded.

Tags, deep nesting, alias bombs, reused anchors and values the constructor
cannot build were tracebacks (exit 1), minutes of CPU or gigabytes of memory.
Every case goes through the real CLI; the fuzzers check that no input lets an
exception other than the file's own error type escape.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_core.config.loader import parse_config_text
from hermes_core.config.models import ConfigError
from hermes_core.plugin_yaml import PluginFileError, parse_plugin_text
from hermes_core.skills import parse_skill
from hermes_core.yaml_input import MAX_ALIAS_NODES, MAX_DEPTH, YamlInputError, load_yaml
from support.cli import run_hermes


def bomb(levels: int = 9) -> str:
    """The classic 'billion laughs': a few hundred bytes, 9**levels values."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def nested_block(depth: int) -> str:
    return "".join("  " * i + f"k{i}:\n" for i in range(depth)) + "  " * depth + "leaf: 1\n"


# (body under mcp_servers.fs.env or a top-level key, line of the problem in that body, words)
HOSTILE = [
    ("x: !!int abc\n", 1, "explicit YAML tags such as '!!int' are not supported"),
    ("x: !!bool maybe\n", 1, "explicit YAML tags such as '!!bool'"),
    ("x: !!timestamp 2024-13-45\n", 1, "explicit YAML tags such as '!!timestamp'"),
    ("x: !!set {a, b}\n", 1, "explicit YAML tags such as '!!set'"),
    ("x: !!python/object/apply:os.system [id]\n", 1, "explicit YAML tags"),
    ("x: 2024-13-45\n", 1, "a value cannot be read (an invalid date or number)"),
    ("y: 1\nx: " + "9" * 5000 + "\n", 2, "a value cannot be read"),
    ("x: [" * 400 + "]" * 400 + "\n", 1, f"nesting deeper than {MAX_DEPTH} levels"),
    (nested_block(400), MAX_DEPTH + 1, f"nesting deeper than {MAX_DEPTH} levels"),
    (bomb(), 6, f"aliases expand to more than {MAX_ALIAS_NODES} values"),
    ("x: &s secret-one\ny: &s secret-two\n", 2, "the anchor '&s' is defined a second time"),
    ("x: &l [1, *l]\n", 1, "the alias '*l' refers to a collection that contains it"),
    ("? [a, b]\n: 1\n", 1, "a mapping key must be a plain value"),
]


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.parametrize(("body", "line", "words"), HOSTILE)
def test_config_yaml_refuses_at_file_line_with_exit_2(
    tmp_path: Path, body: str, line: int, words: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    config = home / "config.yaml"
    config.write_text("# settings\n" + body)  # the body starts on line 2
    result = run_hermes("mcp", "list", env={"HERMES_HOME": str(home)})
    assert result.returncode == 2, result.stderr
    assert f"{config}:{line + 1}: " in result.stderr
    assert words in result.stderr
    assert "Traceback" not in result.stderr
    assert "secret-" not in result.stderr + result.stdout


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.parametrize(("body", "line", "words"), HOSTILE)
def test_plugin_yaml_refuses_at_file_line_with_exit_2(
    tmp_path: Path, body: str, line: int, words: str
) -> None:
    plugin = tmp_path / "plugin.yaml"
    plugin.write_text("name: vendor\n" + body)
    result = run_hermes("apps", "check", str(plugin))
    assert result.returncode == 2, result.stderr
    assert f"error: {plugin}:{line + 1}: " in result.stderr
    assert words in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.process
@pytest.mark.cli
def test_a_bad_skill_file_hides_only_that_skill(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for folder, body in [("good", "description: fine\n"), ("tagged", "x: !!int abc\n")]:
        path = home / "skills" / folder / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(f"---\n{body}---\n# {folder}\n")
    for number, (body, _, _) in enumerate(HOSTILE):
        path = home / "skills" / f"hostile{number:02}" / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(f"---\n{body}---\n")
    result = run_hermes("skills", "list", "--json", env={"HERMES_HOME": str(home)})
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [skill["name"] for skill in data["skills"] if skill["source"] == "home"] == ["good"]
    problems = data["problems"]
    assert len(problems) == len(HOSTILE) + 1
    for number, (_, line, words) in enumerate(HOSTILE):
        path = home / "skills" / f"hostile{number:02}" / "SKILL.md"
        (problem,) = [p for p in problems if p.startswith(f"{path}:")]
        assert problem.startswith(f"{path}:{line + 1}: frontmatter "), problem
        assert words in problem


def test_an_alias_bomb_is_refused_in_bounded_memory() -> None:
    text = bomb(12)  # 9**12 values if expanded
    tracemalloc.start()
    try:
        with pytest.raises(YamlInputError, match="aliases expand"):
            load_yaml(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024


def test_aliases_and_merge_keys_within_the_bounds_still_work() -> None:
    text = "base: &b {command: npx, args: [a]}\nfs:\n  <<: *b\n  env: {K: v}\nagain: *b\n"
    tree = load_yaml(text)
    assert tree["fs"]["command"] == "npx"
    assert tree["again"]["args"] == ["a"]
    assert load_yaml(nested_block(MAX_DEPTH - 1))["k0"] is not None


def test_reused_anchor_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(YamlInputError):
        load_yaml("a: &x token-secret\nb: &x other\n")
    out, err = capfd.readouterr()
    assert out == err == ""


# ---- fuzzers: no input lets another exception escape --------------------------------------

_SCALARS = st.sampled_from(
    [
        "x",
        "1",
        "-1",
        "0x1F",
        "1e999",
        ".inf",
        "~",
        "null",
        "yes",
        "no",
        "2024-13-45",
        "2024-01-01",
        "2024-01-01 25:00:00",
        "9" * 4400,
        "'quoted'",
        '"dq\\x41"',
        "1:20",
        "npx",
        "stdio",
        "http",
        "${HOME}",
        "${NOPE}",
        "[]",
        "{}",
        "@",
        "%",
        "`",
        "|",
        ">",
    ]
)
_TAGS = st.sampled_from(
    [
        "",
        "!!int ",
        "!!bool ",
        "!!str ",
        "!!timestamp ",
        "!!set ",
        "!!map ",
        "!!seq ",
        "!!float ",
        "!!binary ",
        "!!omap ",
        "!!null ",
        "!custom ",
        "! ",
        "!!python/name:os.system ",
    ]
)
_KEYS = st.sampled_from(
    [
        "mcp_servers",
        "fs",
        "command",
        "args",
        "env",
        "url",
        "headers",
        "enabled",
        "timeout",
        "transport",
        "tools",
        "include",
        "exclude",
        "name",
        "app",
        "requires",
        "linux",
        "location",
        "kind",
        "description",
        "requires_apps",
        "<<",
        "? x",
    ]
)


@st.composite
def yaml_texts(draw: st.DrawFn) -> str:
    anchors: list[str] = []

    def node(depth: int, indent: int) -> str:
        choice = draw(st.integers(0, 5 if depth < 6 else 1))
        anchor = ""
        if draw(st.integers(0, 6)) == 0:
            name = f"a{draw(st.integers(0, 3))}"
            anchor = f"&{name} "
            anchors.append(name)
        tag = draw(_TAGS)
        if choice == 0 and anchors:
            return f"*{draw(st.sampled_from(anchors))}"
        if choice <= 1:
            return f"{anchor}{tag}{draw(_SCALARS)}"
        if choice == 2:
            items = draw(st.lists(st.just(0), max_size=3))
            return f"{anchor}{tag}[" + ", ".join(node(depth + 1, indent) for _ in items) + "]"
        if choice == 3:
            keys = draw(st.lists(_KEYS, max_size=3))
            return (
                f"{anchor}{tag}{{"
                + ", ".join(f"{k}: {node(depth + 1, indent)}" for k in keys)
                + "}"
            )
        keys = draw(st.lists(_KEYS, min_size=1, max_size=3))
        pad = "  " * (indent + 1)
        body = "".join(f"\n{pad}{k}: {node(depth + 1, indent + 1)}" for k in keys)
        return f"{anchor}{body}" if not tag else f"{anchor}{tag}{body}"

    keys = draw(st.lists(_KEYS, min_size=1, max_size=4))
    return "".join(f"{k}: {node(0, 0)}\n" for k in keys) + draw(
        st.sampled_from(["", "[" * 300 + "]" * 300 + "\n", "x: " + "[" * 80 + "]" * 80 + "\n"])
    )


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(yaml_texts())
def test_fuzz_config_yaml(text: str) -> None:
    nested = "mcp_servers:\n  fs:\n    env:\n      " + text.replace("\n", "\n      ")
    for candidate in (text, nested):
        try:
            loaded = parse_config_text(candidate, "config.yaml", strict=False)
        except ConfigError as exc:
            assert str(exc).startswith("config.yaml")
        else:
            repr(loaded)


@FUZZ
@given(yaml_texts())
def test_fuzz_plugin_yaml(text: str) -> None:
    for candidate in (text, "name: vendor\n" + text):
        try:
            parse_plugin_text(candidate, "plugin.yaml")
        except PluginFileError as exc:
            assert str(exc).startswith("plugin.yaml")


@pytest.mark.slow
@FUZZ
@given(yaml_texts())
def test_fuzz_skill_md(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    path = tmp_path_factory.mktemp("skill") / "SKILL.md"
    path.write_text(f"---\n{text}---\nbody\n", encoding="utf-8")
    try:
        parse_skill(path, "home")
    except ValueError as exc:
        assert str(exc).startswith(f"{path}:")
