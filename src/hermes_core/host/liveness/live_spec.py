"""A server's entry pointed at its running desktop app (see :mod:`.endpoint`)."""

from __future__ import annotations

import dataclasses

from hermes_core.host.liveness.endpoint import LiveEndpoint
from hermes_core.host.server_spec import HostServer

__all__ = ["live_spec"]


def live_spec(base: HostServer, endpoint: LiveEndpoint) -> HostServer:
    """*base* pointed at the running app: its endpoint and ``Authorization: Bearer <token>``.

    What the entry says itself wins: a ``command`` (a stdio bridge that needs the app) or an
    explicit ``url`` is kept as written, and the file's token is never sent to a URL it did
    not name; an explicit ``Authorization`` header wins over the token."""
    if base.command is not None or base.url is not None:
        return base
    live = dataclasses.replace(base, url=endpoint.url, transport="streamable_http")
    if not endpoint.token or any(key.lower() == "authorization" for key in base.headers):
        return live
    bearer = {"Authorization": f"Bearer {endpoint.token}"}
    return dataclasses.replace(live, headers={**base.headers, **bearer})
