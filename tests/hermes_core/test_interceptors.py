"""The ``intercept`` step through :class:`MCPHost`: order, decisions, failing closed, the
built-ins' place and the approval's record, against in-process servers
(``tests/support/memory.py``: the host's real client, pipeline and rendering)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hermes_core.host.calls.intercept.builtin import BUILTIN_INTERCEPTORS
from hermes_core.host.calls.intercept.step import ActiveInterceptor
from hermes_core.host.calls.intercept.table import InterceptorTable
from hermes_core.host.host import HostServer, MCPHost
from hermes_core.plugins.types import (
    CallInterceptor,
    Decision,
    InterceptedCall,
    InterceptorSetup,
)
from support.approvers import Approver
from support.memory import MEMORY, MemoryTransport, ToyServer, memory_server

BUILTIN = {spec.name: spec for spec in BUILTIN_INTERCEPTORS}


def toy() -> ToyServer:
    server = ToyServer("s")
    server.tool("echo", lambda args: json.dumps(args, sort_keys=True))
    server.tool("delete_all", "gone")
    server.tool("read", "the text", read_only=True)
    return server


def run_calls(
    table: Mapping[str, ActiveInterceptor],
    calls: list[tuple[str, dict[str, Any]]],
    *,
    server: ToyServer | None = None,
    names: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    """*calls* through a host whose server ``s`` selects the interceptors *names* of *table*."""
    served = server or toy()
    entry = memory_server("s", interceptors=names)

    async def scenario() -> list[dict[str, Any]]:
        async with MCPHost(
            [entry], transports={MEMORY: MemoryTransport({"s": served})}, interceptors=table
        ) as host:
            return [await host.call_tool(name, args) for name, args in calls]

    return asyncio.run(scenario())


def test_before_runs_in_order_and_after_in_reverse_order() -> None:
    seen: list[str] = []

    def make(tag: str) -> ActiveInterceptor:
        def before(call: InterceptedCall) -> None:
            seen.append(f"before {tag}")

        def after(call: InterceptedCall, result: dict[str, Any]) -> None:
            seen.append(f"after {tag}")

        return ActiveInterceptor(tag, before, after)

    run_calls({"a": make("a"), "b": make("b")}, [("mcp_s_echo", {})], names=("a", "b"))
    assert seen == ["before a", "before b", "after b", "after a"]


def test_a_refusal_is_what_the_agent_reads_and_nothing_reaches_the_server() -> None:
    server = toy()

    def deny(call: InterceptedCall) -> Decision | None:
        return Decision.refuse("deleting is off") if call.tool.startswith("delete_") else None

    outer_saw: list[str] = []
    outer = ActiveInterceptor("outer", after=lambda c, r: outer_saw.append(r.get("state")))
    refused, passed = run_calls(
        {"deny": ActiveInterceptor("deny", before=deny), "outer": outer},
        [("mcp_s_delete_all", {}), ("mcp_s_echo", {"x": 1})],
        server=server,
        names=("outer", "deny"),
    )
    assert refused == {
        "error": "The call to 'delete_all' on MCP server 's' was refused by the interceptor "
        "'deny': deleting is off",
        "server": "s",
        "state": "refused",
        "interceptor": "deny",
        "retryable": False,
    }
    assert server.called("delete_all") == 0 and server.called("echo") == 1
    assert passed["content"][0]["text"] == '{"x": 1}'
    assert outer_saw[0] == "refused"  # the refusal went back through the outer after


def test_a_rewrite_changes_what_the_later_interceptors_and_the_server_see() -> None:
    server = toy()
    later: list[Mapping[str, Any]] = []

    def confine(call: InterceptedCall) -> Decision:
        return Decision.rewrite({**call.arguments, "path": "/sandbox/" + call.arguments["path"]})

    result = run_calls(
        {
            "confine": ActiveInterceptor("confine", before=confine),
            "look": ActiveInterceptor("look", before=lambda c: later.append(dict(c.arguments))),
        },
        [("mcp_s_echo", {"path": "notes.txt"})],
        server=server,
        names=("confine", "look"),
    )[0]
    assert later == [{"path": "/sandbox/notes.txt"}]
    assert server.calls == [("echo", {"path": "/sandbox/notes.txt"})]
    assert json.loads(result["content"][0]["text"]) == {"path": "/sandbox/notes.txt"}


def test_async_interceptors_and_a_replaced_result() -> None:
    async def before(call: InterceptedCall) -> Decision:
        await asyncio.sleep(0)
        return Decision.allow()

    async def after(call: InterceptedCall, result: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(0)
        return {"content": [{"type": "text", "text": "[replaced]"}], "isError": False}

    (result,) = run_calls(
        {"r": ActiveInterceptor("r", before, after)}, [("mcp_s_read", {})], names=("r",)
    )
    assert result == {"content": [{"type": "text", "text": "[replaced]"}], "isError": False}


def test_a_raising_interceptor_fails_the_call_closed_with_its_name() -> None:
    server = toy()

    def broken(call: InterceptedCall) -> None:
        raise KeyError("oops")

    def bad_after(call: InterceptedCall, result: dict[str, Any]) -> None:
        raise ValueError("cannot redact")

    before_failed, after_failed, still_fine = run_calls(
        {
            "broken": ActiveInterceptor("broken", before=broken),
            "bad_after": ActiveInterceptor("bad_after", after=bad_after),
        },
        [("mcp_s_echo", {}), ("mcp_s_read", {}), ("mcp_s_read", {})],
        server=server,
        names=("broken",),
    )[:1] + run_calls(
        {"bad_after": ActiveInterceptor("bad_after", after=bad_after)},
        [("mcp_s_read", {}), ("mcp_s_echo", {})],
        server=server,
        names=("bad_after",),
    )
    assert before_failed["state"] == "interceptor_failed"
    assert before_failed["interceptor"] == "broken"
    assert before_failed["error"] == (
        "The call to 'echo' on MCP server 's' failed closed: the interceptor 'broken' failed "
        "(KeyError: 'oops'); the call was not sent."
    )
    assert "the text" not in json.dumps(after_failed)  # the result is withheld
    assert after_failed["error"].endswith(
        "the interceptor 'bad_after' failed (ValueError: cannot redact); its result is withheld."
    )
    assert still_fine["state"] == "interceptor_failed"  # each call fails alone; the host goes on
    assert server.called("echo") == 1  # the first host never sent its echo


def test_a_wrong_return_type_and_an_unregistered_name_fail_closed() -> None:
    results = run_calls(
        {"odd": ActiveInterceptor("odd", before=lambda c: "yes")},  # type: ignore[arg-type,return-value]
        [("mcp_s_echo", {})],
        names=("odd",),
    ) + run_calls({}, [("mcp_s_echo", {})], names=("missing",))
    assert "its before returned a str, not a Decision" in results[0]["error"]
    assert "the interceptor 'missing' failed (it is not registered)" in results[1]["error"]


def test_a_server_without_interceptors_has_no_intercept_step_in_its_chain() -> None:
    async def scenario() -> list[str]:
        server = memory_server("s")
        async with MCPHost(
            [server], transports={MEMORY: MemoryTransport({"s": toy()})}, interceptors={}
        ) as host:
            entry, config = host.pipeline.resolve("mcp_s_echo") or (None, None)
            assert entry is not None and config is not None
            chain = host.pipeline.chain(entry, config)
            names = []
            while hasattr(chain, "step"):
                names.append(chain.step.name)
                chain = chain.proceed
            return names

    assert "intercept" not in asyncio.run(scenario())


def test_the_call_an_interceptor_sees() -> None:
    seen: list[InterceptedCall] = []
    server = ToyServer("s")
    server.tool("write", "ok", read_only=False)
    entry = HostServer(
        "s",
        transport=MEMORY,
        url="https://user:secret@mcp.example.com/mcp",
        trust="untrusted",
        interceptors=("look",),
        max_result_tokens=1234,
    )

    async def scenario() -> dict[str, Any]:
        async with MCPHost(
            [entry],
            transports={MEMORY: MemoryTransport({"s": server})},
            elicitor=Approver("accept"),
            interceptors={"look": ActiveInterceptor("look", after=lambda c, r: seen.append(c))},
        ) as host:
            return await host.call_tool("mcp_s_write", {"body": "hi"})

    assert asyncio.run(scenario())["content"][0]["text"] == "ok"
    (call,) = seen
    assert (call.server, call.tool, call.name) == ("s", "write", "mcp_s_write")
    assert call.arguments == {"body": "hi"}
    assert call.trust == "untrusted" and call.approved_by == "user"
    assert call.url is not None and "secret" not in call.url and "mcp.example.com" in call.url
    assert call.max_result_tokens == 1234 and call.annotations == {"readOnlyHint": False}


def test_an_interceptor_table_sets_each_up_once_and_a_failed_setup_fails_its_calls(
    tmp_path: Path,
) -> None:
    made: list[InterceptorSetup] = []

    class Counter:
        after = None

        def __init__(self, setup: InterceptorSetup) -> None:
            made.append(setup)
            self.calls = 0

        def before(self, call: InterceptedCall) -> None:
            self.calls += 1

    def explode(setup: InterceptorSetup) -> Any:
        raise ValueError("counter.limit must be a number")

    table = InterceptorTable(
        {
            "counter": CallInterceptor(name="counter", create=Counter),
            "bad": CallInterceptor(name="bad", create=explode),
        },
        lambda name: InterceptorSetup(tmp_path, {"limit": 3}),
    )
    results = run_calls(table, [("mcp_s_echo", {})] * 3, names=("counter",))
    assert all("error" not in r for r in results)
    assert len(made) == 1 and made[0].settings == {"limit": 3}
    (failed,) = run_calls(table, [("mcp_s_echo", {})], names=("bad",))
    assert "counter.limit must be a number" in failed["error"]
    assert failed["state"] == "interceptor_failed"


def test_the_builtin_audit_through_the_host_records_the_approval_and_the_refusal(
    tmp_path: Path,
) -> None:
    server = ToyServer("s")
    server.tool("write", "written")
    server.tool("read", "the text", read_only=True)
    entry = memory_server("s", trust="untrusted", interceptors=("audit", "deny"))

    def deny(call: InterceptedCall) -> Decision | None:
        return Decision.refuse("no secrets") if call.arguments.get("body") == "secret" else None

    table = InterceptorTable(
        {"audit": BUILTIN["audit"], "deny": CallInterceptor(name="deny", before=deny)},
        lambda name: InterceptorSetup(tmp_path),
    )
    approver = Approver("accept")

    async def scenario() -> list[dict[str, Any]]:
        async with MCPHost(
            [entry],
            transports={MEMORY: MemoryTransport({"s": server})},
            elicitor=approver,
            interceptors=table,
        ) as host:
            return [
                await host.call_tool("mcp_s_write", {"body": "x"}),
                await host.call_tool("mcp_s_write", {"body": "secret"}),
            ]

    written, refused = asyncio.run(scenario())
    assert written["content"][0]["text"] == "written" and refused["state"] == "refused"
    assert len(approver.seen) == 1  # the refused call was never put to the user
    lines = [json.loads(x) for x in (tmp_path / "logs" / "audit.jsonl").read_text().splitlines()]
    assert [(r["tool"], r["outcome"], r["approved_by"]) for r in lines] == [
        ("write", "ok", "user"),
        ("write", "refused", None),
    ]
    assert lines[1]["decisions"][0]["reason"] == "no secrets"
    assert "secret" not in (tmp_path / "logs" / "audit.jsonl").read_text().replace("no secrets", "")


def test_a_cancelled_call_is_still_audited(tmp_path: Path) -> None:
    started = asyncio.Event()

    async def forever(args: dict[str, Any]) -> str:
        started.set()
        await asyncio.Event().wait()
        return "never"

    server = ToyServer("s")
    server.tool("wait", forever)
    entry = memory_server("s", interceptors=("audit",))

    async def scenario() -> None:
        async with MCPHost(
            [entry],
            transports={MEMORY: MemoryTransport({"s": server})},
            interceptors=InterceptorTable.builtin(tmp_path),
        ) as host:
            task = asyncio.create_task(host.call_tool("mcp_s_wait", {}))
            await started.wait()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    asyncio.run(scenario())
    (line,) = (tmp_path / "logs" / "audit.jsonl").read_text().splitlines()
    assert json.loads(line)["outcome"] == "cancelled"
