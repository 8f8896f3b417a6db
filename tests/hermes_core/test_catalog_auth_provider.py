"""A catalog manifest naming a plugin's auth provider (``auth.provider``), end to end.

A real plugin distribution (``support.dists``) registers the auth provider ``acme_env`` (it
serves local servers: ``create`` returns the process's environment, from its settings) and a
catalog entry whose ``auth:`` names it, with settings that use a key asked at install.  The real
CLI installs the entry; the server entry says ``auth: acme_env`` with the settings under
``acme_env:``, and the server, called through Hermes, sees what the provider made.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from hermes_core.catalog.manifest import ManifestError, parse_manifest
from support.dists import hermes_with, install

pytestmark = [pytest.mark.process, pytest.mark.cli]

SERVER = '''
import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("acme")


@server.tool()
def whoami() -> str:
    """The token the server was started with."""
    return os.environ.get("ACME_TOKEN", "(none)")


server.run("stdio")
'''

PLUGIN = f'''
from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import AuthProviderSpec, CatalogManifest
from pydantic import BaseModel, SecretStr


class Settings(BaseModel, extra="forbid"):
    token: SecretStr


def _create(context):
    token = Settings.model_validate(context.settings).token.get_secret_value()
    return {{"ACME_TOKEN": "acme:" + token}}


@hookimpl
def auth_provider():
    return [AuthProviderSpec("acme_env", create=_create, stdio=True, settings=Settings)]


MANIFEST = """
manifest_version: 1
name: acme
description: Acme's server, signed in with Acme's own auth
transport:
  command: {sys.executable}
  args: [SERVER_PATH]
auth:
  provider: acme_env
  settings:
    token: ${{ACME_KEY}}
  keys:
    - name: ACME_KEY
      prompt: Your Acme key
"""


@hookimpl
def catalog_entry():
    import os
    text = MANIFEST.replace("SERVER_PATH", os.environ["ACME_SERVER"])
    return [CatalogManifest("acme", text, "acme_hermes/catalog.yaml")]
'''


def test_an_entry_installs_with_a_plugins_auth_provider(tmp_path: Path) -> None:
    site, home = tmp_path / "site", tmp_path / "home"
    site.mkdir()
    home.mkdir()
    server = tmp_path / "acme_server.py"
    server.write_text(SERVER)
    env = {"HERMES_HOME": str(home), "ACME_SERVER": str(server), "HERMES_STRICT_PLUGINS": "1"}

    install(site, "acme-hermes", "acme_hermes", "acme", PLUGIN)
    done = hermes_with(site, "mcp", "install", "acme", "--yes", ACME_KEY="k-123", **env)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "  auth:      acme_env (a plugin's auth provider)" in done.stdout
    assert "k-123" not in done.stdout + done.stderr
    written = (home / "config.yaml").read_text()
    assert "auth: acme_env" in written and "token: ${ACME_KEY}" in written, written
    assert "ACME_KEY=k-123" in (home / ".env").read_text()
    called = hermes_with(site, "mcp", "call", "--json", "mcp_acme_whoami", "--args", "{}", **env)
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["content"][0]["text"] == "acme:k-123"


def test_install_refuses_a_provider_no_plugin_registers(tmp_path: Path) -> None:
    site, home = tmp_path / "site", tmp_path / "home"
    site.mkdir()
    home.mkdir()
    source = PLUGIN.replace('AuthProviderSpec("acme_env"', 'AuthProviderSpec("other_env"')
    install(site, "acme-hermes", "acme_hermes", "acme", source)
    env = {"HERMES_HOME": str(home), "ACME_SERVER": "/nonexistent"}
    done = hermes_with(site, "mcp", "install", "acme", "--yes", ACME_KEY="k", **env)
    assert done.returncode == 1
    assert (
        "'acme' signs in with the auth provider 'acme_env', which no installed plugin "
        "registers (registered: headers, oauth, other_env)" in done.stderr
    ), done.stderr
    assert not (home / "config.yaml").exists()


@pytest.mark.parametrize(
    ("auth", "says"),
    [
        ("provider: acme_env\n  oauth: {}", "give auth.provider or auth.oauth, not both"),
        ("settings: {a: b}", "auth.settings are the settings of auth.provider"),
        ("provider: oauth", "oauth is built in"),
    ],
)
def test_a_bad_provider_block_is_an_error_at_its_line(auth: str, says: str) -> None:
    text = textwrap.dedent(
        """\
        manifest_version: 1
        name: acme
        description: d
        transport:
          url: https://acme.example/mcp
        auth:
          AUTH
        """
    ).replace("AUTH", auth)
    with pytest.raises(ManifestError) as raised:
        parse_manifest(text, "acme.yaml")
    assert says in str(raised.value)
    assert str(raised.value).startswith("acme.yaml:")
