"""Change notices sent from any process (a replica, ``hermes mcp approvals``, the dashboard):
a blocking publish on the bus after a write to the shared state, so every replica applies the
change at once instead of re-reading the store before each call.

A notice that cannot be sent is logged, never raised: the write is in the state store already,
and a replica that missed a notice re-reads everything once it hears the bus again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from hermes_core.host.fleet.bus import NOTICES, NoticeKind, notice_message
from hermes_core.host.fleet.settings import BusSettings

if TYPE_CHECKING:
    import redis

__all__ = ["notice_sender"]

log = logging.getLogger(__name__)
#: The longest a write waits for its notice to be sent.
SEND_SECONDS = 1.0


def notice_sender(settings: BusSettings, kind: NoticeKind) -> Callable[[], None]:
    """A function that publishes one notice of *kind* on the bus of *settings*."""
    client: list[redis.Redis] = []
    lock = threading.Lock()

    def send() -> None:
        try:
            with lock:
                if not client:
                    import redis

                    client.append(
                        redis.Redis.from_url(
                            settings.url,
                            socket_timeout=SEND_SECONDS,
                            socket_connect_timeout=SEND_SECONDS,
                        )
                    )
                client[0].publish(NOTICES, notice_message(kind))
        except Exception as exc:  # noqa: BLE001 - the write is done; a lost notice is logged
            first = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            log.warning("the change was not announced on the bus (%s): %s", settings.shown, first)

    return send
