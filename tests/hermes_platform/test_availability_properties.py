"""Hypothesis properties of availability(), version_at_least() and location order."""

from __future__ import annotations

import plistlib
from collections.abc import Mapping

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_platform.declaration import parse_declaration
from hermes_platform.host import clear_caches, use_host
from hermes_platform.resolver.app import AppDef, AppLocation, locate
from hermes_platform.resolver.availability import STATES, availability, explain, version_at_least
from hermes_platform.testing import FakeHost
from support.pe_builder import build_pe

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

readable = st.lists(st.integers(0, 10**9 - 1), min_size=1, max_size=5)


def dotted(parts: list[int]) -> str:
    return ".".join(map(str, parts))


def padded(parts: list[int], width: int) -> list[int]:
    return parts + [0] * (width - len(parts))


@SETTINGS
@given(readable, readable)
def test_version_at_least_agrees_with_integer_tuples(a: list[int], b: list[int]) -> None:
    width = max(len(a), len(b))
    assert version_at_least(dotted(a), dotted(b)) is (padded(a, width) >= padded(b, width))


@SETTINGS
@given(st.text(max_size=12), readable)
def test_unreadable_versions_never_satisfy(text: str, b: list[int]) -> None:
    if not text or not all(
        part.isascii() and part.isdigit() and len(part) <= 9 for part in text.split(".")
    ):
        assert version_at_least(text, dotted(b)) is False
        assert version_at_least(dotted(b), text) is False


garbage = st.one_of(
    st.binary(max_size=300),
    st.just(b"MZ" + b"\x00" * 100),
    st.builds(lambda v: build_pe(v)[: 200 + v[0]], st.tuples(*(st.integers(0, 600),) * 4)),
    st.builds(
        lambda d: plistlib.dumps(d),
        st.dictionaries(
            st.sampled_from(["CFBundleVersion", "CFBundleShortVersionString", "x"]),
            st.one_of(
                st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=8),
                st.integers(-1000, 10**6),
            ),
        ),
    ),
)
names = st.sampled_from(
    ["Vendor.app", "vendor.exe", "vendor", "Contents", "Info.plist", "Vendor 1.2", "Vendor 10"]
)
paths = st.lists(names, min_size=1, max_size=4).map(lambda parts: "/" + "/".join(parts))
registry_values = st.dictionaries(
    st.sampled_from(["DisplayName", "DisplayVersion", "InstallLocation"]),
    st.one_of(st.text(max_size=20), st.integers(), st.none(), st.binary(max_size=4)),
)

APPS: Mapping[str, object] = {
    "win32": {
        "presence": "executable",
        "location": [
            {"kind": "uninstall_registry", "display_name_prefix": "Vendor", "file": "vendor.exe"},
            "C:/Vendor */vendor.exe",
            "%ProgramFiles%/Vendor/vendor.exe",
        ],
        "version": {"kind": "pe_resource"},
    },
    "darwin": {
        "presence": "bundle",
        "location": [
            {"kind": "app_bundle", "name": "Vendor.app"},
            "/Vendor */Vendor.app",
            "~/Vendor.app",
        ],
        "version": {"kind": "plist"},
    },
    "linux": {
        "presence": "executable",
        "location": [
            {"kind": "command", "name": "vendor"},
            "/Vendor */vendor",
            {"kind": "snap", "name": "vendor"},
        ],
    },
}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    platform=st.sampled_from(["win32", "darwin", "linux", "freebsd"]),
    files=st.dictionaries(paths, garbage, max_size=6),
    registry=st.lists(registry_values, max_size=3),
    env=st.dictionaries(
        st.sampled_from(["PATH", "ProgramFiles", "PATHEXT", "HOME"]), st.text(max_size=20)
    ),
    minimum=st.sampled_from([None, "1", "2.3.0"]),
    gpu=st.booleans(),
)
def test_availability_never_raises_whatever_the_host_holds(
    platform: str,
    files: dict[str, bytes],
    registry: list[dict[str, object]],
    env: dict[str, str],
    minimum: str | None,
    gpu: bool,
) -> None:
    host = FakeHost(platform, env=env)
    for path, data in files.items():
        host.add_file(("C:" if platform == "win32" else "") + path, data)
        host.add_file(("C:/Vendor 1" if platform == "win32" else "/Vendor 1") + path, data)
    for index, values in enumerate(registry):
        host.add_registry_key(
            f"HKLM\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\k{index}", values
        )
    requires: dict[str, object] = {"app": True, "min_version": minimum}
    if gpu:
        requires["gpu"] = "nvidia"
    decl = parse_declaration("vendor", raw_app=dict(APPS), raw_requires=requires, where="t")
    with use_host(host):
        result = availability(decl)
        assert result.state in STATES
        assert explain(decl).availability == result
    clear_caches()


@SETTINGS
@given(st.lists(st.booleans(), min_size=1, max_size=6))
def test_location_order_is_respected(present: list[bool]) -> None:
    host = FakeHost("linux")
    locations = []
    for index, exists in enumerate(present):
        path = f"/loc{index}/vendor"
        locations.append(AppLocation("path", path))
        if exists:
            host.add_file(path)
    with use_host(host):
        resolution = locate(AppDef("vendor", "linux", "executable", tuple(locations)))
    assert [c.value for c in resolution.candidates] == [loc.value for loc in locations]
    assert [c.present for c in resolution.candidates] == present
    expected = next((loc.value for loc, ok in zip(locations, present, strict=True) if ok), None)
    assert (resolution.command[0] if resolution.command else None) == expected
