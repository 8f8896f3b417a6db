"""The Catalog page: every entry with what it connects to and runs (transport, auth kind, URL
or command and arguments, git source and ref, bootstrap commands, notes, links), its state
here, the manifest-version warning, and Install / Configure.  Values are never shown for
keys or headers: only whether each is set."""

from __future__ import annotations

import os
from collections.abc import Mapping
from urllib.parse import quote

from hermes_core.catalog.catalog import Catalog, Entry, state_of
from hermes_core.catalog.command_line import quoted, visible
from hermes_core.catalog.manifest import Manifest
from hermes_core.config.interpolate import load_dotenv
from hermes_core.config.server import ServerConfig
from hermes_core.dashboard.catalog_actions import Checklist
from hermes_core.dashboard.html import esc, link

__all__ = ["catalog_body", "checklist_body"]


def _auth_kind(manifest: Manifest) -> str:
    kinds = []
    if manifest.auth.oauth is not None:
        kinds.append("OAuth sign-in")
    if manifest.auth.keys:
        kinds.append("keys")
    if manifest.auth.sign_in is not None:
        kinds.append(f"provider sign-in ({manifest.auth.sign_in.provider})")
    return ", ".join(kinds) or "none"


def _set(name: str, dotenv: Mapping[str, str]) -> str:
    return "set" if name in dotenv or name in os.environ else "unset"


def _details(manifest: Manifest, dotenv: Mapping[str, str]) -> list[tuple[str, str]]:
    t = manifest.transport
    rows = [("transport", esc(t.kind)), ("auth", esc(_auth_kind(manifest)))]
    if t.url is not None:
        rows.append(("URL", f"<code>{esc(t.url)}</code>"))
        for header in t.headers:
            rows.append(("header", f"<code>{esc(header)}</code>: (value hidden)"))
    else:
        rows.append(("command", f"<code>{esc(t.command)}</code>"))
        # Each argument whole, quoted as one shell word (control characters made visible).
        words = " ".join(quoted(a) for a in t.args)
        rows.append(("args", f'<code class="argv">{esc(words, 100_000)}</code>' if t.args else "-"))
        for var in t.env:
            rows.append(("env", f"<code>{esc(var)}</code>: (value hidden)"))
    for key in manifest.auth.keys:
        kind = "secret" if key.secret else "value"
        need = "required" if key.required else "optional"
        rows.append(
            ("key", f"<code>{esc(key.name)}</code> ({kind}, {need}): {_set(key.name, dotenv)}")
        )
    if manifest.source is not None:
        rows.append(("source", link(manifest.source.git)))
        rows.append(("ref", esc(manifest.source.ref or "the default branch")))
    for number, command in enumerate(manifest.install.bootstrap, 1):
        shown = esc(visible(command), 100_000)
        rows.append((f"bootstrap {number}", f'<code class="argv">{shown}</code>'))
    if manifest.homepage:
        rows.append(("homepage", link(manifest.homepage)))
    if manifest.notes:
        rows.append(("notes", esc(manifest.notes, 2000)))
    return rows


def _install_form(entry: Entry, csrf: str, dotenv: Mapping[str, str]) -> str:
    assert entry.manifest is not None
    fields = []
    for key in entry.manifest.auth.keys:
        kind = "password" if key.secret else "text"
        have = " (already set: leave empty to keep it)" if key.name in dotenv else ""
        fields.append(
            f"<label>{esc(key.prompt or key.name)} <code>{esc(key.name)}</code>{esc(have)} "
            f'<input type="{kind}" name="key:{esc(key.name)}" autocomplete="off"></label>'
        )
    return (
        f'<form method="post" action="/catalog/{quote(entry.name, safe="")}/install">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">{"".join(fields)}'
        f"<button type=submit>Install</button></form>"
    )


def catalog_body(
    found: Catalog, servers: Mapping[str, ServerConfig], names: Mapping[str, str], csrf: str
) -> str:
    """One block per entry, then the manifests left out."""
    dotenv = load_dotenv()
    parts = []
    for entry in found.entries.values():
        state = state_of(entry, servers, names)
        anchor = quote(entry.name, safe="")
        head = (
            f'<div class="tool entry" id="entry-{esc(entry.name)}"><h2>{esc(entry.name)} '
            f'<span class="entry-state muted" data-entry-state="{esc(entry.name)}">'
            f"{esc(state.state)}</span></h2><p>{esc(entry.description)}</p>"
            f"<p class=muted>from {esc(entry.origin)} · manifest {esc(entry.where)}</p>"
        )
        if state.detail:
            cls = "warn" if not state.offerable else "muted"
            head += f'<p class="{cls}">{esc(state.detail)}</p>'
        body = ""
        if entry.manifest is not None:
            rows = "".join(
                f"<tr><th>{esc(k)}</th><td>{v}</td></tr>"
                for k, v in _details(entry.manifest, dotenv)
            )
            body = f'<table class="details">{rows}</table>'
            if entry.name not in servers and state.offerable:
                body += _install_form(entry, csrf, dotenv)
            elif entry.name in servers:
                body += (
                    f'<p><a href="/catalog/{anchor}/configure">Configure its tools</a> · '
                    f"reinstall:</p>" + _install_form(entry, csrf, dotenv)
                )
        parts.append(head + body + "</div>")
    for problem in found.problems:
        parts.append(f'<p class="warn">left out: {esc(problem)}</p>')
    return "".join(parts) or "<p>The catalog is empty.</p>"


def _box(value: str, label: str, about: str, checked: bool) -> str:
    on = " checked" if checked else ""
    return (
        f'<label><input type="checkbox" name="pick" value="{esc(value)}"{on}> '
        f"<code>{esc(label)}</code> <span class=muted>{esc(about, 300)}</span></label>"
    )


def checklist_body(name: str, found: Checklist, csrf: str) -> str:
    """The tool checklist of ``hermes mcp configure``, as a form: the server's own tools,
    then one box per family of generated utility tools (resources, prompts)."""
    if found.problem is not None:
        return f'<p class="error">could not list the tools of {esc(name)}: {esc(found.problem)}</p>'
    own = [t for t in found.tools if t.family is None]
    families: dict[str, list[str]] = {}
    for tool in found.tools:
        if tool.family is not None:
            families.setdefault(tool.family, []).append(tool.name)
    hidden = [f'<input type="hidden" name="all" value="{esc(t.name)}">' for t in own]
    hidden += [f'<input type="hidden" name="family" value="{esc(f)}">' for f in families]
    boxes = [_box(t.name, t.name, t.description, t.name in found.checked) for t in own]
    boxes += [
        _box(
            "@" + fam,
            f"({fam})",
            f"the generated tools {', '.join(members)}",
            "@" + fam in found.checked,
        )
        for fam, members in families.items()
    ]
    return (
        f'<div class="tool"><form method="post" action="/catalog/{quote(name, safe="")}/configure">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">{"".join(hidden)}{"".join(boxes)}'
        "<button type=submit>Save</button></form></div>"
    )
