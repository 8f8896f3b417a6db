"""``hermes dashboard``: a local web page over the host — servers and their gates, tools,
the catalog's trust details, pending questions (``docs/dashboard.md``).

A feature above the others (it shows the catalog, the session store and the host together);
only the CLI imports it.  Starlette and uvicorn are imported here, never on the CLI's start-up
path (``hermes_core.cli.commands`` imports the command's module only when it runs).
"""
