"""An MCP server (``mcp`` SDK) that speaks ONLY 2026-07-28 and runs tools as tasks through the
tasks extension (``io.modelcontextprotocol/tasks``, SEP-2663), built on the SDK's extension
interface (``mcp.server.extension.Extension``: the ``tasks/*`` methods and a ``tools/call``
interceptor).

Usage: ``python modern_task_server.py`` (stdio) or ``python modern_task_server.py PORT``
(Streamable HTTP).  A task advances one stage each time it is looked at (``tasks/get``), so a
test never waits on a clock.  Tools:

* ``research(topic)``: a task through three stages, then ``report on <topic>``;
* ``clarify(topic)``: a task that asks (``input_required``, an elicitation under the key
  ``which``) and completes with the answer;
* ``forever()``: a task that never ends (until ``tasks/cancel``);
* ``broken()``: a task that fails with a JSON-RPC error;
* ``hostile()``: a task handle whose id would split an HTTP header;
* ``cancelled()``: the ids of the tasks this server was asked to cancel (plain result);
* ``echo(text)``: plain.
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import itertools
import json
import sys
from datetime import UTC, datetime
from typing import Any

import anyio
import uvicorn
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.server import require_client_extension
from mcp.server.runner import _serve_modern_stream  # the SDK's modern-only stream loop
from mcp.server.stdio import stdio_server
from mcp_types import CallToolRequestParams, RequestParams
from modern_server import refuse_initialize  # (the script's folder is on sys.path)
from pydantic import ConfigDict, Field

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

TASKS = "io.modelcontextprotocol/tasks"
STAGES = ("Gathering sources", "Analysing", "Writing the report")
_ids = itertools.count(1)
tasks: dict[str, dict[str, Any]] = {}
cancel_requests: list[str] = []


def _now() -> str:
    return datetime.now(UTC).isoformat()


class TaskParams(RequestParams):
    model_config = ConfigDict(extra="allow", populate_by_name=True)
    task_id: str = Field(alias="taskId")


class UpdateParams(TaskParams):
    input_responses: dict[str, Any] = Field(alias="inputResponses")


def _shape(task: dict[str, Any]) -> dict[str, Any]:
    shown = {k: v for k, v in task.items() if not k.startswith("_")}
    return shown


def _text_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}}


def _advance(task: dict[str, Any]) -> None:
    """One step of *task*'s work (run when it is looked at)."""
    if task["status"] not in ("working",):
        return
    kind = task["_tool"]
    task["lastUpdatedAt"] = _now()
    if kind == "forever":
        task["statusMessage"] = "still working"
        return
    if kind == "broken":
        task.update(status="failed", error={"code": -32603, "message": "the research failed"})
        return
    if kind == "clarify":
        if "_answer" in task:
            answer = task["_answer"]
            text = f"report on {task['_topic']}: {answer}"
            task.update(status="completed", result=_text_result(text))
            return
        task.update(
            status="input_required",
            statusMessage="which topic do you mean?",
            inputRequests={
                "which": {
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": f"Which {task['_topic']} do you mean?",
                        "requestedSchema": {
                            "type": "object",
                            "properties": {"meaning": {"type": "string"}},
                            "required": ["meaning"],
                        },
                    },
                }
            },
        )
        return
    stage = task["_stage"]
    if stage < len(STAGES):
        task["statusMessage"] = f"{STAGES[stage]} ({stage + 1}/{len(STAGES)})"
        task["_stage"] = stage + 1
        return
    text = f"report on {task['_topic']}"
    task.update(status="completed", result=_text_result(text))


class TasksExtension(Extension):
    identifier = TASKS

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", TaskParams, self.get),
            MethodBinding("tasks/update", UpdateParams, self.update),
            MethodBinding("tasks/cancel", TaskParams, self.cancel),
        ]

    async def intercept_tool_call(
        self,
        params: CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        if params.name not in ("research", "clarify", "forever", "broken", "hostile"):
            return await call_next(ctx)
        require_client_extension(ctx, TASKS)
        if params.name == "hostile":  # a task id that would split an HTTP header
            return {"resultType": "task", "taskId": "t\r\nX-Injected: 1", "status": "working"}
        task_id = f"task-{next(_ids)}"
        now = _now()
        task = {
            "taskId": task_id,
            "status": "working",
            "statusMessage": "accepted",
            "createdAt": now,
            "lastUpdatedAt": now,
            "ttlMs": 60000,
            "pollIntervalMs": 10,
            "_tool": params.name,
            "_topic": (params.arguments or {}).get("topic", ""),
            "_stage": 0,
        }
        tasks[task_id] = task
        return {"resultType": "task", **_shape(task)}

    async def get(self, ctx: ServerRequestContext[Any, Any], params: TaskParams) -> HandlerResult:
        task = tasks[params.task_id]
        shown = _shape(task)  # what the client sees now; the work goes on after
        _advance(task)
        return {"resultType": "complete", **shown}

    async def update(
        self, ctx: ServerRequestContext[Any, Any], params: UpdateParams
    ) -> HandlerResult:
        task = tasks[params.task_id]
        answer = params.input_responses.get("which")
        if task["status"] == "input_required" and isinstance(answer, dict):
            content = answer.get("content") or {}
            task["_answer"] = content.get("meaning", answer.get("action"))
            task.pop("inputRequests", None)
            task.update(status="working", statusMessage="writing with the answer")
        return {"resultType": "complete"}

    async def cancel(
        self, ctx: ServerRequestContext[Any, Any], params: TaskParams
    ) -> HandlerResult:
        cancel_requests.append(params.task_id)
        task = tasks.get(params.task_id)
        if task is not None and task["status"] in ("working", "input_required"):
            task.update(status="cancelled", statusMessage="cancelled on request")
        return {"resultType": "complete"}


server = MCPServer("modern-tasks", extensions=[TasksExtension()])


@server.tool()
def research(topic: str) -> str:
    """Research *topic* (runs as a task)."""
    raise AssertionError("answered by the tasks extension")


@server.tool()
def clarify(topic: str) -> str:
    """Research *topic* after asking which one is meant (runs as a task)."""
    raise AssertionError("answered by the tasks extension")


@server.tool()
def forever() -> str:
    """Never finishes (runs as a task)."""
    raise AssertionError("answered by the tasks extension")


@server.tool()
def broken() -> str:
    """Fails (runs as a task)."""
    raise AssertionError("answered by the tasks extension")


@server.tool()
def hostile() -> str:
    """Answers with a malformed task handle."""
    raise AssertionError("answered by the tasks extension")


@server.tool()
def cancelled() -> str:
    """The ids of the tasks this server was asked to cancel, as JSON."""
    return json.dumps(cancel_requests)


@server.tool()
def echo(text: str) -> str:
    """Say *text* back."""
    return text


async def main() -> None:
    lowlevel: Any = server._lowlevel_server
    async with stdio_server() as (read, write), lowlevel.lifespan(lowlevel) as state:
        await _serve_modern_stream(
            lowlevel, read, write, lifespan_state=state, raise_exceptions=False
        )


if __name__ == "__main__":
    if len(sys.argv) > 1:
        app = refuse_initialize(server.streamable_http_app())
        uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
    else:
        anyio.run(main)
