"""Registrations a host factory makes are its own (issue 45 item 2): ``HostFactory.from_plugins()``
and ``check_plugin`` of the same plugin run in one process in either order, and closing the
factory removes what it registered with ``hermes_platform``.

Each scenario runs in a fresh Python process with a real plugin distribution on its path (the
tables are process-wide, so a test process would carry one scenario's state into the next)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from support.dists import install, site_env

pytestmark = [pytest.mark.process]

# A vendor plugin as an author writes it: no provider= on its registrations (the manager names
# them after the distribution).
LUMEN = textwrap.dedent(
    """
    from hermes_core.plugins import hookimpl
    from hermes_core.plugins.types import LocationKind, VersionSource
    from hermes_platform.resolver.observation import Observation

    def _read(ctx, path, arg):
        return Observation("present", "1.0")

    def _locate(ctx, location):
        return []

    @hookimpl
    def version_source():
        return [VersionSource(name="lumen_build", os=None, read=_read)]

    @hookimpl
    def location_kind():
        return [LocationKind("lumen_dir", "linux", "path", "executable", _locate)]
    """
)

SCENARIO = textwrap.dedent(
    """
    import sys
    import lumen_plugin
    from hermes_core.host.setup.factory import HostFactory
    from hermes_core.testing import check_plugin
    from hermes_platform.resolver.versions import VERSION_KINDS
    from hermes_platform.resolver.app import LOCATION_KINDS

    def present():
        return ("lumen_build" in VERSION_KINDS, "lumen_dir" in LOCATION_KINDS)

    if sys.argv[1] == "factory-first":
        with HostFactory.from_plugins() as factory:
            assert present() == (True, True), present()
            check_plugin(lumen_plugin)           # raised RegistrationConflict before
            assert present() == (True, True), present()  # the factory's stay registered
        assert present() == (False, False), present()    # closed: removed again
        check_plugin(lumen_plugin)
    else:
        check_plugin(lumen_plugin)
        assert present() == (False, False), present()
        factory = HostFactory.from_plugins()
        assert present() == (True, True), present()
        check_plugin(lumen_plugin)
        factory.close()
        factory.close()                           # idempotent
        assert present() == (False, False), present()
    print("ok")
    """
)


@pytest.mark.parametrize("order", ["factory-first", "check-first"])
def test_from_plugins_and_check_plugin_in_either_order(tmp_path: Path, order: str) -> None:
    site = tmp_path / "site"
    site.mkdir()
    install(site, "hermes-lumen", "lumen_plugin", "lumen", LUMEN)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **{k: v for k, v in os.environ.items() if k != "HERMES_STRICT_PLUGINS"},
        **site_env(site, HERMES_HOME=str(home)),
    }
    run = subprocess.run(
        [sys.executable, "-c", SCENARIO, order],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == "ok"
