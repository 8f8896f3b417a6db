"""MCP Apps (the 2026-01-26 extension): a tool whose definition names a ``ui://`` resource
(``_meta.ui.resourceUri``) gets an *Open app* view after a call.

The resource is read through the host's pipeline (:mod:`.browse`), kept here under a one-time
token and served once at ``/apps/frame/TOKEN`` into an ``<iframe sandbox="allow-scripts">``
(no ``allow-same-origin``: the app's origin is opaque, it cannot read the page, its cookie or
the dashboard's API).  Its response carries its own Content-Security-Policy: ``sandbox
allow-scripts`` again, inline script and style allowed (an app is one HTML document), and no
network, no image, font or media source, no nested frame, unless the resource declares the
origins in ``_meta.ui.csp`` (``connectDomains``, ``resourceDomains``, ``frameDomains``); each
declared origin must be a plain ``scheme://host[:port]`` (``https://*.example.com`` allowed),
anything else is dropped.  The page speaks the host side of the protocol (``apps.js``)."""

from __future__ import annotations

import base64
import binascii
import re
import secrets
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from hermes_core.dashboard.browse import call_utility
from hermes_core.host.host import MCPHost
from hermes_core.host.tools.registry import ToolEntry

__all__ = ["AppFrame", "AppFrames", "app_csp", "declared_origins", "load_app"]

#: The largest app document served (its HTML, decoded).
MAX_APP_BYTES = 2 << 20
#: How many read apps wait to be framed at once.
KEEP = 20
#: The MIME types an app resource may have (``text/html;profile=mcp-app`` and plain HTML).
_HTML = re.compile(r"text/html(\s*;.*)?", re.IGNORECASE)
_ORIGIN = re.compile(r"(https|http|wss|ws)://(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?")
_MAX_ORIGINS = 32


@dataclass(frozen=True)
class AppFrame:
    """One app document ready to be framed once."""

    server: str
    uri: str
    html: str
    csp: str


def declared_origins(csp: object, key: str) -> list[str]:
    """The clean origins of ``_meta.ui.csp[key]`` (anything but ``scheme://host[:port]``,
    with an optional ``*.`` subdomain wildcard, is dropped)."""
    values = csp.get(key) if isinstance(csp, Mapping) else None
    if not isinstance(values, list):
        return []
    kept = [v for v in values if isinstance(v, str) and _ORIGIN.fullmatch(v)]
    return kept[:_MAX_ORIGINS]


def app_csp(declared: object) -> str:
    """The Content-Security-Policy an app document is served with (see the module)."""
    connect = declared_origins(declared, "connectDomains")
    resource = declared_origins(declared, "resourceDomains")
    frames = declared_origins(declared, "frameDomains")

    def src(*extra: str, origins: list[str]) -> str:
        words = [*extra, *origins]
        return " ".join(words) if words else "'none'"

    inline = "'unsafe-inline'"
    return "; ".join(
        [
            "sandbox allow-scripts",
            "default-src 'none'",
            f"script-src {src(inline, origins=resource)}",
            f"style-src {src(inline, origins=resource)}",
            f"img-src {src('data:', origins=resource)}",
            f"font-src {src('data:', origins=resource)}",
            f"media-src {src(origins=resource)}",
            f"connect-src {src(origins=connect)}",
            f"frame-src {src(origins=frames)}",
            "form-action 'none'",
            "base-uri 'none'",
            "frame-ancestors 'self'",
        ]
    )


def _document(content: Mapping[str, object]) -> str | None:
    text = content.get("text")
    if isinstance(text, str):
        return text if len(text.encode()) <= MAX_APP_BYTES else None
    blob = content.get("blob")
    if isinstance(blob, str) and len(blob) <= MAX_APP_BYTES * 4 // 3 + 4:
        try:
            return base64.b64decode(blob, validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            return None
    return None


async def load_app(host: MCPHost, entry: ToolEntry) -> AppFrame | str:
    """*entry*'s app document read from its server; what is wrong, in words, otherwise."""
    uri = entry.app_uri or ""
    result = await call_utility(host, entry.server, "read_resource", {"uri": uri})
    if "error" in result:
        return f"cannot read the app {uri}: {result['error']}"
    blocks = result.get("content")
    for block in blocks if isinstance(blocks, list) else ():
        content = block.get("resource") if isinstance(block, dict) else None
        if not isinstance(content, dict) or content.get("uri") != uri:
            continue
        mime = str(content.get("mimeType") or "")
        if not _HTML.fullmatch(mime):
            return f"the app {uri} is {mime or 'of no type'}, not HTML: not shown"
        html = _document(content)
        if html is None:
            return f"the app {uri} is not readable HTML of at most {MAX_APP_BYTES >> 20} MiB"
        meta = content.get("_meta")
        ui = meta.get("ui") if isinstance(meta, Mapping) else None
        declared = ui.get("csp") if isinstance(ui, Mapping) else None
        return AppFrame(entry.server, uri, html, app_csp(declared))
    return f"MCP server '{entry.server}' sent no document for the app {uri}"


class AppFrames:
    """App documents waiting to be framed, each under a one-time token."""

    def __init__(self) -> None:
        self._waiting: OrderedDict[str, AppFrame] = OrderedDict()

    def __repr__(self) -> str:
        return f"AppFrames({len(self._waiting)} waiting)"

    def put(self, frame: AppFrame) -> str:
        token = secrets.token_urlsafe(24)
        self._waiting[token] = frame
        while len(self._waiting) > KEEP:
            self._waiting.popitem(last=False)
        return token

    def take(self, token: str) -> AppFrame | None:
        """The frame under *token*, once (a second request for it gets nothing)."""
        return self._waiting.pop(token, None)
