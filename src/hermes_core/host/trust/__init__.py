"""Trust that holds over time: pinned tool definitions and remembered per-tool decisions, kept
in ``$HERMES_HOME/trust.db`` (see docs/trust.md)."""
