"""An MCP server (``mcp`` SDK, stdio) for the dashboard's working pages and its MCP Apps host:

- ``counter(start)``: its definition names the app ``ui://counter/view.html``
  (``_meta.ui.resourceUri``); the app shows the count it is given, and its *Add one* button
  calls ``increment`` back through the host;
- ``increment(count)``: ``count + 1``, as text and structured content (not read-only: an
  untrusted server's call of it waits for an approval);
- ``slow(gate)``: reports progress, then waits (bounded) until the file *gate* exists;
- ``shout(text)``: sends *text* as a log message (``notifications/message``), then adds a
  tool ``grown`` and says the tool list changed;
- a text resource ``note://readme``, a template ``note://items/{item}``, and a prompt
  ``greet(name, mood?)``.

The app's page also tries the network (a ``fetch``) and the page around it, and writes what
happened: a host that sandboxes it properly shows ``network: blocked`` and ``parent: closed``.
"""

from __future__ import annotations

import gc

gc.disable()  # importing the SDK builds many objects: no collection until it is done

import asyncio
import time
from pathlib import Path

import anyio
from mcp.server.lowlevel import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.stdio import stdio_server
from mcp.types import ToolAnnotations

gc.freeze()  # what the imports made stays: collections skip it from here on
gc.enable()

server = MCPServer("apps")

APP_URI = "ui://counter/view.html"
APP_MIME = "text/html;profile=mcp-app"
GATE_WAIT_S = 120.0

APP_HTML = """<!doctype html><html><head><meta charset="utf-8"><title>Counter</title>
<style>body{font:16px sans-serif;margin:8px} #count{font-size:28px;font-weight:bold}</style>
</head><body>
<div>count: <span id="count">?</span></div>
<div id="host">host: ?</div>
<div id="network">network: ?</div>
<div id="parent">parent: ?</div>
<button id="add">Add one</button>
<script>
(function(){
  var next = 1, waiting = {};
  function send(msg){ window.parent.postMessage(msg, "*"); }
  function request(method, params){
    var id = next++;
    send({jsonrpc: "2.0", id: id, method: method, params: params});
    return new Promise(function(resolve){ waiting[id] = resolve; });
  }
  function show(result){
    var data = result && result.structuredContent;
    if (data && typeof data.count === "number") {
      document.getElementById("count").textContent = String(data.count);
    }
  }
  window.addEventListener("message", function(event){
    if (event.source !== window.parent) return;
    var msg = event.data || {};
    if (msg.id !== undefined && waiting[msg.id]) {
      var done = waiting[msg.id]; delete waiting[msg.id]; done(msg); return;
    }
    if (msg.method === "ui/notifications/tool-result") show(msg.params);
  });
  request("ui/initialize", {
    protocolVersion: "2026-01-26",
    appInfo: {name: "counter", version: "1.0"},
    appCapabilities: {}
  }).then(function(reply){
    var info = reply.result && reply.result.hostInfo;
    document.getElementById("host").textContent = "host: " + (info ? info.name : "none");
    send({jsonrpc: "2.0", method: "ui/notifications/initialized", params: {}});
  });
  document.getElementById("add").addEventListener("click", function(){
    var now = Number(document.getElementById("count").textContent);
    request("tools/call", {name: "increment", arguments: {count: now}}).then(function(reply){
      if (reply.result) show(reply.result);
      else document.getElementById("count").textContent = "refused";
    });
  });
  fetch("/api/state").then(
    function(r){ document.getElementById("network").textContent = "network: status " + r.status; },
    function(){ document.getElementById("network").textContent = "network: blocked"; }
  );
  var parent = document.getElementById("parent");
  try { void window.parent.document.title; parent.textContent = "parent: open"; }
  catch (e) { parent.textContent = "parent: closed"; }
})();
</script></body></html>
"""


@server.tool(
    title="Count from here",
    meta={"ui": {"resourceUri": APP_URI}},
    annotations=ToolAnnotations(readOnlyHint=True),
)
def counter(start: int = 0) -> dict[str, int]:
    """Start counting at *start*; the app shows the count."""
    return {"count": start}


@server.tool()
def increment(count: int) -> dict[str, int]:
    """Add one to *count*."""
    return {"count": count + 1}


@server.tool()
async def slow(gate: str, ctx: Context) -> str:
    """Report progress, then wait until the file *gate* exists (at most two minutes)."""
    await ctx.report_progress(1, 2, "waiting for the gate")
    deadline = time.monotonic() + GATE_WAIT_S
    while not Path(gate).exists() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    await ctx.report_progress(2, 2, "through the gate")
    return "opened" if Path(gate).exists() else "gave up"


@server.tool()
async def shout(text: str, ctx: Context) -> str:
    """Send *text* as a log message, then add the tool ``grown`` (the list changes)."""
    await ctx.log("warning", text, logger_name="shouter")

    def grown() -> str:
        """A tool added at run time."""
        return "grown"

    server.add_tool(grown)
    await ctx.session.send_tool_list_changed()  # type: ignore[attr-defined]
    return "shouted"


@server.resource(APP_URI, name="counter view", mime_type=APP_MIME)
def counter_view() -> str:
    """The counter's app page."""
    return APP_HTML


@server.resource("note://readme", name="readme", mime_type="text/plain")
def readme() -> str:
    """A short note."""
    return "Read me: the apps test server."


@server.resource("note://items/{item}", name="item", mime_type="text/plain")
def item(item: str) -> str:
    """One item, by name."""
    return f"item {item}"


@server.prompt()
def greet(name: str, mood: str = "cheerful") -> str:
    """Greet someone."""
    return f"Say hello to {name}, in a {mood} way."


async def main() -> None:
    """Serve on stdio, announcing tool-list changes (``tools.listChanged``)."""
    lowlevel = server._lowlevel_server
    options = lowlevel.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read, write):
        await lowlevel.run(read, write, options)


if __name__ == "__main__":
    anyio.run(main)
