"""Hermes core: the MCP host built on ``hermes_platform``."""

__version__ = "0.1.0"
