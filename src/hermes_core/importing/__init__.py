"""Bring servers from other MCP clients into ``config.yaml``, and print ours in their dialects.

* :mod:`.sources` — where each client keeps its servers (per OS, user and project files)
  and reading them (JSON, JSON with comments, TOML);
* :mod:`.variables` — the ``${…}`` dialects of each client, translated both ways;
* :mod:`.dialects` — one foreign server entry → a Hermes entry plus what was left out;
* :mod:`.secrets` — literal secrets moved into ``$HERMES_HOME/.env`` (written atomically, 0600);
* :mod:`.plan` — what an import would add, keep, replace or report;
* :mod:`.export` — Hermes servers in a client's dialect (secrets as references only);
* :mod:`.skills` — Claude Code skills copied into ``$HERMES_HOME/skills``.

The translation tables are in ``docs/import.md``.  Nothing here imports ``mcp``.
"""
