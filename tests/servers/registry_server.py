"""A local MCP registry for the suite: the read side of the registry's v0.1 OpenAPI document.

Usage: ``python registry_server.py PORT DATA.json [FILES_DIR]``.  *DATA.json* is a list of
``server.json`` objects (several versions of one name allowed; the last one listed is the
latest), read again on every request so a test can publish a new version while it runs.
Bundles in *FILES_DIR* are served at ``/files/NAME``.

* ``GET /v0.1/servers?search=&cursor=&limit=&version=`` → ``{"servers": [ServerResponse],
  "metadata": {"nextCursor", "count"}}``, ordered by name; the cursor is opaque to clients
  (here: the last name of the page, base64).
* ``GET /v0.1/servers/{serverName}/versions`` and ``…/versions/{version}`` (``latest``) →
  ``ServerList`` / ``ServerResponse``; 404 ``{"error": …}`` when absent.

Each ``ServerResponse`` carries the registry-managed ``_meta`` block
(``io.modelcontextprotocol.registry/official``: status, publishedAt, updatedAt, isLatest).
With ``REQUIRE_TOKEN`` set, a request without ``Authorization: Bearer <that>`` gets 401; with
``PAD_BYTES`` set, the list answer is padded with that many spaces (an oversized answer).
"""

from __future__ import annotations

import base64
import json
import os
import sys
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

OFFICIAL = "io.modelcontextprotocol.registry/official"
DATA = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("servers.json")
FILES = Path(sys.argv[3]) if len(sys.argv) > 3 else None
SEEN = Path(str(DATA) + ".requests")
"""Each request's path, query and Authorization header, one JSON line each (for the tests)."""


def _responses() -> list[dict[str, Any]]:
    servers: list[dict[str, Any]] = json.loads(DATA.read_text())
    latest: dict[str, int] = {}
    for index, server in enumerate(servers):
        latest[server["name"]] = index
    out = []
    for index, server in enumerate(servers):
        stamp = f"2026-11-{1 + index % 28:02d}T10:00:00Z"
        meta = {
            "status": server.get("status", "active"),
            "publishedAt": stamp,
            "updatedAt": stamp,
            "isLatest": latest[server["name"]] == index,
        }
        out.append({"server": server, "_meta": {OFFICIAL: meta}})
    return out


def _guard(request: Request) -> Response | None:
    with SEEN.open("a") as log:
        log.write(
            json.dumps(
                {
                    "path": request.url.path,
                    "query": dict(request.query_params),
                    "authorization": request.headers.get("authorization"),
                }
            )
            + "\n"
        )
    wanted = os.environ.get("REQUIRE_TOKEN")
    if wanted and request.headers.get("authorization") != f"Bearer {wanted}":
        return JSONResponse({"error": "Invalid or missing token"}, status_code=401)
    return None


async def list_servers(request: Request) -> Response:
    refused = _guard(request)
    if refused is not None:
        return refused
    params = request.query_params
    items = _responses()
    if params.get("version") == "latest":
        items = [i for i in items if i["_meta"][OFFICIAL]["isLatest"]]
    elif params.get("version"):
        items = [i for i in items if i["server"]["version"] == params["version"]]
    search = (params.get("search") or "").lower()
    if search:
        items = [i for i in items if search in i["server"]["name"].lower()]
    items.sort(key=lambda i: (i["server"]["name"], i["server"]["version"]))
    cursor = params.get("cursor")
    if cursor:
        try:
            after = base64.urlsafe_b64decode(cursor.encode()).decode()
        except ValueError:
            return JSONResponse({"error": "invalid cursor"}, status_code=400)
        items = [i for i in items if f"{i['server']['name']}@{i['server']['version']}" > after]
    limit = max(1, min(int(params.get("limit") or 30), 100))
    page, rest = items[:limit], items[limit:]
    metadata: dict[str, Any] = {"count": len(page)}
    if rest:
        last = page[-1]["server"]
        token = f"{last['name']}@{last['version']}".encode()
        metadata["nextCursor"] = base64.urlsafe_b64encode(token).decode()
    pad = int(os.environ.get("PAD_BYTES") or 0)  # a hostile registry: an oversized answer
    body = json.dumps({"servers": page, "metadata": metadata}) + " " * pad
    return Response(body, media_type="application/json")


def _of(name: str) -> list[dict[str, Any]]:
    return [i for i in _responses() if i["server"]["name"] == name]


async def versions(request: Request) -> Response:
    refused = _guard(request)
    if refused is not None:
        return refused
    found = _of(request.path_params["name"])
    if not found:
        return JSONResponse({"error": "Server not found"}, status_code=404)
    found.reverse()  # newest first
    return JSONResponse({"servers": found, "metadata": {"count": len(found)}})


async def version(request: Request) -> Response:
    refused = _guard(request)
    if refused is not None:
        return refused
    wanted = request.path_params["version"]
    for item in reversed(_of(request.path_params["name"])):
        meta = item["_meta"][OFFICIAL]
        if (wanted == "latest" and meta["isLatest"]) or item["server"]["version"] == wanted:
            return JSONResponse(item)
    return JSONResponse({"error": "Server not found"}, status_code=404)


async def files(request: Request) -> Response:
    name = request.path_params["name"]
    if FILES is None or "/" in name or name.startswith("."):
        return JSONResponse({"error": "not found"}, status_code=404)
    path = FILES / name
    if not path.is_file():
        return JSONResponse({"error": "not found"}, status_code=404)
    return FileResponse(path)


app = Starlette(
    routes=[
        Route("/v0.1/servers", list_servers),
        Route("/v0.1/servers/{name:path}/versions/{version}", version),
        Route("/v0.1/servers/{name:path}/versions", versions),
        Route("/files/{name}", files),
    ]
)

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
