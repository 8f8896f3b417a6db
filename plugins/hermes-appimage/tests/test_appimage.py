"""The appimage kind, loaded through its entry point and evaluated on real and fake hosts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import hermes_appimage.plugin
import importlib_metadata
import pytest

from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.testing import check_plugin
from hermes_platform.declaration import parse_declaration
from hermes_platform.resolver.availability import availability, explain
from hermes_platform.testing import FakeHost


def decl(name: str = "Acme-Studio"):  # type: ignore[no-untyped-def]
    return parse_declaration(
        "acme",
        raw_app={
            "linux": {"presence": "executable", "location": [{"kind": "appimage", "name": name}]}
        },
        raw_requires={"app": True},
        where="test",
    )


def test_published_through_the_entry_point() -> None:
    (entry,) = [
        e for e in importlib_metadata.entry_points(group="hermes.plugins") if e.name == "appimage"
    ]
    assert entry.dist is not None and entry.dist.name == "hermes-appimage"
    assert entry.load() is hermes_appimage.plugin


def test_check_plugin() -> None:
    contributed = check_plugin(hermes_appimage.plugin)
    assert [k.name for k in contributed["location_kind"]] == ["appimage"]
    assert [s.name for s in contributed["version_source"]] == ["appimage_filename"]


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("Acme-Studio-1.10.2-x86_64.AppImage", "1.10.2"),
        ("Acme-Studio_2.0.AppImage", "2.0"),
        ("Acme-Studio-v3.1-aarch64.appimage", "3.1"),
        ("Tool-2D-1.2.3.AppImage", "1.2.3"),
        ("Acme-Studio-x86_64.AppImage", None),
        ("Acme-Studio.AppImage", None),
        ("acme-studio", None),
    ],
)
def test_version_from_the_file_name(name: str, version: str | None) -> None:
    from hermes_platform.resolver.locating import LocateContext

    ctx = LocateContext("linux", FakeHost("linux"))
    observed = hermes_appimage.plugin.read_filename_version(
        ctx, f"/home/me/Applications/{name}", ""
    )
    assert (observed.state, observed.value) == (
        ("present", version) if version else ("unavailable", None)
    )


def test_min_version_on_an_appimage(
    hermes_pm: HermesPluginManager, hermes_fake_host: Callable[..., FakeHost]
) -> None:
    hermes_pm.register_plugin(hermes_appimage.plugin, "appimage")
    hermes_pm.apply()
    host = hermes_fake_host("linux", home="/home/me")
    host.add_file("/home/me/Applications/Acme-Studio-1.9.0-x86_64.AppImage")
    host.add_file("/home/me/Applications/Acme-Studio-1.10.2-x86_64.AppImage")
    app = {
        "linux": {
            "presence": "executable",
            "location": [{"kind": "appimage", "name": "Acme-Studio"}],
            "version": {"kind": "appimage_filename"},
        }
    }
    for minimum, state in (("1.10", "available"), ("1.11", "version_too_old")):
        result = availability(
            parse_declaration(
                "acme",
                raw_app=app,
                raw_requires={"app": True, "min_version": minimum},
                where="t",
            )
        )
        assert (result.state, result.version) == (state, "1.10.2")


def test_versioned_images_newest_first(
    hermes_pm: HermesPluginManager, hermes_fake_host: Callable[..., FakeHost]
) -> None:
    hermes_pm.register_plugin(hermes_appimage.plugin, "appimage")
    hermes_pm.apply()
    host = hermes_fake_host("linux", home="/home/me")
    for version in ("1.9.0", "1.10.2", "1.2.0"):
        host.add_file(f"/home/me/Applications/Acme-Studio-{version}-x86_64.AppImage")
    host.add_file("/home/me/Applications/Other-9.AppImage")
    result = availability(decl())
    assert result.path == "/home/me/Applications/Acme-Studio-1.10.2-x86_64.AppImage"
    tried = [c.path for loc in explain(decl()).locations for c in loc.candidates]
    assert tried[0] == "/home/me/Applications/Acme-Studio.AppImage"
    assert "/home/me/Applications/Other-9.AppImage" not in tried


def test_real_home_folder(
    hermes_pm: HermesPluginManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hermes_pm.register_plugin(hermes_appimage.plugin, "appimage")
    hermes_pm.apply()
    monkeypatch.setenv("HOME", str(tmp_path))
    image = tmp_path / ".local" / "bin" / "Acme-Studio.AppImage"
    image.parent.mkdir(parents=True)
    image.write_bytes(b"\x7fELF")
    assert availability(decl()).path == str(image)
    assert availability(decl("Nope")).state == "missing_app"


def test_only_valid_under_linux(hermes_pm: HermesPluginManager) -> None:
    hermes_pm.register_plugin(hermes_appimage.plugin, "appimage")
    hermes_pm.apply()
    with pytest.raises(ValueError, match=r"kind 'appimage' is only valid under app\.linux"):
        parse_declaration(
            "a",
            raw_app={
                "darwin": {
                    "presence": "executable",
                    "location": [{"kind": "appimage", "name": "A"}],
                }
            },
            where="t",
        )
