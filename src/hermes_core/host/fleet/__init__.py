"""The fleet's bus on Redis (the ``bus:`` key): :mod:`.settings` reads it, :mod:`.bus` is a
replica's connection (its heartbeat, who owns which session or held call, change notices,
fleet-wide limits).  The HTTP side (forwarding, health) is in :mod:`hermes_core.serve.fleet`."""
