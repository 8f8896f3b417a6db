"""The on-disk tool cache of ``lazy: true`` servers: register their tools without starting them.

One JSON file per server under ``$HERMES_HOME/cache/mcp-tools/``.  An entry is valid for a server
only while its *fingerprint* matches: a hash of the connection-relevant parts of its config
(transport, command, args as written, url, the names of its env variables and headers, and the
sampling and elicitation settings, since servers list some tools only to hosts that offer them)
that leaves credential *values* out, so rotating a token keeps the cache while pointing the server
somewhere else does not.  The tool filter is not part of it: the cache keeps the server's whole
listing and the filter applies on registration, as for a live listing.

Servers may say how long a listing stays fresh (``ttlMs`` on ``tools/list``, 2026-07-28): an
entry older than that is stale; ``ttlMs: 0`` means "do not cache" and the server starts eagerly.
A listing without the hint stays valid until the fingerprint changes or a live listing replaces
it.  Every write is atomic (a temporary file renamed over the old one).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from hermes_core.json_records import read_record, write_record
from hermes_core.json_types import JsonObject

__all__ = ["CachedListing", "cache_path", "fingerprint", "read_cache", "write_cache"]

FORMAT = 1
#: A cache file larger than this is not read (a damaged or planted file).
MAX_CACHE_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class CachedListing:
    tools: list[JsonObject]
    """The server's tools as it listed them (JSON, camelCase keys)."""
    capabilities: dict[str, bool]
    """Which of ``tools``, ``resources``, ``prompts`` the server offered."""
    written_at: float
    ttl_ms: int | None = None


def fingerprint(
    *,
    transport: str,
    command: str | None,
    args: list[str],
    url: str | None,
    env_names: list[str],
    header_names: list[str],
    cwd: str | None = None,
    offers: str | None = None,
) -> str:
    """A stable hash of where and how the server is reached, without credential values."""
    shape = {
        "transport": transport,
        "command": command,
        "args": list(args),
        "url": url,
        "env": sorted(env_names),
        "headers": sorted(name.lower() for name in header_names),
        "cwd": cwd,
        "offers": offers,
    }
    text = json.dumps(shape, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def cache_path(directory: Path, server: str) -> Path:
    # Server names are [A-Za-z0-9_.-]; a short hash keeps names that differ only in case apart.
    digest = hashlib.sha256(server.encode()).hexdigest()[:8]
    return directory / f"{server}-{digest}.json"


def read_cache(path: Path, expected: str, *, now: float | None = None) -> CachedListing | None:
    """The cached listing when it is there, readable, for *expected* and still fresh."""
    data = read_record(
        path, format=FORMAT, key_field="fingerprint", expected=expected, max_bytes=MAX_CACHE_BYTES
    )
    if data is None:
        return None
    tools, caps, written = data.get("tools"), data.get("capabilities"), data.get("written_at")
    if not isinstance(tools, list) or not isinstance(caps, dict):
        return None
    if not isinstance(written, int | float):
        return None
    ttl = data.get("ttl_ms")
    ttl = ttl if isinstance(ttl, int) and not isinstance(ttl, bool) and ttl >= 0 else None
    if ttl is not None and (time.time() if now is None else now) - written >= ttl / 1000:
        return None  # the server said how long its listing stays fresh
    return CachedListing(
        tools=[t for t in tools if isinstance(t, dict)],
        capabilities={k: bool(v) for k, v in caps.items() if isinstance(k, str)},
        written_at=float(written),
        ttl_ms=ttl,
    )


def write_cache(
    path: Path,
    expected: str,
    tools: Sequence[Mapping[str, object]],
    capabilities: Mapping[str, bool],
    *,
    ttl_ms: int | None = None,
) -> None:
    """Write the listing atomically (0600: descriptions can be private)."""
    payload = {
        "format": FORMAT,
        "fingerprint": expected,
        "written_at": time.time(),
        "ttl_ms": ttl_ms,
        "capabilities": dict(capabilities),
        "tools": list(tools),
    }
    write_record(path, payload, ensure_ascii=False)
