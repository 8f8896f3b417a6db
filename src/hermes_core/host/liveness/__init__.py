"""Desktop apps that serve MCP while they run (a declaration's ``liveness``).

* :mod:`.endpoint` — where the running app serves: :func:`~.endpoint.live_endpoint` returns a
  :class:`~.endpoint.LiveEndpoint` (the composed loopback URL; the token kept out of ``repr``),
  a :class:`~.endpoint.NotRunning` with the reason, or ``None`` when the server's declaration
  has no liveness on this OS.  It loads ``hermes_platform``'s resolvers: import it where a
  declared server is in hand (the host reaches it through :mod:`hermes_core.host.optional`).
* :mod:`.follow` — the host's one poller that follows each app as it starts and quits.
* :mod:`.words` — the sentence every door shows ("Figma is not running; start Figma").
"""
