"""The dashboard's part of trust that holds over time: the tools held back because their
definition changed since it was pinned, each with what changed and an Accept button that does
what ``hermes mcp trust SERVER TOOL --digest D`` does: it accepts the definition shown, and
none the server put in its place meanwhile (see docs/trust.md)."""

from __future__ import annotations

from urllib.parse import quote

from hermes_core.dashboard.html import esc
from hermes_core.host.trust.review import reviews
from hermes_core.host.trust.state import TrustState
from hermes_core.host.trust.store import TrustStoreError

__all__ = ["changed_body"]


def changed_body(store: TrustState, csrf: str) -> str:
    """The changed definitions waiting for the user, or ``""`` when none waits.  Each Accept
    form carries the digest of the definition shown: the dashboard accepts that one only."""
    try:
        waiting = reviews(store)
    except TrustStoreError as exc:
        return f'<p class="error">the trust state cannot be read: {esc(str(exc))}</p>'
    if not waiting:
        return ""
    parts = [
        "<h2>Changed since first seen</h2>",
        '<p class="warn">These tools are not offered: their definition is not the one pinned '
        "when they were first seen. Check what changed, then accept it (as "
        "<code>hermes mcp trust SERVER TOOL</code> does).</p>",
    ]
    for server, tools in sorted(waiting.items()):
        for tool, review in sorted(tools.items()):
            listed = "".join(f"<li><code>{esc(line)}</code></li>" for line in review.lines)
            takes = (
                f"<p>It takes the name of the pinned tool <code>{esc(review.replaces)}</code>: "
                "accepting it makes it that tool.</p>"
                if review.replaces
                else ""
            )
            parts.append(
                f'<div class="tool changed" data-changed="{esc(server)}/{esc(tool)}">'
                f"<h3><code>{esc(server)}</code> / <code>{esc(tool)}</code></h3>{takes}"
                f"<ul>{listed}</ul><p>digest <code>{esc(review.short_digest)}</code></p>"
                f'<form method="post" action="/trust/{quote(server, safe="")}" class="inline">'
                f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
                f'<input type="hidden" name="tool" value="{esc(tool)}">'
                f'<input type="hidden" name="digest" value="{esc(review.digest)}">'
                '<button type="submit">Accept the new definition</button></form></div>'
            )
    return "".join(parts)
