"""The HTTP side of a fleet of ``hermes mcp proxy --http`` replicas: :mod:`.route` sends a
request whose session or held call another replica owns to that replica (:mod:`.forward`);
:mod:`.health` answers ``/healthz`` and ``/readyz``; :mod:`.wiring` connects a replica's
proxies to the bus (:mod:`hermes_core.host.fleet`)."""
