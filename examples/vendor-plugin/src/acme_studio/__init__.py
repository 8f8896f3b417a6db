"""Acme Studio: the example vendor's desktop app (a stand-in)."""

__version__ = "2.4.0"
