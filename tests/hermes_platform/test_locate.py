"""locate() and the location kinds, on this real Linux host and on fake hosts."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from hermes_platform.declaration import parse_declaration
from hermes_platform.registration import RegistrationConflict
from hermes_platform.resolver.app import LOCATION_KINDS, AppDef, AppLocation, locate
from hermes_platform.resolver.availability import availability
from hermes_platform.resolver.locating import LocateContext, LocationKind
from hermes_platform.testing import FakeHost

MakeHost = Callable[..., FakeHost]


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def app(*locations: AppLocation, os_family: str = "linux", presence: str = "executable") -> AppDef:
    return AppDef("vendor", os_family, presence, tuple(locations))


# --- real host ---------------------------------------------------------------------


def test_command_found_on_a_real_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool = executable(tmp_path / "bin" / "vendor-tool")
    monkeypatch.setenv("PATH", f"{tmp_path / 'empty'}{os.pathsep}{tool.parent}")
    resolution = locate(app(AppLocation("command", "vendor-tool")))
    assert resolution.kind == "path_executable"
    assert resolution.command == (str(tool),)
    assert resolution.source == "app:vendor:command"


def test_command_needs_the_execute_bit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "vendor-tool").write_text("not executable")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert not locate(app(AppLocation("command", "vendor-tool"))).found


def test_working_directory_is_never_searched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    executable(tmp_path / "vendor-tool")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", f".{os.pathsep}{os.pathsep}bin")
    assert not locate(app(AppLocation("command", "vendor-tool"))).found


def test_empty_path_override_searches_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = executable(tmp_path / "vendor-tool")
    monkeypatch.setenv("PATH", str(tmp_path))
    definition = app(AppLocation("command", "vendor-tool"))
    assert not locate(definition, LocateContext("linux", path_override="")).found
    assert locate(definition, LocateContext("linux", path_override=None)).command == (str(tool),)


def test_flatpak_per_user_export_under_a_temp_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    exported = executable(tmp_path / ".local/share/flatpak/exports/bin/com.vendor.App")
    resolution = locate(app(AppLocation("flatpak", "com.vendor.App")))
    assert [c.value for c in resolution.candidates] == [
        "/var/lib/flatpak/exports/bin/com.vendor.App",
        str(exported),
    ]
    assert [c.present for c in resolution.candidates] == [False, True]
    assert resolution.source == "app:vendor:flatpak"


def test_star_segments_try_the_newest_version_first(tmp_path: Path) -> None:
    for folder in ("Thing 2.9", "Thing 2.10", "Thing 10.0b", ".Thing 99"):
        executable(tmp_path / folder / "thing")
    resolution = locate(app(AppLocation("path", f"{tmp_path}/Thing */thing")))
    assert [Path(c.value).parent.name for c in resolution.candidates] == [
        "Thing 10.0b",
        "Thing 2.10",
        "Thing 2.9",
    ]
    assert all(c.present for c in resolution.candidates)


def test_star_keeps_other_glob_characters_literal(tmp_path: Path) -> None:
    executable(tmp_path / "a1" / "x")
    executable(tmp_path / "a[1]" / "x")
    resolution = locate(app(AppLocation("path", f"{tmp_path}/a[1]*/x")))
    assert [c.value for c in resolution.candidates] == [f"{tmp_path}/a[1]/x"]


def test_star_without_match_reports_the_literal_pattern(tmp_path: Path) -> None:
    pattern = f"{tmp_path}/Thing */thing"
    resolution = locate(app(AppLocation("path", pattern)))
    assert [(c.value, c.present) for c in resolution.candidates] == [(pattern, False)]


@pytest.mark.parametrize(
    "raw",
    ["$HERMES_TEST_UNSET/vendor", "%HERMES_TEST_UNSET%/vendor", "${HERMES_TEST_UNSET}/vendor"],
)
def test_unset_variables_stay_literal_and_never_hit_the_cwd(
    raw: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HERMES_TEST_UNSET", raising=False)
    monkeypatch.chdir(tmp_path)
    literal_dir = tmp_path / raw.split("/")[0]
    executable(literal_dir / "vendor")
    resolution = locate(app(AppLocation("path", raw)))
    assert not resolution.found
    assert resolution.candidates[0].value == raw


def test_set_variables_and_home_are_expanded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VENDOR_ROOT", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    tool = executable(tmp_path / "opt" / "vendor")
    assert locate(app(AppLocation("path", "$VENDOR_ROOT/opt/vendor"))).command == (str(tool),)
    assert locate(app(AppLocation("path", "${VENDOR_ROOT}/opt/vendor"))).command == (str(tool),)
    assert locate(app(AppLocation("path", "~/opt/vendor"))).command == (str(tool),)


def test_missing_path_reports_the_expanded_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    d = parse_declaration(
        "vendor",
        raw_app={"linux": {"presence": "executable", "location": "~/nowhere/vendor"}},
        raw_requires={"app": True},
        where="t",
    )
    result = availability(d)
    assert (result.state, result.path) == ("missing_app", f"{tmp_path}/nowhere/vendor")


def test_first_present_location_decides(tmp_path: Path) -> None:
    second = executable(tmp_path / "second")
    executable(tmp_path / "third")
    resolution = locate(
        app(
            AppLocation("path", f"{tmp_path}/first"),
            AppLocation("path", str(second)),
            AppLocation("path", f"{tmp_path}/third"),
        )
    )
    assert [c.present for c in resolution.candidates] == [False, True, True]
    assert resolution.command == (str(second),)
    assert resolution.looked_at == str(second)


def test_a_directory_is_not_an_executable(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    assert not locate(app(AppLocation("path", str(tmp_path / "dir")))).found


def test_bundle_needs_contents_info_plist(tmp_path: Path) -> None:
    bundle = tmp_path / "Vendor.app"
    bundle.mkdir()
    definition = app(AppLocation("path", str(bundle)), presence="bundle")
    assert not locate(definition).found
    (bundle / "Contents").mkdir()
    (bundle / "Contents" / "Info.plist").write_bytes(b"")
    assert locate(definition).found


# --- fake hosts ------------------------------------------------------------------------


def test_win32_command_honours_pathext_without_touching_the_environment(
    hermes_fake_host: MakeHost,
) -> None:
    host = hermes_fake_host("win32", env={"PATH": "C:\\Tools;relative", "PATHEXT": ".COM;.EXE"})
    host.add_file("C:/Tools/vendor.EXE")
    definition = app(AppLocation("command", "vendor"), os_family="win32")
    assert locate(definition).command == ("C:\\Tools\\vendor.EXE",)
    assert not locate(definition, LocateContext("win32", pathext_override=".BAT")).found
    assert host.env()["PATHEXT"] == ".COM;.EXE"


def test_kinds_yield_nothing_on_other_systems(hermes_fake_host: MakeHost) -> None:
    hermes_fake_host("linux")
    resolution = locate(app(AppLocation("uninstall_registry", "Vendor", "vendor.exe")))
    assert resolution.candidates == ()
    assert resolution.looked_at is None


def test_app_bundle_looks_in_both_application_folders(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("darwin", home="/Users/me")
    host.add_bundle("/Users/me/Applications/Vendor.app")
    resolution = locate(
        app(AppLocation("app_bundle", "Vendor.app"), os_family="darwin", presence="bundle")
    )
    assert [(c.value, c.present) for c in resolution.candidates] == [
        ("/Applications/Vendor.app", False),
        ("/Users/me/Applications/Vendor.app", True),
    ]


def test_snap(hermes_fake_host: MakeHost) -> None:
    hermes_fake_host("linux").add_file("/snap/bin/vendor")
    assert locate(app(AppLocation("snap", "vendor"))).command == ("/snap/bin/vendor",)


def test_uninstall_entries_match_by_prefix_in_order(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("win32")
    root = "HKLM\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Uninstall"
    host.add_registry_key(root + "\\a", {"DisplayName": "Other", "InstallLocation": "C:\\Other"})
    host.add_registry_key(
        root + "\\b", {"DisplayName": "Vendor App 1", "InstallLocation": "C:\\V1"}
    )
    host.add_registry_key(root + "\\c", {"DisplayName": "vendor app", "InstallLocation": "C:\\V3"})
    host.add_registry_key(root + "\\d", {"DisplayName": "Vendor App 2", "InstallLocation": ""})
    host.add_file("C:/V1/bin/v.exe")
    resolution = locate(
        app(AppLocation("uninstall_registry", "Vendor App", "bin/v.exe"), os_family="win32")
    )
    assert [c.value for c in resolution.candidates] == ["C:\\V1\\bin/v.exe"]
    assert resolution.found


# --- extending the table ------------------------------------------------------------------


def _opt_locator(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
    return [ctx.join("/opt", location.value, "bin", location.value)]


def test_a_new_kind_is_one_registration(hermes_fake_host: MakeHost) -> None:
    kind = LocationKind(
        "opt_tree", "linux", "package", "executable", _opt_locator, provider="test-plugin"
    )
    LOCATION_KINDS.register(kind)
    try:
        hermes_fake_host("linux").add_file("/opt/vendor/bin/vendor")
        d = parse_declaration(
            "vendor",
            raw_app={
                "linux": {
                    "presence": "executable",
                    "location": [{"kind": "opt_tree", "package": "vendor"}],
                }
            },
            raw_requires={"app": True},
            where="t",
        )
        assert availability(d).path == "/opt/vendor/bin/vendor"
        with pytest.raises(
            ValueError, match=r"must be a path or a mapping with kind one of \[.*'opt_tree'"
        ):
            parse_declaration(
                "v",
                raw_app={"linux": {"presence": "executable", "location": [{"kind": "nope"}]}},
                where="t",
            )
        with pytest.raises(ValueError, match=r"location\[0\]\.package must be a bare name"):
            parse_declaration(
                "v",
                raw_app={
                    "linux": {
                        "presence": "executable",
                        "location": [{"kind": "opt_tree", "package": "a/b"}],
                    }
                },
                where="t",
            )
    finally:
        LOCATION_KINDS.unregister("opt_tree")
    assert "opt_tree" not in LOCATION_KINDS


def test_two_providers_of_one_kind_name_both() -> None:
    clash = LocationKind(
        "snap", "linux", "name", "executable", _opt_locator, provider="other-plugin"
    )
    with pytest.raises(
        RegistrationConflict, match="'snap' is provided by both hermes_platform and other-plugin"
    ):
        LOCATION_KINDS.register(clash)
    LOCATION_KINDS.register(LOCATION_KINDS["snap"])  # the same object again is a no-op


def _broken_locator(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
    raise RuntimeError("plugin bug")


def test_a_failing_locator_is_recorded_not_raised(hermes_fake_host: MakeHost) -> None:
    hermes_fake_host("linux").add_file("/usr/bin/vendor")
    LOCATION_KINDS.register(
        LocationKind("broken", None, "name", "executable", _broken_locator, provider="t")
    )
    try:
        resolution = locate(app(AppLocation("broken", "x"), AppLocation("path", "/usr/bin/vendor")))
    finally:
        LOCATION_KINDS.unregister("broken")
    assert resolution.trials[0].error == "RuntimeError: plugin bug"
    assert resolution.found
