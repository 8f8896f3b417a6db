"""A server's tools: discovery, preparation, filtering, naming, the registry, refresh, search and
utility tools.
"""
