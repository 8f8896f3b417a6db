"""Talk to an MCP registry (the v0.1 API): list and search servers, read one version, fetch a
file.  Every answer is bounded (bytes, time); every failure is one :class:`RegistryError`
sentence naming the registry and what went wrong, never a traceback.

* ``GET /v0.1/servers?search=&cursor=&limit=&version=latest`` → ``{servers, metadata}``
* ``GET /v0.1/servers/{name}/versions/{version}`` (``latest`` allowed) → ``{server, _meta}``
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

import httpx2

from hermes_core import __version__
from hermes_core.catalog.registry.loopback import is_loopback
from hermes_core.catalog.registry.registries import Registry
from hermes_core.catalog.registry.server_json import ServerJson, ServerJsonError, parse_server_json
from hermes_core.host.connection.network_words import network_words

__all__ = ["Listed", "Page", "RegistryClient", "RegistryError", "download"]

MAX_ANSWER_BYTES = 8 * 1024 * 1024
TIMEOUT = 20.0
"""Seconds for one read (connect, each chunk)."""
ANSWER_DEADLINE = 60.0
"""Seconds for a whole registry answer (a server trickling bytes is cut off)."""
DOWNLOAD_DEADLINE = 600.0
MAX_REDIRECTS = 5
"""Redirects a bundle download follows (each checked as the first URL is)."""
_OFFICIAL_META = "io.modelcontextprotocol.registry/official"


class RegistryError(Exception):
    """A registry that could not be asked, or answered something unusable."""


@dataclass(frozen=True)
class Listed:
    """One server of an answer: parsed, or the reason it could not be."""

    registry: Registry
    name: str
    server: ServerJson | None
    problem: str | None = None
    status: str | None = None
    published_at: str | None = None


@dataclass(frozen=True)
class Page:
    servers: list[Listed]
    next_cursor: str | None


def _read_bounded(response: httpx2.Response, limit: int, label: str) -> bytes:
    declared = response.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise RegistryError(f"{label}: the answer is larger than {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    deadline = time.monotonic() + ANSWER_DEADLINE
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise RegistryError(f"{label}: the answer is larger than {limit} bytes")
        if time.monotonic() > deadline:
            raise RegistryError(f"{label}: the answer took longer than {ANSWER_DEADLINE:g} s")
        chunks.append(chunk)
    return b"".join(chunks)


class RegistryClient:
    """One registry's v0.1 API."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json", "User-Agent": f"hermes/{__version__}"}
        token = self.registry.token()
        if token is not None:
            if urlsplit(self.registry.url).scheme != "https" and not is_loopback(self.registry.url):
                raise RegistryError(
                    f"registry {self.registry.name}: refusing to send its token over plain "
                    f"http to {self.registry.url} (use https://)"
                )
            headers["Authorization"] = f"Bearer {token}"
        elif self.registry.token_variable is not None:
            raise RegistryError(
                f"registry {self.registry.name}: its token ${{{self.registry.token_variable}}} "
                "is not set (put it in $HERMES_HOME/.env)"
            )
        return headers

    def _get(self, path: str, params: Mapping[str, str] | None = None) -> tuple[int, object]:
        url = f"{self.registry.url}{path}"
        label = f"registry {self.registry.name} ({self.registry.url})"
        try:
            with (
                httpx2.Client(timeout=TIMEOUT, follow_redirects=False) as client,
                client.stream("GET", url, params=params, headers=self._headers()) as response,
            ):
                body = _read_bounded(response, MAX_ANSWER_BYTES, label)
                status = response.status_code
        except httpx2.TimeoutException:
            raise RegistryError(f"{label}: timed out (no answer within {TIMEOUT:g} s)") from None
        except httpx2.HTTPError as exc:
            raise RegistryError(f"{label}: cannot connect: {network_words(exc)}") from None
        if status == 404:
            return status, None
        if status in (401, 403):
            raise RegistryError(f"{label}: access refused (HTTP {status}); check its token")
        if status != 200:
            raise RegistryError(f"{label}: answered HTTP {status}")
        try:
            return status, json.loads(body)
        except (ValueError, RecursionError):
            raise RegistryError(f"{label}: the answer is not JSON") from None

    def _listed(self, item: object, where: str) -> Listed:
        if not isinstance(item, dict):
            return Listed(self.registry, "?", None, f"{where}: not an object")
        raw = item.get("server")
        name = raw.get("name") if isinstance(raw, dict) else None
        meta = item.get("_meta")
        official = meta.get(_OFFICIAL_META) if isinstance(meta, dict) else None
        status = official.get("status") if isinstance(official, dict) else None
        published = official.get("publishedAt") if isinstance(official, dict) else None
        try:
            server = parse_server_json(raw, where)
        except ServerJsonError as exc:
            return Listed(self.registry, str(name or "?"), None, str(exc))
        return Listed(
            self.registry,
            server.name,
            server,
            None,
            status if isinstance(status, str) else server.status,
            published if isinstance(published, str) else None,
        )

    def page(self, search: str | None, cursor: str | None = None, limit: int = 30) -> Page:
        """One page of the latest versions (matching *search*), and the next page's cursor."""
        params = {"limit": str(limit), "version": "latest"}
        if search:
            params["search"] = search
        if cursor:
            params["cursor"] = cursor
        _status, data = self._get("/v0.1/servers", params)
        if not isinstance(data, dict) or not isinstance(data.get("servers"), list):
            raise RegistryError(f"registry {self.registry.name}: the answer has no servers list")
        items = data["servers"][:200]
        listed = [self._listed(item, f"servers[{i}]") for i, item in enumerate(items)]
        metadata = data.get("metadata")
        nxt = metadata.get("nextCursor") if isinstance(metadata, dict) else None
        return Page(listed, nxt if isinstance(nxt, str) and nxt else None)

    def server(self, name: str, version: str = "latest") -> Listed | None:
        """*name* at *version* (``latest``), or ``None`` when the registry has no such server."""
        path = f"/v0.1/servers/{quote(name, safe='')}/versions/{quote(version, safe='')}"
        status, data = self._get(path)
        if status == 404:
            return None
        return self._listed(data, f"{name}@{version}")


