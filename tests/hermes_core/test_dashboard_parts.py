"""The working pages' parts in-process (no browser): an MCP App's Content-Security-Policy from
what its resource declares (nothing smuggled in), a tool's ``ui://`` app read from its
definition, URI templates filled in, a missing ``${VAR}`` found and set (only one the entry
names), and the *Add a server* form read as ``hermes mcp add`` reads its flags."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from hermes_core.dashboard.add_page import parse_add
from hermes_core.dashboard.apps import app_csp
from hermes_core.dashboard.browse_pages import expand_template, read_html, template_variables
from hermes_core.dashboard.missing_vars import VariableRefused, missing_variables, set_variable
from hermes_core.host.tools.registration import app_resource_uri


def _directive(policy: str, name: str) -> str:
    return next(d for d in policy.split("; ") if d.startswith(name + " "))


def test_an_app_gets_no_network_unless_its_resource_declares_clean_origins() -> None:
    closed = app_csp(None)
    assert closed.startswith("sandbox allow-scripts; default-src 'none'")
    assert _directive(closed, "connect-src") == "connect-src 'none'"
    assert _directive(closed, "img-src") == "img-src data:"
    assert _directive(closed, "frame-src") == "frame-src 'none'"
    declared = {
        "connectDomains": [
            "https://api.example.com",
            "wss://live.example.com:8443",
            "https://x.example.com; script-src *",  # a directive smuggled in: dropped
            "*",
            "https://example.com/path",
            "javascript:alert(1)",
            42,
        ],
        "resourceDomains": ["https://*.cdn.example.com", "'unsafe-eval'"],
    }
    opened = app_csp(declared)
    assert _directive(opened, "connect-src") == (
        "connect-src https://api.example.com wss://live.example.com:8443"
    )
    assert _directive(opened, "script-src") == (
        "script-src 'unsafe-inline' https://*.cdn.example.com"
    )
    assert "unsafe-eval" not in opened and "alert" not in opened
    assert opened.count(";") == closed.count(";")


@pytest.mark.parametrize(
    ("meta", "uri"),
    [
        ({"ui": {"resourceUri": "ui://counter/view.html"}}, "ui://counter/view.html"),
        ({"ui/resourceUri": "ui://old/flat.html"}, "ui://old/flat.html"),
        ({"ui": {"resourceUri": "https://example.com/app.html"}}, None),
        ({"ui": {"resourceUri": "ui://a b"}}, None),
        ({"ui": {"resourceUri": "ui://x\u202e"}}, None),
        ({"ui": {"resourceUri": "ui://" + "x" * 3000}}, None),
        ({"ui": "ui://x"}, None),
        (None, None),
    ],
)
def test_a_tool_s_app_is_a_clean_ui_uri_from_its_meta(meta: object, uri: str | None) -> None:
    tool = {"name": "t", "inputSchema": {"type": "object"}, "_meta": meta}
    assert app_resource_uri(tool) == uri


def test_uri_templates_are_filled_in_and_encoded() -> None:
    assert template_variables("note://items/{item}/{+path}{?q,page}") == [
        "item",
        "path",
        "q",
        "page",
    ]
    filled = expand_template("note://items/{item}/{+path}", {"item": "a b/c", "path": "x/y"})
    assert filled == "note://items/a%20b%2Fc/x/y"


def test_a_missing_variable_is_found_and_only_a_named_one_is_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    (tmp_path / ".env").write_text("# keys\nSET_ONE=1\n")
    entry = {"command": "srv", "env": {"A": "${NEEDED}", "B": "${SET_ONE}", "C": "$${LITERAL}"}}
    assert missing_variables({"srv": entry, "fine": {"command": "x"}}, env={}) == {
        "srv": ["NEEDED"]
    }
    with pytest.raises(VariableRefused, match="names no"):
        set_variable(entry, "PATH", "/evil")
    with pytest.raises(VariableRefused, match="one line"):
        set_variable(entry, "NEEDED", "a\nEVIL=1")
    set_variable(entry, "NEEDED", "s3cret")
    text = (tmp_path / ".env").read_text()
    assert text.startswith("# keys\nSET_ONE=1\n") and "NEEDED=s3cret" in text
    assert stat.S_IMODE((tmp_path / ".env").stat().st_mode) == 0o600
    assert missing_variables({"srv": entry}, env={}) == {}


def test_the_add_form_reads_as_hermes_mcp_add_s_flags() -> None:
    form = parse_add(
        {
            "name": "files",
            "target": "npx -y '@scope/server files' /tmp",
            "env": "A=1\n\n B=two ",
            "probe": "on",
        }
    )
    assert (form.command, form.args, form.url) == (
        "npx",
        ["-y", "@scope/server files", "/tmp"],
        None,
    )
    assert (form.env, form.probe, form.replace) == (["A=1", "B=two"], True, False)
    assert "A=1" not in repr(form)
    assert parse_add({"name": "web", "target": "https://example.com/mcp"}).url == (
        "https://example.com/mcp"
    )
    for bad, said in [
        ({"name": "", "target": "x"}, "give the server a name"),
        ({"name": "../x", "target": "x"}, "give the server a name"),
        ({"name": "x", "target": ""}, "command line"),
        ({"name": "x", "target": "npx 'unclosed"}, "cannot be read"),
    ]:
        with pytest.raises(ValueError, match=said):
            parse_add(bad)


def test_a_binary_resource_is_offered_as_a_download_of_a_clean_type() -> None:
    def shown(mime: str, blob: str = "AAEC") -> str:
        item = {"uri": "note://files/data.bin", "mimeType": mime, "blob": blob}
        return read_html("s", "note://files/data.bin", {"content": [{"resource": item}]})

    page = shown("application/x-thing")
    assert 'download="data.bin" href="data:application/x-thing;base64,AAEC"' in page
    hostile = shown('text/html;x="><script>alert(1)</script>')
    assert "data:application/octet-stream;base64,AAEC" in hostile and "<script>" not in hostile
    assert "download" not in shown("application/x-thing", blob="not base64!")
