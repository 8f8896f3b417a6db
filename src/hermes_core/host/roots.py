"""Moved to hermes_core.offers.roots; kept for importers until the redesign's last step."""

from __future__ import annotations

from hermes_core.offers.roots import Root, RootsHandler, roots_of

__all__ = ["Root", "RootsHandler", "roots_of"]
