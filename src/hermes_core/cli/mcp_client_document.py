"""``hermes mcp oauth-client-document URL``: the OAuth client ID metadata document to publish at
URL (loads no plugin, reads no configuration)."""

from __future__ import annotations

import argparse
import json
import sys

from hermes_core.auth.errors import OAuthConfigError
from hermes_core.auth.settings import DEFAULT_CLIENT_NAME, client_metadata_document
from hermes_core.cli.common import EXIT_OK, EXIT_USAGE, PluginLoader

__all__ = ["client_document", "run"]


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp oauth-client-document URL [--client-name NAME]`` (loads no plugin)."""
    return client_document(args.url, args.client_name)


def client_document(url: str, client_name: str | None) -> int:
    """Print the client ID metadata document to publish at *url*."""
    try:
        document = client_metadata_document(url, client_name=client_name or DEFAULT_CLIENT_NAME)
    except OAuthConfigError as exc:
        print(f"error: {exc} (got {url!r})", file=sys.stderr)
        return EXIT_USAGE
    print(json.dumps(document, indent=2))
    return EXIT_OK
