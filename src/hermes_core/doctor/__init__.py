"""``hermes mcp doctor``: what is wrong with each configured server and how to fix it.

:func:`~hermes_core.doctor.diagnose.diagnose` looks at each server without changing anything
(:mod:`.offline`: its runner, its ``${VAR}`` references, its config entry, its declared app,
its OAuth token, its pins waiting for review), then connects the servers it may connect, in
parallel and each within a bounded time (:mod:`.live`: connect time, tools, breaker, the
line of the error that matters, :mod:`.error_line`).  Nothing is written: no pin is taken
(the host has no trust store), no token refreshed, no cache or log file made.
"""
