"""Hermes plugin: the ``appimage`` location kind."""

__version__ = "0.1.0"
