"""Locating applications and deciding whether a declared server may be offered.

Submodules: :mod:`~hermes_platform.resolver.known_dirs` (every directory literal),
:mod:`~hermes_platform.resolver.app` (location kinds and ``locate``),
:mod:`~hermes_platform.resolver.versions` (version sources; file-based ones in
:mod:`~hermes_platform.resolver.file_versions`),
:mod:`~hermes_platform.resolver.availability` (the decision and its explanation).
"""