def _check_hop(url: str, came_from: str | None) -> None:
    """A download URL: ``https://``, or ``http://`` to a loopback address; a redirect from
    ``https://`` never to ``http://`` (not even loopback)."""
    scheme = urlsplit(url).scheme
    if came_from is not None and urlsplit(came_from).scheme == "https" and scheme != "https":
        raise RegistryError(
            f"{came_from}: redirected from https:// to {scheme}:// ({url}); refused, a bundle "
            "is never fetched over plain http after https"
        )
    if scheme != "https" and not (scheme == "http" and is_loopback(url)):
        raise RegistryError(f"{url}: bundles are fetched over https:// only")


def download(url: str, limit: int, *, into: Path) -> tuple[Path, str]:
    """Fetch *url* (``https://``, or ``http://`` on loopback) into a new file under *into*;
    returns (file, its SHA-256).  At most *limit* bytes and :data:`MAX_REDIRECTS` redirects,
    each checked as the first URL is, none from https to http; :class:`RegistryError`
    otherwise."""
    _check_hop(url, None)
    into.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=".download-", suffix=".mcpb", dir=into)
    digest = hashlib.sha256()
    size = 0
    deadline = time.monotonic() + DOWNLOAD_DEADLINE
    try:
        with (
            os.fdopen(fd, "wb") as out,
            httpx2.Client(timeout=TIMEOUT, follow_redirects=False) as client,
        ):
            here = url
            for _hop in range(MAX_REDIRECTS + 1):
                with client.stream("GET", here) as response:
                    location = response.headers.get("location")
                    if response.is_redirect and location is not None:
                        target = urljoin(here, location)
                        _check_hop(target, here)
                        here = target
                        continue
                    if response.status_code != 200:
                        raise RegistryError(f"{url}: answered HTTP {response.status_code}")
                    for chunk in response.iter_bytes():
                        size += len(chunk)
                        if size > limit:
                            raise RegistryError(f"{url}: the bundle is larger than {limit} bytes")
                        if time.monotonic() > deadline:
                            raise RegistryError(
                                f"{url}: the download took over {DOWNLOAD_DEADLINE:g} s"
                            )
                        digest.update(chunk)
                        out.write(chunk)
                    break
            else:
                raise RegistryError(f"{url}: more than {MAX_REDIRECTS} redirects")
    except (httpx2.HTTPError, OSError) as exc:
        os.unlink(name)
        raise RegistryError(f"{url}: could not download ({type(exc).__name__})") from None
    except BaseException:
        os.unlink(name)
        raise
    return Path(name), digest.hexdigest()
