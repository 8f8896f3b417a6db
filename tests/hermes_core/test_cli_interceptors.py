"""Call interceptors, the audit log and the result budget through the real ``hermes`` command.

The interceptors are docs/plugins/call_interceptor.md's own example (``deny_delete``,
``redact_emails``), installed as a plugin distribution (a ``hermes.plugins`` entry point in a
``*.dist-info``, as ``pip install`` leaves it); ``config.yaml`` selects them host-wide and per
server.  The server is ``tests/servers/intercept_server.py`` (an ``mcp`` SDK server over stdio).
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli]

DOC = Path(__file__).parents[2] / "docs" / "plugins" / "call_interceptor.md"
SERVER = Path(__file__).parents[1] / "servers" / "intercept_server.py"


def doc_example() -> str:
    """The python block of docs/plugins/call_interceptor.md written to ``acme_policy.py``."""
    match = re.search(r"^```python file=acme_policy.py\n(.*?)^```", DOC.read_text(), re.M | re.S)
    assert match, "docs/plugins/call_interceptor.md lost its interceptor example"
    return match.group(1)


#: A second distribution: an interceptor with state and settings (``create``), which rewrites
#: the ``name`` argument under the ``prefix`` of its ``confine_names:`` block in config.yaml.
CONFINE = """
from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import CallInterceptor, Decision


class _Confine:
    after = None

    def __init__(self, setup):
        self.prefix = setup.settings.get("prefix", "")

    async def before(self, call):
        name = call.arguments.get("name")
        if isinstance(name, str) and not name.startswith(self.prefix):
            return Decision.rewrite({**call.arguments, "name": self.prefix + name}, "confined")
        return None


@hookimpl
def call_interceptor():
    return [CallInterceptor(name="confine_names", create=_Confine)]
