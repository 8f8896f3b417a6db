// The working pages: the tool index's search, a call without a page reload (its progress
// polled), the result's Text/JSON views, the Log pane, and the host side of MCP Apps.
(function () {
  "use strict";
  var csrfField = document.querySelector('input[name="csrf"]');
  var CSRF = csrfField ? csrfField.value : "";

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      cache: "no-store",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": CSRF },
      body: JSON.stringify(body)
    }).then(function (r) {
      return r.json().then(function (data) {
        if (!r.ok) throw new Error(data.error || ("HTTP " + r.status));
        return data;
      });
    });
  }

  function get(url) {
    return fetch(url, { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      return r.json();
    });
  }

  function wait(ms) {
    return new Promise(function (done) { setTimeout(done, ms); });
  }

  // Follow one call until it is done; onProgress(progress) for each change.
  function follow(id, onProgress) {
    var seen = null;
    function step() {
      return get("/api/calls/" + encodeURIComponent(id)).then(function (s) {
        if (s.error) throw new Error(s.error);
        var p = JSON.stringify(s.progress);
        if (onProgress && s.progress && p !== seen) { seen = p; onProgress(s.progress); }
        if (s.state === "done") return s;
        return wait(250).then(step);
      });
    }
    return step();
  }

  // -- the tool index's search ------------------------------------------------------------
  var search = document.getElementById("tool-search");
  function filterTools() {
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    document.querySelectorAll("#tool-list li[data-search]").forEach(function (li) {
      var hay = li.getAttribute("data-search");
      li.hidden = !words.every(function (w) { return hay.indexOf(w) >= 0; });
    });
  }
  if (search) {
    search.addEventListener("input", filterTools);
    // What was typed before this script ran (or restored by the browser) counts too.
    if (search.value) filterTools();
  }

  // -- a call from the tool's form -------------------------------------------------------------
  function progressText(p) {
    var of = p.total ? " of " + p.total : "";
    return "progress " + p.progress + of + (p.message ? ": " + p.message : "");
  }

  function showProgress(bar, p) {
    var text = document.createElement("span");
    text.textContent = progressText(p);
    var parts = [text];
    if (p.total && p.total > 0) {
      var meter = document.createElement("progress");
      meter.max = p.total;
      meter.value = Math.min(p.progress, p.total);
      parts.unshift(meter, document.createTextNode(" "));
    }
    bar.replaceChildren.apply(bar, parts);
  }

  document.querySelectorAll("form.call").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var fields = {};
      new FormData(form).forEach(function (value, key) {
        if (key !== "csrf" && key !== "tool") fields[key] = String(value);
      });
      var bar = document.getElementById("call-progress");
      var pane = document.getElementById("result-pane");
      var button = form.querySelector("button[type=submit]");
      button.disabled = true;
      bar.hidden = false;
      bar.textContent = "calling " + form.getAttribute("data-tool") + "…";
      post("/api/calls", { tool: form.getAttribute("data-tool"), fields: fields })
        .then(function (started) {
          return follow(started.id, function (p) { showProgress(bar, p); });
        })
        .then(function (done) {
          pane.innerHTML = done.html;
          bar.hidden = true;
          var open = pane.querySelector(".open-app");
          if (open) open.dataset.arguments = JSON.stringify(done.arguments || {});
          lastResult = done.result;
        })
        .catch(function (err) {
          bar.hidden = false;
          bar.textContent = "";
          var p = document.createElement("p");
          p.className = "error";
          p.textContent = String(err.message || err);
          pane.replaceChildren(p);
        })
        .finally(function () { button.disabled = false; });
    });
  });

  // -- the result's views, and Open app ------------------------------------------------------
  var lastResult = null;
  document.addEventListener("click", function (event) {
    var tab = event.target.closest && event.target.closest(".view-tab");
    if (tab) {
      var section = tab.closest(".result");
      section.querySelectorAll(".view-tab").forEach(function (b) {
        b.classList.toggle("active", b === tab);
      });
      section.querySelectorAll(".view").forEach(function (v) {
        v.hidden = v.getAttribute("data-view") !== tab.getAttribute("data-view");
      });
      return;
    }
    var open = event.target.closest && event.target.closest(".open-app");
    if (open) openApp(open);
  });

  // -- MCP Apps: the host side of the protocol (ui/initialize, tool input and result in,
  // tools/call out through /api/calls, size changes); anything else is refused. -------------
  var APPS_VERSION = "2026-01-26";
  var MAX_HEIGHT = 4000;

  function openApp(button) {
    var callId = button.getAttribute("data-call");
    var section = button.closest(".result");
    var view = section.querySelector(".app-view");
    var result = lastResult;
    button.disabled = true;
    post("/api/apps", { call: callId }).then(function (app) {
      var frame = document.createElement("iframe");
      frame.setAttribute("sandbox", "allow-scripts");
      frame.setAttribute("title", "MCP App " + app.uri);
      frame.setAttribute("referrerpolicy", "no-referrer");
      var note = document.createElement("p");
      note.className = "muted";
      note.textContent = "MCP App " + app.uri + " of " + app.server +
        " (sandboxed; its tool calls go through the host)";
      view.replaceChildren(note, frame);
      view.hidden = false;
      bridge(frame, callId, app, result, JSON.parse(button.dataset.arguments || "{}"));
      frame.src = app.frame;
    }).catch(function (err) {
      var p = document.createElement("p");
      p.className = "error";
      p.textContent = String(err.message || err);
      view.replaceChildren(p);
      view.hidden = false;
      button.disabled = false;
    });
  }

  function bridge(frame, callId, app, result, args) {
    function send(message) {
      if (frame.contentWindow) frame.contentWindow.postMessage(message, "*");
    }
    function reply(id, result) { send({ jsonrpc: "2.0", id: id, result: result }); }
    function refuse(id, code, message) {
      send({ jsonrpc: "2.0", id: id, error: { code: code, message: message } });
    }
    window.addEventListener("message", function (event) {
      if (event.source !== frame.contentWindow) return; // only this app's own frame
      var msg = event.data;
      if (!msg || typeof msg !== "object" || msg.jsonrpc !== "2.0") return;
      var method = String(msg.method || "");
      var isRequest = msg.id !== undefined && msg.id !== null;
      if (method === "ui/initialize" && isRequest) {
        reply(msg.id, {
          protocolVersion: APPS_VERSION,
          hostInfo: { name: "hermes-dashboard", version: "1" },
          hostCapabilities: { serverTools: {} },
          hostContext: { theme: "light", displayMode: "inline" }
        });
      } else if (method === "ui/notifications/initialized") {
        send({ jsonrpc: "2.0", method: "ui/notifications/tool-input",
               params: { arguments: args } });
        if (result) {
          send({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: result });
        }
      } else if (method === "tools/call" && isRequest) {
        var params = msg.params || {};
        post("/api/calls", { app_call: callId, tool: String(params.name || ""),
                             arguments: params.arguments || {} })
          .then(function (started) { return follow(started.id); })
          .then(function (done) {
            var r = done.result || {};
            if (r.error) {
              reply(msg.id, { content: [{ type: "text", text: String(r.error) }],
                              isError: true });
            } else {
              reply(msg.id, r);
            }
          })
          .catch(function (err) { refuse(msg.id, -32603, String(err.message || err)); });
      } else if (method === "ui/notifications/size-changed") {
        var h = Number((msg.params || {}).height);
        if (h > 0) frame.style.height = Math.min(h, MAX_HEIGHT) + "px";
      } else if (method === "ping" && isRequest) {
        reply(msg.id, {});
      } else if (isRequest) {
        refuse(msg.id, -32601, "not supported by the Hermes dashboard: " + method);
      }
    });
  }

  // -- the Log pane -----------------------------------------------------------------------------
  var log = document.getElementById("log-lines");
  if (log) {
    var after = Number(log.getAttribute("data-after") || "0");
    var pollLog = function () {
      get("/api/log?after=" + after).then(function (s) {
        (s.lines || []).forEach(function (x) {
          var li = document.createElement("li");
          li.className = "level-" + x.level;
          var when = document.createElement("span");
          when.className = "when";
          when.textContent = x.time + " ";
          var who = document.createElement("strong");
          who.textContent = x.server + " ";
          var kind = document.createElement("span");
          kind.className = "kind";
          kind.textContent = x.kind + " ";
          li.append(when, who, kind, document.createTextNode(x.text));
          log.appendChild(li);
          after = Math.max(after, x.seq);
        });
      }).catch(function () {}).finally(function () { setTimeout(pollLog, 1000); });
    };
    pollLog();
  }
})();
