"""Hermes platform: read the host machine and decide where a declared MCP server can work.

Standard library only.  The public entry points::

    from hermes_platform import declaration
    from hermes_platform.resolver.availability import availability, explain
    from hermes_platform.resolver.app import LOCATION_KINDS
    from hermes_platform.resolver.versions import VERSION_KINDS
    from hermes_platform.host import gpu_class, use_host
"""

__version__ = "0.1.0"
