"""The catalog of vetted MCP servers: manifests, their states here, installing them.

Entries come through the ``catalog_entry`` hook (Hermes' own entries in
``manifests/`` included); ``hermes mcp catalog/install/configure/suggest`` and
the ``hermes mcp`` picker read them.  Reference: ``docs/catalog.md``.
"""
