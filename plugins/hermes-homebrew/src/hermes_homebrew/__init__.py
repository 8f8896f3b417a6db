"""Hermes plugin: the ``homebrew`` and ``homebrew_cask`` location kinds."""

__version__ = "0.1.0"
