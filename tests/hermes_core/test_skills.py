"""Skills: discovery in HERMES_HOME and in plugins, the ``requires_apps`` gate, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from hermes_core.plugins.manager import HermesPluginManager, create_plugin_manager
from hermes_core.skills import Skill, SkillGate, discover_skills, parse_skill, skill_visible
from hermes_platform import declaration
from hermes_platform.testing import FakeHost
from support.cli import run_hermes

MakeHost = Callable[..., FakeHost]
REPO = Path(__file__).resolve().parents[2]
ACME_SKILL = REPO / "examples" / "vendor-plugin" / "src" / "acme_studio" / "skills"
VENDOR_APP = {
    "linux": {"presence": "executable", "location": [{"kind": "command", "name": "vendor"}]}
}


def write_skill(home: Path, folder: str, text: str) -> Path:
    path = home / "skills" / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def skill(*requires: str) -> Skill:
    return Skill("s", "", Path("/x/SKILL.md"), "home", tuple(requires))


def register(name: str, app: Any = None, requires: Any = None) -> None:
    decl = declaration.parse_declaration(name, raw_app=app, raw_requires=requires, where="test")
    declaration.register(name, decl)


@pytest.fixture
def linux(hermes_fake_host: MakeHost, hermes_declarations: None) -> FakeHost:
    return hermes_fake_host("linux", env={"PATH": "/usr/bin"})


# --- the gate: reference §8.2 ---------------------------------------------------


def test_reference_sequence(tmp_path: Path, linux: FakeHost) -> None:
    empty = parse_skill(write_skill(tmp_path, "empty", "---\n---\nbody\n"), "home")
    assert empty.requires_apps == ()
    assert skill_visible(empty) == SkillGate(True, None)

    unknown = parse_skill(
        write_skill(tmp_path, "unknown", "---\nrequires_apps: [nope]\n---\n"), "home"
    )
    assert skill_visible(unknown) == SkillGate(
        False, "requires app 'nope', which no plugin declares"
    )

    needs = parse_skill(
        write_skill(tmp_path, "needs", "---\nrequires_apps: [vendor]\n---\n"), "home"
    )
    register("vendor", VENDOR_APP, {"app": True})
    gate = skill_visible(needs)
    assert not gate.visible
    assert gate.reason == "vendor is not installed. Install vendor, then try again."

    linux.add_file("/usr/bin/vendor")
    assert skill_visible(needs) == SkillGate(True, None)


def test_display_name_comes_from_the_manager(linux: FakeHost) -> None:
    register("vendor", VENDOR_APP, {"app": True})
    manager = HermesPluginManager()
    manager.display_names["vendor"] = "Vendor Pro"
    gate = skill_visible(skill("vendor"), manager)
    assert gate.reason == "Vendor Pro is not installed. Install Vendor Pro, then try again."


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("requires_apps: vendor", ("vendor",)),
        ("requires_apps: '  vendor  '", ("vendor",)),
        ("requires_apps: [vendor]", ("vendor",)),
        ("requires_apps: [' vendor ', other]", ("vendor", "other")),
        ("requires_apps: 5", ("5",)),
        ("requires_apps: []", ()),
        ("requires_apps: ''", ()),
        ("requires_apps:", ()),
        ("name: only-a-name", ()),
    ],
)
def test_list_or_single_string(tmp_path: Path, line: str, expected: tuple[str, ...]) -> None:
    parsed = parse_skill(write_skill(tmp_path, "s", f"---\n{line}\n---\n"), "home")
    assert parsed.requires_apps == expected


def test_and_semantics(linux: FakeHost) -> None:
    register("vendor", VENDOR_APP, {"app": True})
    register("free")
    linux.add_file("/usr/bin/vendor")
    assert skill_visible(skill("free", "vendor")).visible
    gate = skill_visible(skill("free", "vendor", "nope"))
    assert gate == SkillGate(False, "requires app 'nope', which no plugin declares")
    assert skill_visible(skill(" vendor ")).visible  # names are stripped


@pytest.mark.parametrize(("gpu", "visible"), [("nvidia", True), ("intel", False)])
def test_gpu_only_declaration_behaves_as_in_the_mcp_gate(
    hermes_fake_host: MakeHost, hermes_declarations: None, gpu: str, visible: bool
) -> None:
    hermes_fake_host("linux").set_gpu(gpu)
    register("cuda-tool", None, {"gpu": "nvidia"})
    gate = skill_visible(skill("cuda-tool"))
    assert gate.visible is visible
    if not visible:
        assert gate.reason == (
            "cuda-tool needs an NVIDIA GPU; none was found on this machine. "
            "Use cuda-tool on a machine with an NVIDIA GPU."
        )


# --- discovery ------------------------------------------------------------------


def test_home_skills_name_description_and_frontmatter(tmp_path: Path) -> None:
    write_skill(
        tmp_path,
        "writer",
        """
        ---
        name: prose
        description: Write well.
        requires_apps: [vendor]
        extra: 1
        ---
        # Body
        """,
    )
    write_skill(tmp_path, "plain", "# no frontmatter at all\n")
    (tmp_path / "skills" / "empty-folder").mkdir()
    (tmp_path / "skills" / ".hidden").mkdir()
    write_skill(tmp_path, ".hidden", "---\nname: secret\n---\n")
    skills, problems = discover_skills(tmp_path, None)
    assert problems == []
    assert [(s.name, s.source) for s in skills] == [("plain", "home"), ("prose", "home")]
    prose = skills[1]
    assert prose.description == "Write well."
    assert prose.requires_apps == ("vendor",)
    assert prose.frontmatter["extra"] == 1
    assert prose.path == tmp_path / "skills" / "writer" / "SKILL.md"


def test_no_skills_folder(tmp_path: Path) -> None:
    assert discover_skills(tmp_path / "missing", None) == ([], [])


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("---\nname: x\ndescription: a: b\n---\n", 3, "mapping values are not allowed"),
        ("---\nname: x\nname: y\n---\n", 3, "duplicate key"),
        ("---\n- a\n- b\n---\n", 2, "must be a mapping"),
        ("---\nname: x\nno closing fence\n", 1, "no closing '---'"),
    ],
)
def test_malformed_frontmatter_is_a_problem_with_file_and_line(
    tmp_path: Path, text: str, line: int, fragment: str
) -> None:
    broken = write_skill(tmp_path, "broken", text)
    write_skill(tmp_path, "fine", "---\nname: fine\n---\n")
    skills, problems = discover_skills(tmp_path, None)
    assert [s.name for s in skills] == ["fine"]
    assert len(problems) == 1
    assert problems[0].startswith(f"{broken}:{line}: ")
    assert fragment in problems[0]


def test_unreadable_bytes_are_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "skills" / "bad" / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"---\nname: x\n\xff\xfe\n---\n")
    skills, problems = discover_skills(tmp_path, None)
    assert skills == []
    assert problems == [f"{path}:3: is not UTF-8 text"]


@pytest.fixture
def acme_manager(hermes_declarations: None) -> Iterator[HermesPluginManager]:
    manager = create_plugin_manager(strict=True)
    manager.apply()
    try:
        yield manager
    finally:
        manager.unapply()


def test_plugin_shipped_skill_from_the_example_package(
    tmp_path: Path, hermes_fake_host: MakeHost, acme_manager: HermesPluginManager
) -> None:
    host = hermes_fake_host("linux", env={"PATH": "/usr/bin"})
    assert "acme-studio" in acme_manager.plugin_objects()
    skills, problems = discover_skills(tmp_path, acme_manager)
    assert problems == []
    render = next(s for s in skills if s.name == "acme-render")
    assert render.path == ACME_SKILL / "acme-render" / "SKILL.md"
    assert render.source.startswith("plugin acme-studio (acme-studio-hermes ")
    assert render.requires_apps == ("acme-studio",)
    assert skill_visible(render, acme_manager) == SkillGate(
        False, "Acme Studio is not installed. Install Acme Studio, then try again."
    )
    host.add_file("/usr/bin/acme-studio")
    assert skill_visible(render, acme_manager) == SkillGate(True, None)


def test_home_skill_wins_over_a_plugin_skill_of_the_same_name(
    tmp_path: Path, acme_manager: HermesPluginManager
) -> None:
    mine = write_skill(tmp_path, "my-render", "---\nname: acme-render\n---\n")
    skills, problems = discover_skills(tmp_path, acme_manager)
    assert [(s.name, s.path) for s in skills if s.name == "acme-render"] == [("acme-render", mine)]
    assert len(problems) == 1
    assert "is already defined by" in problems[0]
    assert str(ACME_SKILL / "acme-render" / "SKILL.md") in problems[0]


def module(name: str, file: Path, *, package: bool = False) -> ModuleType:
    made = ModuleType(name)
    made.__file__ = str(file)
    made.__package__ = name if package else name.rpartition(".")[0]
    if package:
        made.__path__ = [str(file.parent)]
    return made


def test_package_convention_for_inline_plugins(
    tmp_path: Path, hermes_pm: HermesPluginManager
) -> None:
    site = tmp_path / "site"
    write_skill(site / "inline_pkg", "helper", "---\ndescription: from a package\n---\n")
    write_skill(site, "stray", "---\n---\n")  # site/skills: belongs to no package
    plugin = module("inline_pkg.plugin", site / "inline_pkg" / "plugin.py")
    lonely = module("lonely_plugin", site / "lonely_plugin.py")
    package = module("inline_pkg", site / "inline_pkg" / "__init__.py", package=True)
    hermes_pm.register_plugin(plugin, "inline", distribution="inline-dist", version="1.0")
    hermes_pm.register_plugin(lonely, "lonely")
    assert set(hermes_pm.plugin_objects()) == {"inline", "lonely"}  # no built-ins

    skills, problems = discover_skills(tmp_path / "home", hermes_pm)
    assert problems == []
    assert [(s.name, s.source, s.description) for s in skills] == [
        ("helper", "plugin inline (inline-dist 1.0)", "from a package")
    ]  # a top-level module ships nothing: site/skills is not scanned

    hermes_pm.unregister_plugin("inline")
    hermes_pm.register_plugin(package, "pkg")
    skills, _ = discover_skills(tmp_path / "home", hermes_pm)
    assert [(s.name, s.source) for s in skills] == [("helper", "plugin pkg")]


# --- the CLI --------------------------------------------------------------------


def hermes(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "", "HOME": str(home), "HERMES_HOME": str(home / ".hermes")}
    return run_hermes(*args, env=env, minimal=True, cwd=home)


@pytest.mark.process
@pytest.mark.cli
def test_cli_skills_list(tmp_path: Path) -> None:
    hermes_home = tmp_path / ".hermes"
    write_skill(hermes_home, "free", "---\ndescription: always here\n---\n")
    write_skill(hermes_home, "gated", "---\nrequires_apps: nope\n---\n")
    broken = write_skill(hermes_home, "broken", "---\nname: [x\n---\n")

    result = hermes(tmp_path, "skills", "list", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    rows = {row["name"]: row for row in data["skills"]}
    assert rows["free"]["visible"] is True
    assert rows["free"]["source"] == "home"
    assert rows["gated"] == {
        "name": "gated",
        "description": "",
        "source": "home",
        "path": str(hermes_home / "skills" / "gated" / "SKILL.md"),
        "requires_apps": ["nope"],
        "visible": False,
        "reason": "requires app 'nope', which no plugin declares",
    }
    acme = rows["acme-render"]  # the installed example plugin; PATH is empty here
    assert acme["source"].startswith("plugin acme-studio (acme-studio-hermes ")
    assert acme["reason"] == "Acme Studio is not installed. Install Acme Studio, then try again."
    assert [p.split(": ")[0] for p in data["problems"]] == [f"{broken}:2"]

    text = hermes(tmp_path, "skills", "list")
    assert text.returncode == 0, text.stderr
    assert "free  (home)  visible" in text.stdout
    assert "gated  (home)  hidden: requires app 'nope', which no plugin declares" in text.stdout
    assert f"! {broken}:2: " in text.stdout

    usage = hermes(tmp_path, "skills")
    assert usage.returncode == 2
    assert "list" in usage.stderr


@pytest.mark.process
def test_cli_skills_list_does_not_import_mcp(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from hermes_core.cli import main\n"
        "code = main(['skills', 'list', '--json'])\n"
        "assert code == 0\n"
        "assert 'mcp' not in sys.modules, 'mcp was imported'\n"
    )
    env = {**os.environ, "HERMES_HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 0, result.stderr


def test_nested_aliases_are_refused_at_their_line(tmp_path: Path) -> None:
    lines = ["---", "a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 30)]
    lines += ["requires_apps: [*a29]", "description: *a29", "---", ""]
    path = write_skill(tmp_path, "bomb", "\n".join(lines))
    with pytest.raises(ValueError, match=r"SKILL.md:9: frontmatter aliases expand to more than"):
        parse_skill(path, "home")
