"""availability(): the decision order of every state, on fake win32/darwin/linux hosts."""

from __future__ import annotations

import plistlib
from collections.abc import Callable
from typing import Any

import pytest

from hermes_platform.declaration import Declaration, parse_declaration
from hermes_platform.resolver.availability import (
    STATES,
    Availability,
    availability,
    explain,
    version_at_least,
)
from hermes_platform.testing import FakeHost
from support.pe_builder import build_pe

MakeHost = Callable[..., FakeHost]


def decl(app: Any = None, requires: Any = None, name: str = "vendor") -> Declaration:
    return parse_declaration(name, raw_app=app, raw_requires=requires, where="test")


DARWIN_PLIST = {
    "darwin": {
        "presence": "bundle",
        "location": [{"kind": "app_bundle", "name": "Vendor.app"}],
        "version": {"kind": "plist"},
    }
}


def test_no_requirements_does_no_io_even_on_an_unknown_os(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("freebsd")
    result = availability(decl(DARWIN_PLIST, None), os_family="freebsd")
    assert result == Availability("no_requirements")
    assert result.offerable
    assert host.io_count == 0


def test_availability_is_not_a_boolean() -> None:
    with pytest.raises(TypeError, match=r"read \.offerable or \.state"):
        bool(Availability("available"))


@pytest.mark.parametrize(
    ("gpu_fact", "state"),
    [
        ("nvidia", "no_requirements"),
        ("unknown", "no_requirements"),
        ("intel", "unsupported_gpu"),
        ("amd", "unsupported_gpu"),
        ("apple_silicon", "unsupported_gpu"),
        ("none", "unsupported_gpu"),
    ],
)
def test_gpu_only_declaration(hermes_fake_host: MakeHost, gpu_fact: str, state: str) -> None:
    platform = "darwin" if gpu_fact == "apple_silicon" else "win32"
    hermes_fake_host(platform).set_gpu(gpu_fact)
    result = availability(decl(None, {"gpu": "nvidia"}))
    assert result.state == state
    assert result.offerable is (state == "no_requirements")


def test_unsupported_os_reads_neither_gpu_nor_disk(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("linux").set_gpu("intel")
    d = decl(DARWIN_PLIST, {"app": True, "gpu": "nvidia", "min_version": "2.3.0"})
    host.reset_counts()
    result = availability(d)
    assert result == Availability("unsupported_os", min_version="2.3.0")
    assert host.io_count == 0


def test_gpu_is_checked_before_presence(hermes_fake_host: MakeHost) -> None:
    hermes_fake_host("darwin").set_gpu("apple_silicon")
    result = availability(decl(DARWIN_PLIST, {"app": True, "gpu": "nvidia"}))
    assert result.state == "unsupported_gpu"


def test_darwin_bundle_lifecycle(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("darwin", home="/Users/me")
    d = decl(DARWIN_PLIST, {"app": True, "min_version": "2.3.0"})
    missing = availability(d)
    assert missing.state == "missing_app"
    assert missing.path == "/Applications/Vendor.app"
    assert missing.min_version == "2.3.0"

    host.add_bundle("/Users/me/Applications/Vendor.app", "2.2.9")
    old = availability(d)
    assert (old.state, old.version, old.min_version) == ("version_too_old", "2.2.9", "2.3.0")
    assert old.path == "/Users/me/Applications/Vendor.app"

    host.add_bundle("/Users/me/Applications/Vendor.app", "2.3.0")
    ok = availability(d)
    assert (ok.state, ok.version, ok.offerable) == ("available", "2.3.0", True)

    host.add_bundle("/Users/me/Applications/Vendor.app", plist=b"<plist>not really")
    assert availability(d).state == "version_too_old"
    assert availability(d).version is None


def test_every_present_copy_is_read_for_a_minimum(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("darwin")
    host.add_bundle("/opt/old/Vendor.app", "1.0")
    host.add_bundle("/opt/new/Vendor.app", "2.4")
    app = {
        "darwin": {
            "presence": "bundle",
            "location": ["/opt/old/Vendor.app", "/opt/new/Vendor.app"],
            "version": {"kind": "plist"},
        }
    }
    result = availability(decl(app, {"app": True, "min_version": "2.0"}))
    assert (result.state, result.version) == ("available", "2.4")
    assert result.path == "/opt/new/Vendor.app"

    host.remove("/opt/new/Vendor.app")
    too_old = availability(decl(app, {"app": True, "min_version": "2.0"}))
    assert (too_old.state, too_old.version, too_old.path) == (
        "version_too_old",
        "1.0",
        "/opt/old/Vendor.app",
    )


def test_too_old_reports_the_newest_readable_copy(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("darwin")
    host.add_bundle("/a/Vendor.app", "1.5")
    host.add_bundle("/b/Vendor.app", plist=b"garbage")
    host.add_bundle("/c/Vendor.app", "1.9")
    app = {
        "darwin": {
            "presence": "bundle",
            "location": ["/a/Vendor.app", "/b/Vendor.app", "/c/Vendor.app"],
            "version": {"kind": "plist"},
        }
    }
    result = availability(decl(app, {"app": True, "min_version": "2.0"}))
    assert (result.state, result.version, result.path) == (
        "version_too_old",
        "1.9",
        "/c/Vendor.app",
    )


def test_without_minimum_the_first_present_copy_is_reported(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("darwin")
    host.add_bundle("/a/Vendor.app", "1.0")
    host.add_bundle("/b/Vendor.app", "3.0")
    app = {
        "darwin": {
            "presence": "bundle",
            "location": ["/a/Vendor.app", "/b/Vendor.app"],
            "version": {"kind": "plist"},
        }
    }
    assert availability(decl(app, {"app": True})) == Availability(
        "available", "1.0", "/a/Vendor.app"
    )


def test_linux_presence_only_block_ignores_the_minimum(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("linux", env={"PATH": "/usr/bin"})
    host.add_file("/usr/bin/vendor")
    app = {
        **DARWIN_PLIST,
        "linux": {"presence": "executable", "location": [{"kind": "command", "name": "vendor"}]},
    }
    result = availability(decl(app, {"app": True, "min_version": "9.0"}))
    assert result == Availability("available", None, "/usr/bin/vendor", "9.0")


WIN_APP = {
    "win32": {
        "presence": "executable",
        "location": [
            {
                "kind": "uninstall_registry",
                "display_name_prefix": "Vendor App",
                "file": "bin/vendor.exe",
            },
            "%ProgramFiles%/Vendor/Vendor App */vendor.exe",
        ],
        "version": {"kind": "pe_resource"},
    }
}
UNINSTALL = "HKLM\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall"


def _windows(hermes_fake_host: MakeHost) -> FakeHost:
    return hermes_fake_host(
        "win32", env={"ProgramFiles": "C:\\Program Files", "USERPROFILE": "C:\\Users\\me"}
    )


def test_win32_pe_resource_from_uninstall_entry(hermes_fake_host: MakeHost) -> None:
    host = _windows(hermes_fake_host)
    host.add_registry_key(
        UNINSTALL + "\\{GUID-1}",
        {"DisplayName": "Vendor App 3", "DisplayVersion": "3.1", "InstallLocation": "D:\\Vendor"},
    )
    host.add_file("D:/Vendor/bin/vendor.exe", build_pe((3, 1, 0, 7)))
    result = availability(decl(WIN_APP, {"app": True, "min_version": "3.1"}))
    assert result.state == "available"
    assert result.version == "3.1.0.7"
    assert result.path is not None and result.path.replace("\\", "/") == "D:/Vendor/bin/vendor.exe"


def test_win32_star_folders_newest_first(hermes_fake_host: MakeHost) -> None:
    host = _windows(hermes_fake_host)
    for version, folder in (
        ((2, 9, 0, 0), "2.9"),
        ((2, 10, 0, 0), "2.10"),
        ((10, 0, 0, 0), "10.0b"),
    ):
        host.add_file(f"C:/Program Files/Vendor/Vendor App {folder}/vendor.exe", build_pe(version))
    result = availability(decl(WIN_APP, {"app": True}))
    assert result.version == "10.0.0.0"
    assert result.path is not None and "Vendor App 10.0b" in result.path


def test_win32_unc_install_location_is_never_touched(hermes_fake_host: MakeHost) -> None:
    host = _windows(hermes_fake_host)
    host.add_registry_key(
        UNINSTALL + "\\x",
        {"DisplayName": "Vendor App", "InstallLocation": "\\\\fileserver\\share"},
    )
    result = availability(decl(WIN_APP, {"app": True}))
    assert result.state == "missing_app"
    assert "fileserver" not in str(result.path)


def test_win32_uninstall_registry_version(hermes_fake_host: MakeHost) -> None:
    host = _windows(hermes_fake_host)
    host.add_file("C:/Program Files/Vendor/Vendor App 1/vendor.exe")
    host.add_registry_key(
        "HKCU\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\v",
        {"DisplayName": "Vendor App", "DisplayVersion": "2.3.1"},
    )
    app = {
        "win32": {
            "presence": "executable",
            "location": "%ProgramFiles%/Vendor/Vendor App */vendor.exe",
            "version": {"kind": "uninstall_registry", "display_name_prefix": "Vendor App"},
        }
    }
    assert availability(decl(app, {"app": True, "min_version": "2.3"})).version == "2.3.1"
    assert availability(decl(app, {"app": True, "min_version": "2.4"})).state == "version_too_old"


def test_pe_without_version_resource_is_too_old(hermes_fake_host: MakeHost) -> None:
    host = _windows(hermes_fake_host)
    host.add_file("C:/Program Files/Vendor/Vendor App 1/vendor.exe", build_pe(None))
    result = availability(decl(WIN_APP, {"app": True, "min_version": "1.0"}))
    assert (result.state, result.version) == ("version_too_old", None)
    why = explain(decl(WIN_APP, {"app": True, "min_version": "1.0"}))
    details = [c.version_detail for loc in why.locations for c in loc.candidates if c.present]
    assert details == ["no version resource"]


def test_truncated_pe_is_unreadable_not_a_crash(hermes_fake_host: MakeHost) -> None:
    host = _windows(hermes_fake_host)
    host.add_file("C:/Program Files/Vendor/Vendor App 1/vendor.exe", build_pe((1, 0, 0, 0))[:300])
    result = availability(decl(WIN_APP, {"app": True, "min_version": "1.0"}))
    assert result.state == "version_too_old"


@pytest.mark.parametrize(
    ("found", "minimum", "expected"),
    [
        ("2.3.0", "2.3.0", True),
        ("2.3.0-beta", "2.3.0", False),
        ("11.0.9.509", "11.0.9", True),
        ("11.0.9", "11.0.9.509", False),
        ("2.\u0663.0", "2.0", False),
        ("1234567890", "1", False),
        ("2.10", "2.9", True),
        (" 2.3", "2.3", False),
        ("v2.3", "2.3", False),
        ("2..3", "2.3", False),
        ("2.3", "", False),
        (None, "1.0", False),
        ("3", "2.99.99", True),
    ],
)
def test_version_at_least(found: object, minimum: object, expected: bool) -> None:
    assert version_at_least(found, minimum) is expected


def test_explain_agrees_with_availability_and_lists_every_location(
    hermes_fake_host: MakeHost,
) -> None:
    host = hermes_fake_host("darwin")
    host.add_bundle("/b/Vendor.app", "2.0")
    app = {
        "darwin": {
            "presence": "bundle",
            "location": [
                "/a/Vendor.app",
                "/b/Vendor.app",
                {"kind": "app_bundle", "name": "Vendor.app"},
            ],
            "version": {"kind": "plist"},
        }
    }
    d = decl(app, {"app": True, "min_version": "1.0"})
    why = explain(d)
    assert why.availability == availability(d)
    assert why.state in STATES
    assert [loc.kind for loc in why.locations] == ["path", "path", "app_bundle"]
    assert [c.present for loc in why.locations for c in loc.candidates] == [
        False,
        True,
        False,
        False,
    ]
    found = why.locations[1].candidates[0]
    assert (found.version, found.version_state) == ("2.0", "present")
    assert why.steps and "meets 1.0" in why.steps[-1]
    assert why.as_dict()["availability"]["state"] == "available"


def test_binary_plist_is_read(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("darwin")
    data = plistlib.dumps({"CFBundleVersion": "7.1"}, fmt=plistlib.FMT_BINARY)
    host.add_bundle("/x/Vendor.app", plist=data)
    app = {
        "darwin": {"presence": "bundle", "location": "/x/Vendor.app", "version": {"kind": "plist"}}
    }
    assert availability(decl(app, {"app": True, "min_version": "7"})).version == "7.1"
