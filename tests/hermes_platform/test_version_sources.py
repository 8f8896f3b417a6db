"""Version sources: the registration table, the file-based Linux readers and min_version on
every OS, evaluated on fake win32/darwin/linux hosts."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hermes_platform.declaration import Declaration, DeclarationError, parse_declaration
from hermes_platform.registration import RegistrationConflict
from hermes_platform.resolver.availability import availability, explain
from hermes_platform.resolver.locating import LocateContext
from hermes_platform.resolver.observation import OBSERVATION_STATES, Observation
from hermes_platform.resolver.versions import (
    VERSION_KINDS,
    VersionSource,
    read_version,
)
from hermes_platform.testing import FakeHost

MakeHost = Callable[..., FakeHost]


def decl(app: Any, min_version: str | None = "2.0") -> Declaration:
    requires: dict[str, Any] = {"app": True}
    if min_version is not None:
        requires["min_version"] = min_version
    return parse_declaration("ide", raw_app=app, raw_requires=requires, where="ide/plugin.yaml")


def product_info(version: str) -> bytes:
    return json.dumps(
        {"name": "IntelliJ IDEA", "version": version, "buildNumber": "241.1"}
    ).encode()


# --- jetbrains_product_info on three OSes ----------------------------------------------


def test_product_info_next_to_the_bin_folder_on_linux(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("linux")
    host.add_file("/opt/idea/bin/idea.sh")
    host.add_file("/opt/idea/product-info.json", product_info("2024.1.4"), executable=False)
    app = {
        "linux": {
            "presence": "executable",
            "location": "/opt/idea/bin/idea.sh",
            "version": {"kind": "jetbrains_product_info"},
        }
    }
    result = availability(decl(app, "2024.1"))
    assert (result.state, result.version, result.path) == (
        "available",
        "2024.1.4",
        "/opt/idea/bin/idea.sh",
    )
    assert availability(decl(app, "2024.2")).state == "version_too_old"


def test_product_info_in_a_win32_install_folder(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("win32", env={"ProgramFiles": "C:/Program Files"})
    host.add_file("C:/Program Files/JetBrains/IDEA 2023.3/bin/idea64.exe")
    host.add_file(
        "C:/Program Files/JetBrains/IDEA 2023.3/product-info.json", product_info("2023.3")
    )
    host.add_file("C:/Program Files/JetBrains/IDEA 2024.1/bin/idea64.exe")
    host.add_file(
        "C:/Program Files/JetBrains/IDEA 2024.1/product-info.json", product_info("2024.1")
    )
    app = {
        "win32": {
            "presence": "executable",
            "location": "%ProgramFiles%/JetBrains/IDEA */bin/idea64.exe",
            "version": {"kind": "jetbrains_product_info"},
        }
    }
    result = availability(decl(app, "2024.1"))
    assert (result.state, result.version) == ("available", "2024.1")
    assert result.path == "C:/Program Files/JetBrains/IDEA 2024.1/bin/idea64.exe"


def test_product_info_inside_a_darwin_bundle(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("darwin")
    host.add_bundle("/Applications/IntelliJ IDEA.app", "9.9")  # the plist is not what is read
    host.add_file(
        "/Applications/IntelliJ IDEA.app/Contents/Resources/product-info.json",
        product_info("2024.1.1"),
    )
    app = {
        "darwin": {
            "presence": "bundle",
            "location": [{"kind": "app_bundle", "name": "IntelliJ IDEA.app"}],
            "version": {"kind": "jetbrains_product_info"},
        }
    }
    result = availability(decl(app, "2024.1"))
    assert (result.state, result.version) == ("available", "2024.1.1")


@pytest.mark.parametrize(
    ("content", "state", "detail"),
    [
        (None, "absent", "no product-info.json at /opt/idea/product-info.json or"),
        (b"{not json", "error", "is not valid JSON"),
        (b"[1, 2]", "error", "is not a JSON object"),
        (b'{"name": "IDEA"}', "unavailable", "has no version"),
        (b'{"version": 7}', "unavailable", "has no version"),
        (b"\xff\xfe", "error", "is not UTF-8"),
        (b" " * (1024 * 1024 + 1), "error", "is larger than 1048576 bytes"),
    ],
)
def test_product_info_problems_are_observations(
    hermes_fake_host: MakeHost, content: bytes | None, state: str, detail: str
) -> None:
    host = hermes_fake_host("linux")
    host.add_file("/opt/idea/bin/idea.sh")
    if content is not None:
        host.add_file("/opt/idea/product-info.json", content, executable=False)
    observed = read_version(
        LocateContext("linux", host), "jetbrains_product_info", "/opt/idea/bin/idea.sh", ""
    )
    assert observed.state == state
    assert detail in observed.detail


# --- flatpak ---------------------------------------------------------------------------

METAINFO = b"""<?xml version="1.0" encoding="UTF-8"?>
<component type="desktop-application">
  <id>com.vendor.App</id>
  <releases>
    <release version="3.2.1" date="2024-05-01"/>
    <release version="3.1.0" date="2024-01-01"/>
  </releases>
