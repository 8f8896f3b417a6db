"""``GET /healthz`` and ``GET /readyz``: answered without a token, on the port of ``/mcp``.

``/healthz`` says the process is alive and serving (200).  ``/readyz`` says whether it can
serve calls: 200 when every engine it depends on (the state store, the bus) answers, else 503
naming which does not — a load balancer or Kubernetes takes the replica out of rotation until
they answer again.  Neither says more than ``ok`` or ``unreachable`` per engine: no address,
no version, no count.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping

from hermes_core.serve.http_auth import Scope, Send

__all__ = ["PATHS", "Health"]

PATHS = ("/healthz", "/readyz")
Probe = Callable[[], Awaitable[bool]]
PROBE_SECONDS = 2.0


class Health:
    """The probes of ``/readyz`` (name → an async check), answered by :meth:`answer`."""

    def __init__(self, probes: Mapping[str, Probe] | None = None) -> None:
        self.probes = dict(probes or {})

    async def ready(self) -> dict[str, str]:
        async def one(probe: Probe) -> str:
            try:
                ok = await asyncio.wait_for(probe(), PROBE_SECONDS)
            except Exception:  # noqa: BLE001 - the bus or a peer failing never ends the replica
                ok = False
            return "ok" if ok else "unreachable"

        names = list(self.probes)
        results = await asyncio.gather(*(one(self.probes[n]) for n in names))
        return dict(zip(names, results, strict=True))

    async def answer(self, scope: Scope, send: Send) -> bool:
        """Answer *scope* when it is a health request (``True``); else leave it (``False``)."""
        if scope.get("type") != "http" or scope.get("path") not in PATHS:
            return False
        if scope.get("method") not in ("GET", "HEAD"):
            await _send(send, 405, {"error": "GET only"})
            return True
        if scope.get("path") == "/healthz":
            await _send(send, 200, {"status": "alive"})
            return True
        checks = await self.ready()
        ready = all(v == "ok" for v in checks.values())
        await _send(
            send, 200 if ready else 503, {"status": "ready" if ready else "not ready", **checks}
        )
        return True


async def _send(send: Send, status: int, payload: dict[str, str]) -> None:
    body = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"cache-control", b"no-store"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
