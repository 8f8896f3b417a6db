"""The CLI's side of the warm host: :class:`RemoteHost` stands in for a started
:class:`MCPHost` in ``hermes mcp status/tools/call/test`` while ``hermes mcp up`` runs.

It answers what those commands read (``status()``, ``tools()``, ``unoffered_tools``,
``registry.get/entries``) from one snapshot taken when it connects, narrowed to the servers
the command would have started (*only*), and sends ``call_tool`` and ``wake`` to the host.
A call's questions are asked here, through the command's own elicitor.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hermes_core.offers.elicitation import ElicitationField, ElicitationRequest
from hermes_core.serve.warm.paths import WarmPaths
from hermes_core.serve.warm.protocol import (
    MAX_LINE,
    entry_from,
    read_message,
    row_from,
    write_message,
)

if TYPE_CHECKING:
    from hermes_core.host.notifications import ProgressCallback
    from hermes_core.host.registry import ToolEntry
    from hermes_core.host.status import ServerStatus
    from hermes_core.offers.elicitation import Elicitor

__all__ = ["RemoteHost", "WarmHostGone", "answer_question", "stop_warm_host"]


class WarmHostGone(Exception):
    """The warm host closed the connection before answering."""


class _Registry:
    def __init__(self, entries: list[ToolEntry]) -> None:
        self._entries = {e.name: e for e in entries}

    def get(self, name: str) -> ToolEntry | None:
        return self._entries.get(name)

    def entries(self, server: str | None = None) -> list[ToolEntry]:
        found = sorted(self._entries.values(), key=lambda e: e.name)
        return [e for e in found if server is None or e.server == server]


async def _exchange(
    paths: WarmPaths, message: dict[str, Any]
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_unix_connection(str(paths.socket), limit=MAX_LINE)
    await write_message(writer, message)
    return reader, writer


async def _one(paths: WarmPaths, message: dict[str, Any]) -> dict[str, Any]:
    reader, writer = await _exchange(paths, message)
    try:
        answer = await read_message(reader)
    finally:
        writer.close()
    if answer is None:
        raise WarmHostGone("the warm host closed the connection")
    return answer


class RemoteHost:
    """A started host, as seen through the warm host's socket (see the module docstring)."""

    def __init__(
        self,
        paths: WarmPaths,
        snapshot: dict[str, Any],
        only: list[str] | None,
        elicitor: Elicitor | None,
    ) -> None:
        self.paths = paths
        self.pid = snapshot.get("pid")
        keep = set(only) if only is not None else None
        self._rows = [
            row_from(r) for r in snapshot["status"] if keep is None or r["server"] in keep
        ]
        entries = [entry_from(e) for e in snapshot["tools"] if keep is None or e["server"] in keep]
        self._offered = set(snapshot.get("offered", ()))
        self.registry = _Registry(entries)
        self._unoffered: dict[str, dict[str, str]] = {
            k: v for k, v in snapshot.get("unoffered", {}).items() if keep is None or k in keep
        }
        self._elicitor = elicitor

    @classmethod
    async def connect(
        cls, paths: WarmPaths, only: list[str] | None, elicitor: Elicitor | None
    ) -> RemoteHost:
        return cls(paths, await _one(paths, {"op": "snapshot"}), only, elicitor)

    def status(self) -> list[ServerStatus]:
        return list(self._rows)

    def tools(self, server: str | None = None, *, include_gated: bool = False) -> list[ToolEntry]:
        entries = self.registry.entries(server)
        return entries if include_gated else [e for e in entries if e.name in self._offered]

    @property
    def unoffered_tools(self) -> dict[str, dict[str, str]]:
        return self._unoffered

    async def wake(self, name: str) -> str | None:
        answer = await _one(self.paths, {"op": "wake", "name": name})
        woke = answer.get("result")
        return woke if isinstance(woke, str) else None

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        on_progress: ProgressCallback | None = None,
    ) -> dict[str, Any]:
        message = {
            "op": "call",
            "name": name,
            "arguments": dict(arguments or {}),
            "ask": self._elicitor is not None,
        }
        reader, writer = await _exchange(self.paths, message)
        try:
            while (answer := await read_message(reader)) is not None:
                if "result" in answer:
                    result = answer["result"]
                    return result if isinstance(result, dict) else {"error": "bad answer"}
                if "progress" in answer and on_progress is not None:
                    done, total, text = [*answer["progress"], None, None, None][:3]
                    on_progress(float(done), total, text)
                elif "ask" in answer:
                    reply = await answer_question(self._elicitor, answer["ask"])
                    await write_message(writer, {"answer": reply})
        finally:
            writer.close()
        raise WarmHostGone("the warm host closed the connection during the call")

    async def close(self) -> None:
        return None


async def answer_question(elicitor: Elicitor | None, question: Any) -> dict[str, Any]:
    """The warm host's question (an ``{"ask": ...}``) put to *elicitor*; the reply to send."""
    if elicitor is None or not isinstance(question, dict):
        return {"action": "decline"}
    try:
        fields = tuple(ElicitationField(**f) for f in question.get("fields", ()))
    except TypeError:
        return {"action": "decline"}
    request = ElicitationRequest(
        server=str(question.get("server", "")),
        message=str(question.get("message", "")),
        fields=fields,
        schema=question.get("schema") or {},
        kind="approval" if question.get("kind") == "approval" else "form",
    )
    answer = await elicitor(request)
    return {"action": answer.action, "content": dict(answer.content or {})}


async def stop_warm_host(paths: WarmPaths) -> int | None:
    """Ask the warm host to stop; returns its pid once it has closed every server (it
    answers only then)."""
    answer = await _one(paths, {"op": "stop"})
    pid = answer.get("pid")
    return pid if isinstance(pid, int) else None
