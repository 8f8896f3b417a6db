"""LocationKind registrations: os and presence checked when built, and one kind serving several
OSes with a presence per OS (a macOS .app bundle and a Linux executable under one name)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from hermes_platform.declaration import DeclarationError, parse_declaration
from hermes_platform.resolver.app import LOCATION_KINDS
from hermes_platform.resolver.availability import availability
from hermes_platform.resolver.locating import AppLocation, LocateContext, LocationKind
from hermes_platform.testing import FakeHost

MakeHost = Callable[..., FakeHost]


def _vendor(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
    if ctx.os == "darwin":
        return [ctx.join("/Applications", f"{location.value}.app")]
    return [ctx.join("/opt", location.value, "bin", location.value)]


def kind(**fields: Any) -> LocationKind:
    values: dict[str, Any] = {
        "name": "vendor_app",
        "os": "linux",
        "key": "name",
        "presence": "executable",
        "locate": _vendor,
    }
    values.update(fields)
    return LocationKind(**values)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"os": "linx"},
            "location kind 'vendor_app': os 'linx' is not one of ('win32', 'darwin', 'linux')",
        ),
        ({"os": "Linux"}, "location kind 'vendor_app': os 'Linux' is not one of"),
        ({"os": ("linux", "macos")}, "location kind 'vendor_app': os 'macos' is not one of"),
        ({"os": ()}, "location kind 'vendor_app': os must name at least one of"),
        ({"os": ("linux", "linux")}, "location kind 'vendor_app': os names an OS twice"),
        ({"os": 3}, "location kind 'vendor_app': os must be None (any OS), one of"),
        (
            {"presence": "exe"},
            "location kind 'vendor_app': presence must be one of "
            "('executable', 'bundle') (or a mapping from OS to one of them), not 'exe'",
        ),
        ({"presence": None}, "location kind 'vendor_app': presence must be one of"),
        (
            {"os": ("darwin", "linux"), "presence": {"darwin": "bundle"}},
            "location kind 'vendor_app': presence has no entry for linux",
        ),
        (
            {"os": "linux", "presence": {"linux": "executable", "win32": "executable"}},
            "location kind 'vendor_app': presence names 'win32', which the kind does not serve",
        ),
        (
            {"os": ("darwin", "linux"), "presence": {"darwin": "app", "linux": "executable"}},
            "location kind 'vendor_app': presence for 'darwin' must be one of",
        ),
        ({"key": "kind"}, "location kind 'vendor_app': key 'kind' must be a plain identifier"),
        ({"key": "file"}, "location kind 'vendor_app': key 'file' must be a plain identifier"),
        ({"key": ""}, "location kind 'vendor_app': key '' must be a plain identifier"),
        ({"name": "path"}, "location kind name 'path' must be a plain identifier"),
    ],
)
def test_bad_registrations_are_refused_when_built(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        kind(**fields)
    assert str(caught.value).startswith(message), str(caught.value)


def test_single_os_kinds_keep_their_shape() -> None:
    single = kind()
    assert (single.os, single.presence, single.oses) == ("linux", "executable", ("linux",))
    assert single.serves("linux") and not single.serves("darwin")
    assert single.presence_for("linux") == "executable"
    anywhere = kind(os=None)
    assert anywhere.oses is None and anywhere.serves("win32")
    assert kind(os=["darwin", "linux"], presence="executable").os == ("darwin", "linux")
    assert hash(kind()) == hash(kind())


def test_a_presence_mapping_is_copied() -> None:
    import copy
    import dataclasses

    presences = {"darwin": "bundle", "linux": "executable"}
    both = kind(os=("darwin", "linux"), presence=presences)
    presences["linux"] = "bundle"
    assert both.presence_for("linux") == "executable"
    assert copy.deepcopy(both) == both
    assert dataclasses.asdict(both)["presence"] == {"darwin": "bundle", "linux": "executable"}
    assert hash(both) == hash(copy.deepcopy(both))


SHARED = kind(
    os=("darwin", "linux"),
    presence={"darwin": "bundle", "linux": "executable"},
    provider="vendor-plugin",
)


@pytest.fixture
def shared_kind() -> Iterable[LocationKind]:
    LOCATION_KINDS.register(SHARED)
    yield SHARED
    LOCATION_KINDS.unregister(SHARED.name)


def test_one_kind_with_a_presence_per_os(
    hermes_fake_host: MakeHost, shared_kind: LocationKind
) -> None:
    assert shared_kind == kind(
        os=("darwin", "linux"),
        presence={"linux": "executable", "darwin": "bundle"},
        provider="vendor-plugin",
    )
    app = {
        "darwin": {"presence": "bundle", "location": [{"kind": "vendor_app", "name": "Vendor"}]},
        "linux": {"presence": "executable", "location": [{"kind": "vendor_app", "name": "vendor"}]},
    }
    decl = parse_declaration("vendor", raw_app=app, raw_requires={"app": True}, where="v.yaml")
    mac = hermes_fake_host("darwin")
    mac.add_bundle("/Applications/Vendor.app", "1.0")
    assert availability(decl).path == "/Applications/Vendor.app"
    linux = hermes_fake_host("linux")
    linux.add_file("/opt/vendor/bin/vendor")
    assert availability(decl).path == "/opt/vendor/bin/vendor"


@pytest.mark.parametrize(
    ("app", "reason"),
    [
        (
            {"linux": {"presence": "bundle", "location": [{"kind": "vendor_app", "name": "v"}]}},
            "app.linux.location[0] kind 'vendor_app' needs app.linux.presence executable",
        ),
        (
            {
                "darwin": {
                    "presence": "executable",
                    "location": [{"kind": "vendor_app", "name": "v"}],
                }
            },
            "app.darwin.location[0] kind 'vendor_app' needs app.darwin.presence bundle",
        ),
        (
            {
                "win32": {
                    "presence": "executable",
                    "location": [{"kind": "vendor_app", "name": "v"}],
                }
            },
            "app.win32.location[0] kind 'vendor_app' is only valid under app.darwin or app.linux",
        ),
    ],
)
def test_the_parser_checks_each_os_presence(
    shared_kind: LocationKind, app: dict[str, Any], reason: str
) -> None:
    with pytest.raises(DeclarationError) as caught:
        parse_declaration("vendor", raw_app=app, where="v.yaml")
    assert caught.value.reason == reason
