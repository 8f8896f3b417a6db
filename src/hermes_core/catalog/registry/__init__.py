"""The MCP Registry (v0.1 API) and ``.mcpb`` bundles: the wide, unvetted list next to the
catalog's vetted one.  ``hermes mcp search/install/update`` read it; reference:
``docs/registry.md``."""