"""


def _install(folder: Path, dist: str, module: str, source: str) -> None:
    (folder / f"{module}.py").write_text(source)
    info = folder / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[hermes.plugins]\n{dist} = {module}\n")
    (info / "RECORD").write_text("")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """acme-policy 1.0 (the doc's module) and acme-confine 1.0 installed, with entry points."""
    folder = tmp_path_factory.mktemp("site")
    _install(folder, "acme-policy", "acme_policy", doc_example())
    _install(folder, "acme-confine", "acme_confine", CONFINE)
    return folder


def test_the_doc_example_implements_the_hook() -> None:
    # (what test_hooks' END_TO_END check looks for in this file: the plugin's hook)
    source = doc_example()
    assert re.search(r"^def call_interceptor\(", source, re.M)
    namespace: dict[str, object] = {}
    exec(compile(source, "acme_policy.py", "exec"), namespace)
    (deny, redact) = namespace["call_interceptor"]()  # type: ignore[operator]
    assert (deny.name, redact.name) == ("deny_delete", "redact_emails")


def write_config(home: Path, body: str) -> Path:
    home.mkdir(exist_ok=True)
    path = home / "config.yaml"
    server = f"command: {json.dumps(sys.executable)}\n    args: [{json.dumps(str(SERVER))}]"
    path.write_text(textwrap.dedent(body).lstrip().replace("SERVER", server))
    return path


def hermes(site: Path, home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    pythonpath = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    return run_hermes(*args, env={"PYTHONPATH": pythonpath, "HERMES_HOME": str(home), **env})


def call(site: Path, home: Path, tool: str, **arguments: object) -> tuple[int, dict[str, object]]:
    done = hermes(site, home, "mcp", "call", "--json", tool, "--args", json.dumps(arguments))
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout)


CONFIG = """\
    # policy for every server, redaction for the notes
    interceptors: [deny_delete]
    mcp_servers:
      notes:
        SERVER
        interceptors: [redact_emails]
"""


def test_cli_hook_call_interceptor_refuses_redacts_and_is_audited(
    site: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    write_config(home, CONFIG)

    code, refused = call(site, home, "mcp_notes_delete_note", name="groceries")
    assert code == 1
    assert refused["state"] == "refused" and refused["interceptor"] == "deny_delete"
    assert refused["error"] == (
        "The call to 'delete_note' on MCP server 'notes' was refused by the interceptor "
        "'deny_delete': delete_note deletes data; ask the user to do it by hand"
    )

    code, contact = call(site, home, "mcp_notes_contact", name="Ann")
    assert code == 0
    text = json.dumps(contact)
    assert "example.com" not in text and "example.org" not in text
    assert contact["content"][0]["text"] == (  # type: ignore[index]
        "Ann: write to [email redacted] or [email redacted]"
    )

    code, note = call(site, home, "mcp_notes_read_note", name="groceries")
    assert code == 0 and "remember the milk" in json.dumps(note)

    log = home / "logs" / "audit.jsonl"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    audit = hermes(site, home, "mcp", "audit", "--json")
    assert audit.returncode == 0, audit.stderr
    lines = [json.loads(line) for line in audit.stdout.splitlines()]
    assert [(r["tool"], r["outcome"]) for r in lines] == [
        ("delete_note", "refused"),
        ("contact", "ok"),
        ("read_note", "ok"),
    ]
    assert lines[0]["decisions"] == [
        {
            "interceptor": "deny_delete",
            "stage": "before",
            "verdict": "refuse",
            "reason": "delete_note deletes data; ask the user to do it by hand",
        }
    ]
    assert lines[1]["decisions"] == [
        {"interceptor": "redact_emails", "stage": "after", "verdict": "replace"}
    ]
    # names and types, never values
    assert lines[0]["arguments"] == {"name": "string"}
    assert "groceries" not in log.read_text() and "Ann" not in log.read_text()

    table = hermes(site, home, "mcp", "audit", "--server", "notes")
    assert table.returncode == 0
    rows = table.stdout.splitlines()
    assert len(rows) == 3
    assert "notes  delete_note  refused" in rows[0] and "deny_delete:refuse" in rows[0]
    none = hermes(site, home, "mcp", "audit", "--server", "other", "--since", "2h").stdout
    assert none == "no tool calls of server 'other' in the audit log since 2h\n"


def test_cli_an_unknown_interceptor_is_a_config_error_at_its_line(
    site: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    path = write_config(
        home,
        """\
        mcp_servers:
          notes:
            SERVER
            interceptors: [redact_email]
        """,
    )
    done = hermes(
        site, home, "mcp", "call", "--json", "mcp_notes_read_note", "--args", '{"name": "a"}'
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{path}:5" in done.stderr  # (SERVER is two lines: command and args)
    assert "no call interceptor named 'redact_email' (did you mean 'redact_emails'?)" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr
    assert not (home / "logs" / "audit.jsonl").exists()  # nothing ran


def test_cli_audit_values_and_audit_off(site: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home, "audit:\n  values: true\n" + "mcp_servers:\n  notes:\n    SERVER\n")
    call(site, home, "mcp_notes_read_note", name="groceries")
    (line,) = (home / "logs" / "audit.jsonl").read_text().splitlines()
    assert json.loads(line)["arguments"] == {"name": "groceries"}

    off = tmp_path / "off"
    write_config(off, "audit:\n  enabled: false\n" + "mcp_servers:\n  notes:\n    SERVER\n")
    code, _ = call(site, off, "mcp_notes_read_note", name="groceries")
    assert code == 0
    assert not (off / "logs" / "audit.jsonl").exists()
    assert hermes(site, off, "mcp", "audit").stdout.startswith("no tool calls")


def test_cli_audit_since_filters_and_rejects_a_bad_value(site: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "logs").mkdir(parents=True)
    old = {"time": "2020-01-01T00:00:00.000Z", "server": "notes", "tool": "old", "outcome": "ok"}
    new = {"time": "2099-01-01T00:00:00.000Z", "server": "notes", "tool": "new", "outcome": "ok"}
    (home / "logs" / "audit.jsonl.1").write_text(json.dumps(old) + "\n")
    (home / "logs" / "audit.jsonl").write_text("not json\n" + json.dumps(new) + "\n")
    every = hermes(site, home, "mcp", "audit", "--json")
    assert [json.loads(x)["tool"] for x in every.stdout.splitlines()] == ["old", "new"]
    recent = hermes(site, home, "mcp", "audit", "--json", "--since", "7d")
    assert [json.loads(x)["tool"] for x in recent.stdout.splitlines()] == ["new"]
    dated = hermes(site, home, "mcp", "audit", "--json", "--since", "2019-06-01")
    assert len(dated.stdout.splitlines()) == 2
    bad = hermes(site, home, "mcp", "audit", "--since", "yesterday")
    assert bad.returncode == 2 and "--since 'yesterday'" in bad.stderr


def test_cli_max_result_tokens_cuts_and_saves_the_whole_result(site: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(
        home,
        """\
        max_result_tokens: 100000
        mcp_servers:
          notes:
            SERVER
            max_result_tokens: 500
        """,
    )
    code, cut = call(site, home, "mcp_notes_big", chars=40_000)
    assert code == 0
    content = cut["content"]
    assert isinstance(content, list)
    note = content[-1]["text"]
    # 40,000 characters of text and the same again as the SDK's structuredContent
    assert "it was about 20,1" in note and "tokens, over the budget of 500" in note
    assert "Its structured content did not fit and is in the file only." in note
    saved = Path(re.search(r"saved in (\S+\.json)", note).group(1))  # type: ignore[union-attr]
    assert saved.parent == home / "results" / "notes"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    whole = json.loads(saved.read_text())
    assert len(whole["content"][0]["text"]) == 40_000
    assert sum(len(c["text"]) for c in content) <= 500 * 4
    # the host-wide budget for a server without its own: no cut at 40,000 characters
    write_config(home, "max_result_tokens: 100000\nmcp_servers:\n  notes:\n    SERVER\n")
    code, whole_result = call(site, home, "mcp_notes_big", chars=40_000)
    assert len(whole_result["content"][0]["text"]) == 40_000  # type: ignore[index]


def test_cli_an_interceptor_with_settings_rewrites_the_arguments(
    site: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    write_config(
        home,
        """\
        confine_names:
          prefix: team-
        interceptors: [confine_names]
        mcp_servers:
          notes:
            SERVER
        """,
    )
    code, note = call(site, home, "mcp_notes_read_note", name="groceries")
    assert code == 0
    assert note["content"][0]["text"] == "note team-groceries: remember the milk"  # type: ignore[index]
    (line,) = (home / "logs" / "audit.jsonl").read_text().splitlines()
    assert json.loads(line)["decisions"] == [
        {
            "interceptor": "confine_names",
            "stage": "before",
            "verdict": "rewrite",
            "reason": "confined",
        }
    ]
    listed = hermes(site, home, "plugins", "list", "--json")
    plugins = {p["name"]: p for p in json.loads(listed.stdout)}
    assert plugins["acme-confine"]["contributions"] == {"call_interceptor": ["confine_names"]}
    assert plugins["acme-policy"]["contributions"] == {
        "call_interceptor": ["deny_delete", "redact_emails"]
    }


def test_cli_mcp_list_checks_the_interceptor_names_too(site: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = write_config(home, "interceptors: [deny_delet]\nmcp_servers:\n  notes:\n    SERVER\n")
    for _ in range(2):  # the plugins' names loaded, then as remembered in the cache
        listed = hermes(site, home, "mcp", "list")
        assert listed.returncode == 2, listed.stdout + listed.stderr
        assert f"{path}:1: interceptors[0]: no call interceptor named 'deny_delet'" in (
            listed.stderr
        )
        assert "did you mean 'deny_delete'?" in listed.stderr
    write_config(home, "interceptors: [deny_delete]\nmcp_servers:\n  notes:\n    SERVER\n")
    assert hermes(site, home, "mcp", "list").returncode == 0


#: A third distribution, hostile to its host: an interceptor that never answers, and two that
#: put malformed results in place.
HOSTILE = """
import asyncio

from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import CallInterceptor


async def hang(call):
    await asyncio.Event().wait()


def not_a_list(call, result):
    return {"content": "just a string", "isError": False}


def not_a_bool(call, result):
    return {"content": [{"type": "text", "text": "fine"}], "isError": "yes"}


@hookimpl
def call_interceptor():
    return [
        CallInterceptor(name="hang", before=hang),
        CallInterceptor(name="not_a_list", after=not_a_list),
        CallInterceptor(name="not_a_bool", after=not_a_bool),
    ]
"""


def test_cli_a_hung_interceptor_is_cut_at_the_deadline_and_malformed_results_fail_closed(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "site"
    folder.mkdir()
    _install(folder, "acme-hostile", "acme_hostile", HOSTILE)
    home = tmp_path / "home"
    for name in ("hang", "not_a_list", "not_a_bool"):
        write_config(
            home,
            f"""\
            mcp_servers:
              notes:
                SERVER
                timeout: 1
                interceptors: [{name}]
            """,
        )
        done = hermes(
            folder,
            home,
            "mcp",
            "call",
            "--json",
            "mcp_notes_read_note",
            "--args",
            '{"name": "groceries"}',
        )
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr + done.stdout
        failed = json.loads(done.stdout)
        assert failed["state"] == "interceptor_failed" and failed["interceptor"] == name
        assert "remember the milk" not in done.stdout  # nothing of the real result gets out
        assert f"the interceptor '{name}' (plugin 'acme-hostile') failed" in failed["error"]
        if name == "hang":
            assert "did not answer within the call's deadline of 1s" in failed["error"]
            assert failed["error"].endswith("the call was not sent.")
        elif name == "not_a_list":
            assert "'content' is a str, not a list" in failed["error"]
        else:
            assert "'isError' is a str, not a bool" in failed["error"]


def test_cli_saved_results_are_capped_per_file_and_the_folder_drops_the_oldest(
    site: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    write_config(
        home,
        """\
        results:
          max_file_bytes: 30000
          max_folder_bytes: 100000
        mcp_servers:
          notes:
            SERVER
            max_result_tokens: 500
        """,
    )
    saved: list[Path] = []
    for _ in range(5):  # each result is over 80,000 bytes of JSON
        code, cut = call(site, home, "mcp_notes_big", chars=40_000)
        assert code == 0
        note = cut["content"][-1]["text"]  # type: ignore[index]
        found = re.search(r"Only the first 30,000 bytes of its JSON \(of ([\d,]+); ", note)
        assert found and int(found.group(1).replace(",", "")) > 80_000, note
        path = Path(re.search(r"are saved in (\S+\.txt)\.", note).group(1))  # type: ignore[union-attr]
        assert path.stat().st_size == 30_000
        saved.append(path)
        kept = [p for p in (home / "results").rglob("*") if p.is_file()]
        assert sum(p.stat().st_size for p in kept) <= 100_000
    # the oldest went first: the newest three are what is left
    assert sorted((home / "results" / "notes").iterdir()) == sorted(saved[-3:])
    # a file cap over the folder's is an error at its key
    write_config(
        home,
        """\
        results:
          max_file_bytes: 200000
          max_folder_bytes: 100000
        mcp_servers:
          notes:
            SERVER
        """,
    )
    bad = hermes(site, home, "mcp", "list")
    assert bad.returncode == 2, bad.stderr
    assert "max_file_bytes" in bad.stderr and "must not be more than" in bad.stderr
    assert "Traceback" not in bad.stderr
