"""The tasks extension (``io.modelcontextprotocol/tasks``, 2026-07-28) as the SDK's client
session can carry it, and the 2025-11-25 task fields the SDK's models refuse.

The ``mcp`` SDK 2.3 has no task API on either revision: its 2025-11-25 tables leave ``tasks/*``
out (a ``tools/call`` answered with a ``CreateTaskResult`` fails validation), and on 2026-07-28
it knows extensions only as *result claims*.  So the host

* advertises the extension on 2026-07-28 sessions through the session's public
  ``extensions``/``result_claims`` arguments (:func:`session_extensions`): a ``tools/call``
  answered with ``resultType: "task"`` then comes back as :class:`ModernTaskCreated`, with
  ``allow_claimed=True``;
* sends ``tools/call`` with ``task`` and every ``tasks/*`` request raw, through
  :func:`hermes_core._sdk_compat.send_raw_request` (the session's private dispatcher, under the
  canary of :func:`hermes_core._sdk_compat.missing`), and reads the answers itself
  (:mod:`hermes_core.host.tasks.state` bounds and checks every field).

Importing this module imports pydantic and ``mcp_types`` (light; no transport).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypedDict

from mcp_types import CallToolResult, Result
from pydantic import ConfigDict, Field

from hermes_core._sdk_compat import TASKS_EXTENSION

if TYPE_CHECKING:
    from mcp.client.extension import ClaimContext, ResultClaim

__all__ = ["TASKS_EXTENSION", "ModernTaskCreated", "SessionExtensions", "session_extensions"]


class ModernTaskCreated(Result):
    """A 2026-07-28 ``tools/call`` answered with a task handle (``resultType: "task"``).

    Only the discriminator is typed: the handle's fields are read from the raw dump and checked
    by the host (a server's values are untrusted input)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    result_type: Literal["task"] = Field(alias="resultType")

    def fields(self) -> dict[str, object]:
        """The handle as the server sent it (``taskId``, ``status``, …)."""
        return dict(self.model_extra or {})


async def _never_resolved(result: ModernTaskCreated, context: ClaimContext) -> CallToolResult:
    """The claim's resolver: unused, the host follows a task itself (``allow_claimed=True``)."""
    raise RuntimeError("a task handle is followed by the host, not by the SDK")


class SessionExtensions(TypedDict):
    """The ``ClientSession`` keyword arguments :func:`session_extensions` gives."""

    extensions: dict[str, dict[str, object]]
    result_claims: dict[str, list[ResultClaim[ModernTaskCreated]]]


def session_extensions() -> SessionExtensions:
    """The ``ClientSession`` keyword arguments that declare the tasks extension on 2026-07-28
    requests (the SDK drops the claim, and the declaration, on a 2025-11-25 session)."""
    from mcp.client.extension import ResultClaim

    claim = ResultClaim(result_type="task", model=ModernTaskCreated, resolve=_never_resolved)
    return {"extensions": {TASKS_EXTENSION: {}}, "result_claims": {TASKS_EXTENSION: [claim]}}