</component>
"""

FLATPAK_APP = {
    "linux": {
        "presence": "executable",
        "location": [{"kind": "flatpak", "app_id": "com.vendor.App"}],
        "version": {"kind": "flatpak"},
    }
}


def flatpak_host(
    make: MakeHost, metainfo: bytes | None = METAINFO, *, user: bool = False
) -> FakeHost:
    host = make("linux")
    root = "/home/user/.local/share/flatpak" if user else "/var/lib/flatpak"
    host.add_file(f"{root}/exports/bin/com.vendor.App")
    active = f"{root}/app/com.vendor.App/current/active"
    host.add_file(f"{active}/metadata", b"[Application]\nname=com.vendor.App\n", executable=False)
    if metainfo is not None:
        host.add_file(
            f"{active}/files/share/metainfo/com.vendor.App.metainfo.xml", metainfo, executable=False
        )
    return host


def test_flatpak_reads_the_first_release_of_the_active_deployment(
    hermes_fake_host: MakeHost,
) -> None:
    flatpak_host(hermes_fake_host)
    result = availability(decl(FLATPAK_APP, "3.2"))
    assert (result.state, result.version) == ("available", "3.2.1")
    assert availability(decl(FLATPAK_APP, "4")).state == "version_too_old"


def test_flatpak_per_user_installation(hermes_fake_host: MakeHost) -> None:
    flatpak_host(hermes_fake_host, user=True)
    result = availability(decl(FLATPAK_APP, "3"))
    assert (result.state, result.version) == ("available", "3.2.1")
    assert result.path == "/home/user/.local/share/flatpak/exports/bin/com.vendor.App"


@pytest.mark.parametrize(
    ("metainfo", "state", "detail"),
    [
        (None, "unavailable", "ships no AppStream metainfo"),
        (b"<component><releases/></component>", "unavailable", "lists no release"),
        (b"<component><releases>", "error", "is not well-formed XML"),
        (
            b'<?xml version="1.0"?><!DOCTYPE c [<!ENTITY a "x">]><c>&a;</c>',
            "error",
            "declares a DOCTYPE (refused)",
        ),
    ],
)
def test_flatpak_problems_are_observations(
    hermes_fake_host: MakeHost, metainfo: bytes | None, state: str, detail: str
) -> None:
    host = flatpak_host(hermes_fake_host, metainfo)
    observed = read_version(
        LocateContext("linux", host), "flatpak", "/var/lib/flatpak/exports/bin/com.vendor.App", ""
    )
    assert (observed.state, detail in observed.detail) == (state, True), observed


def test_flatpak_source_on_a_path_that_is_not_a_flatpak_launcher(
    hermes_fake_host: MakeHost,
) -> None:
    host = hermes_fake_host("linux")
    observed = read_version(LocateContext("linux", host), "flatpak", "/usr/bin/vendor", "")
    assert observed.state == "unavailable"
    assert "is not a flatpak launcher" in observed.detail
    host.add_file("/var/lib/flatpak/exports/bin/com.gone.App")
    observed = read_version(
        LocateContext("linux", host), "flatpak", "/var/lib/flatpak/exports/bin/com.gone.App", ""
    )
    assert observed.state == "absent"
    assert "no active deployment" in observed.detail


# --- snap ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("snap_yaml", "version"),
    [
        (b"name: vendor\nversion: '5.4.3'\nsummary: x\n", "5.4.3"),
        (b'name: vendor\nversion: "5.4"\n', "5.4"),
        (b"name: vendor\nversion: 5.4.3  # from git\napps:\n  version: 1\n", "5.4.3"),
    ],
)
def test_snap_reads_snap_yaml_of_the_current_revision(
    hermes_fake_host: MakeHost, snap_yaml: bytes, version: str
) -> None:
    host = hermes_fake_host("linux")
    host.add_file("/snap/bin/vendor")
    host.add_file("/snap/vendor/current/meta/snap.yaml", snap_yaml, executable=False)
    app = {
        "linux": {
            "presence": "executable",
            "location": [{"kind": "snap", "name": "vendor"}],
            "version": {"kind": "snap"},
        }
    }
    result = availability(decl(app, "5.4"))
    assert (result.state, result.version) == ("available", version)


def test_snap_app_command_reads_its_snap(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("linux")
    host.add_file("/snap/bin/vendor.cli")
    host.add_file("/snap/vendor/current/meta/snap.yaml", b"version: 1.0\n", executable=False)
    observed = read_version(LocateContext("linux", host), "snap", "/snap/bin/vendor.cli", "")
    assert observed == Observation(
        "present", "1.0", "version in /snap/vendor/current/meta/snap.yaml"
    )


def test_snap_without_meta_or_version(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("linux")
    host.add_file("/snap/bin/vendor")
    ctx = LocateContext("linux", host)
    assert read_version(ctx, "snap", "/snap/bin/vendor", "").state == "absent"
    host.add_file("/snap/vendor/current/meta/snap.yaml", b"name: vendor\n", executable=False)
    assert read_version(ctx, "snap", "/snap/bin/vendor", "").state == "unavailable"
    assert read_version(ctx, "snap", "/opt/vendor", "").state == "unavailable"


# --- min_version on Linux, and explain --------------------------------------------------


def test_a_linux_only_declaration_may_set_a_minimum_with_a_version_source() -> None:
    app = {"linux": {"presence": "executable", "location": "/opt/x", "version": {"kind": "snap"}}}
    assert decl(app, "1.2").min_version == "1.2"
    with pytest.raises(DeclarationError, match=r"needs a version source under app\.linux"):
        decl({"linux": {"presence": "executable", "location": "/opt/x"}}, "1.2")


def test_a_versioned_linux_block_next_to_other_oses_is_gated_on_its_version(
    hermes_fake_host: MakeHost,
) -> None:
    host = hermes_fake_host("linux")
    host.add_file("/snap/bin/vendor")
    host.add_file("/snap/vendor/current/meta/snap.yaml", b"version: 1.9\n", executable=False)
    app = {
        "darwin": {
            "presence": "bundle",
            "location": "/Applications/V.app",
            "version": {"kind": "plist"},
        },
        "linux": {
            "presence": "executable",
            "location": [{"kind": "snap", "name": "vendor"}],
            "version": {"kind": "snap"},
        },
    }
    result = explain(decl(app, "2.0"), name="vendor")
    assert result.availability.state == "version_too_old"
    assert result.availability.version == "1.9"
    (candidate,) = result.locations[0].candidates
    assert (candidate.version, candidate.version_state) == ("1.9", "present")


# --- the table ------------------------------------------------------------------------


def _fixed(ctx: LocateContext, path: str, arg: str) -> Observation:
    return Observation("present", "1.0")


def test_every_builtin_source_is_registered() -> None:
    assert set(VERSION_KINDS.names()) >= {
        "none",
        "plist",
        "pe_resource",
        "uninstall_registry",
        "jetbrains_product_info",
        "flatpak",
        "snap",
    }
    assert VERSION_KINDS["jetbrains_product_info"].oses is None
    assert VERSION_KINDS["plist"].oses == ("darwin",)


def test_a_second_provider_of_a_name_is_a_conflict_naming_both() -> None:
    with pytest.raises(RegistrationConflict) as caught:
        VERSION_KINDS.register(VersionSource("snap", "linux", _fixed, provider="acme"))
    assert str(caught.value) == "version source 'snap' is provided by both hermes_platform and acme"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": "bad name"}, "version source name 'bad name' must be a plain identifier"),
        (
            {"os": "linx"},
            "version source 'mine': os 'linx' is not one of ('win32', 'darwin', 'linux')",
        ),
        ({"os": ()}, "version source 'mine': os must name at least one of"),
        ({"os": 7}, "version source 'mine': os must be None (any OS), one of"),
        ({"read": "not callable"}, "version source 'mine': read must be callable, not str"),
        ({"arg_key": "kind"}, "version source 'mine': arg_key 'kind' must be a plain identifier"),
    ],
)
def test_a_bad_registration_is_refused_when_built(fields: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {"name": "mine", "os": "linux", "read": _fixed, **fields}
    with pytest.raises((ValueError, TypeError)) as caught:
        VersionSource(**values)
    assert str(caught.value).startswith(message)


def test_several_oses_and_an_own_argument_key(hermes_fake_host: MakeHost) -> None:
    seen: list[str] = []

    def read(ctx: LocateContext, path: str, arg: str) -> Observation:
        seen.append(arg)
        return Observation("present", "3.0")

    source = VersionSource("fixed_three", ("darwin", "linux"), read, arg_key="channel")
    assert source.os == ("darwin", "linux")
    VERSION_KINDS.register(source)
    try:
        hermes_fake_host("linux").add_file("/opt/x")
        app = {
            "linux": {
                "presence": "executable",
                "location": "/opt/x",
                "version": {"kind": "fixed_three", "channel": "beta"},
            }
        }
        assert availability(decl(app, "3")).state == "available"
        assert seen == ["beta"]
        with pytest.raises(DeclarationError) as caught:
            decl(
                {
                    "win32": {
                        "presence": "executable",
                        "location": "C:/x.exe",
                        "version": {"kind": "fixed_three"},
                    }
                }
            )
        assert caught.value.reason == (
            "app.win32.version.kind 'fixed_three' is only valid under app.darwin or app.linux"
        )
        with pytest.raises(DeclarationError) as caught:
            decl({"linux": {**app["linux"], "version": {"kind": "fixed_three", "chanel": "b"}}})
        assert caught.value.reason == (
            "app.linux.version has unknown keys ['chanel']; did you mean 'channel'? "
            "(valid keys: ['channel', 'kind'])"
        )
    finally:
        VERSION_KINDS.unregister("fixed_three")


def test_an_unknown_version_kind_lists_the_registered_ones() -> None:
    with pytest.raises(DeclarationError) as caught:
        decl({"linux": {"presence": "executable", "location": "/x", "version": {"kind": "rpm"}}})
    assert caught.value.reason == (
        f"app.linux.version.kind must be one of {VERSION_KINDS.names()!r}"
    )
    assert "jetbrains_product_info" in caught.value.reason


@pytest.mark.parametrize(
    "answer",
    [
        None,
        "1.0",
        Observation("present", None),
        Observation("bogus", "1"),
        Observation("present", "1.0\x1b[2J"),
        Observation("present", "1." * 100),
    ],
)
def test_a_reader_answering_the_wrong_thing_is_an_error(
    hermes_fake_host: MakeHost, answer: object
) -> None:
    def read(ctx: LocateContext, path: str, arg: str) -> Observation:
        return answer  # type: ignore[return-value]

    VERSION_KINDS.register(VersionSource("odd_reader", None, read))
    try:
        host = hermes_fake_host("linux")
        observed = read_version(LocateContext("linux", host), "odd_reader", "/x", "")
        assert observed.state == "error"
    finally:
        VERSION_KINDS.unregister("odd_reader")


def test_a_detail_with_control_characters_is_dropped(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("linux")
    host.add_file("/snap/bin/vendor")
    host.add_file("/snap/vendor/current/meta/snap.yaml", b"version: 1.0\x1b[31m\n")
    observed = read_version(LocateContext("linux", host), "snap", "/snap/bin/vendor", "")
    assert observed.state == "error"
    assert observed.detail == "the version text is too long or not printable"


# --- whatever the files hold, a reader answers an observation -----------------------------

FILE_OF = {
    "jetbrains_product_info": ("/opt/idea/bin/idea.sh", "/opt/idea/product-info.json"),
    "flatpak": (
        "/var/lib/flatpak/exports/bin/com.v.App",
        "/var/lib/flatpak/app/com.v.App/current/active/files/share/metainfo/com.v.App.metainfo.xml",
    ),
    "snap": ("/snap/bin/vendor", "/snap/vendor/current/meta/snap.yaml"),
}
version_files = st.one_of(
    st.binary(max_size=400),
    st.text(max_size=200).map(str.encode),
    st.builds(
        lambda v: json.dumps({"version": v}).encode(),
        st.one_of(st.text(max_size=20), st.integers(), st.none()),
    ),
    st.builds(
        lambda v: f'<component><releases><release version="{v}"/></releases></component>'.encode(),
        st.text(st.characters(codec="utf-8", exclude_characters='"<&'), max_size=20),
    ),
    st.builds(lambda v: f"version: {v}\n".encode(), st.text(max_size=20)),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(sorted(FILE_OF)), data=version_files)
def test_file_readers_never_raise(kind: str, data: bytes) -> None:
    launcher, version_file = FILE_OF[kind]
    host = FakeHost("linux")
    host.add_file(launcher)
    host.add_file(version_file, data, executable=False)
    observed = read_version(LocateContext("linux", host), kind, launcher, "")
    assert observed.state in OBSERVATION_STATES
    if observed.state == "present":
        assert isinstance(observed.value, str) and observed.value.isprintable()
