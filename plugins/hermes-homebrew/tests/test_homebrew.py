"""The homebrew kinds, loaded through the entry point, evaluated for macOS and Linux."""

from __future__ import annotations

from collections.abc import Callable

import hermes_homebrew.plugin
import importlib_metadata
import pytest

from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.testing import check_plugin
from hermes_platform.declaration import Declaration, parse_declaration
from hermes_platform.resolver.availability import availability
from hermes_platform.testing import FakeHost

MakeHost = Callable[..., FakeHost]


@pytest.fixture
def pm(hermes_pm: HermesPluginManager) -> HermesPluginManager:
    hermes_pm.register_plugin(hermes_homebrew.plugin, "homebrew")
    hermes_pm.apply()
    return hermes_pm


def formula(os_key: str) -> Declaration:
    return parse_declaration(
        "acme",
        raw_app={
            os_key: {"presence": "executable", "location": [{"kind": "homebrew", "name": "acme"}]}
        },
        raw_requires={"app": True},
        where="t",
    )


CASK = {
    "darwin": {
        "presence": "bundle",
        "location": [{"kind": "homebrew_cask", "token": "acme-studio", "file": "Acme Studio.app"}],
        "version": {"kind": "plist"},
    }
}


def test_published_through_the_entry_point() -> None:
    names = {e.name: e for e in importlib_metadata.entry_points(group="hermes.plugins")}
    assert names["homebrew"].dist is not None and names["homebrew"].dist.name == "hermes-homebrew"


def test_check_plugin() -> None:
    kinds = check_plugin(hermes_homebrew.plugin)["location_kind"]
    assert [k.name for k in kinds] == ["homebrew", "homebrew_cask"]


def test_formula_on_intel_mac(pm: HermesPluginManager, hermes_fake_host: MakeHost) -> None:
    hermes_fake_host("darwin").add_file("/usr/local/bin/acme")
    assert availability(formula("darwin")).path == "/usr/local/bin/acme"


def test_formula_on_per_user_linuxbrew(pm: HermesPluginManager, hermes_fake_host: MakeHost) -> None:
    hermes_fake_host("linux", home="/home/me").add_file("/home/me/.linuxbrew/bin/acme")
    assert availability(formula("linux")).path == "/home/me/.linuxbrew/bin/acme"


def test_formula_yields_nothing_on_windows(
    pm: HermesPluginManager, hermes_fake_host: MakeHost
) -> None:
    hermes_fake_host("win32")
    result = availability(formula("win32"))
    assert (result.state, result.path) == ("missing_app", None)


def test_cask_newest_caskroom_version(pm: HermesPluginManager, hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("darwin")
    host.add_bundle("/opt/homebrew/Caskroom/acme-studio/2.9.0/Acme Studio.app", "2.9.0")
    host.add_bundle("/opt/homebrew/Caskroom/acme-studio/2.10.1/Acme Studio.app", "2.10.1")
    decl = parse_declaration(
        "acme", raw_app=CASK, raw_requires={"app": True, "min_version": "2.10"}, where="t"
    )
    result = availability(decl)
    assert (result.state, result.version) == ("available", "2.10.1")


def test_cask_needs_a_file(pm: HermesPluginManager) -> None:
    with pytest.raises(
        ValueError,
        match=r"location\[0\]\.file must be a relative path .*kind 'homebrew_cask' needs it",
    ):
        parse_declaration(
            "a",
            raw_app={
                "darwin": {
                    "presence": "bundle",
                    "location": [{"kind": "homebrew_cask", "token": "a"}],
                }
            },
            where="t",
        )
