"""The declaration parser: schema, message catalogue, check order and hardening.

Messages are asserted as exact full strings: the catalogue in reference §1.7
and the line-E messages in §1.9 are the contract.
"""

from __future__ import annotations

import dataclasses
from types import MappingProxyType
from typing import Any

import pytest
from ruamel.yaml import YAML

from hermes_platform.declaration import (
    AppLocation,
    Declaration,
    DeclarationError,
    RequiresSpec,
    gpu_label,
    parse_app,
    parse_declaration,
    parse_requires,
)
from hermes_platform.resolver.paths import location_is_rooted

WHERE = "plug.yaml"
KINDS_HINT = "must be a path or a mapping with kind one of " + repr(
    ["app_bundle", "command", "flatpak", "snap", "uninstall_registry"]
)
ROOTED_HINT = "must be absolute or start with ~ / %VAR% / $VAR, without '..', '**' or a URL scheme"
LIVENESS_PATH_HINT = "must be absolute or start with ~ / %VAR% / $VAR, without '..' or a URL scheme"
ENDPOINT_HINT = "must be a plain path starting with '/' (no userinfo, query, scheme, or whitespace)"
VERSION_KINDS_HINT = "must be one of " + repr(
    [
        "flatpak",
        "jetbrains_product_info",
        "none",
        "pe_resource",
        "plist",
        "snap",
        "uninstall_registry",
    ]
)
OS_HINT = "use ('win32', 'darwin', 'linux')"


# --- helpers ------------------------------------------------------------------


def linux(**fields: Any) -> dict[str, Any]:
    """A valid linux block, with *fields* replaced (``None`` values are kept)."""
    block: dict[str, Any] = {"presence": "executable", "location": "/opt/vendor/bin/vendor"}
    block.update(fields)
    return block


def darwin(**fields: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"presence": "bundle", "location": "/Applications/Vendor.app"}
    block.update(fields)
    return block


def win32(**fields: Any) -> dict[str, Any]:
    block: dict[str, Any] = {
        "presence": "executable",
        "location": "C:/Program Files/Vendor/vendor.exe",
    }
    block.update(fields)
    return block


def without(block: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in block.items() if k != key}


def parse(raw_app: object = None, raw_requires: object = None) -> Declaration:
    return parse_declaration("vendor", raw_app, raw_requires, where=WHERE)


def error_of(raw_app: object = None, raw_requires: object = None) -> DeclarationError:
    with pytest.raises(DeclarationError) as info:
        parse(raw_app, raw_requires)
    return info.value


def message(raw_app: object = None, raw_requires: object = None) -> str:
    return str(error_of(raw_app, raw_requires))


def only_linux(**fields: Any) -> dict[str, Any]:
    return {"linux": linux(**fields)}


def linux_locations(location: object) -> tuple[AppLocation, ...]:
    decl = parse(only_linux(location=location))
    app = decl.app_for("linux")
    assert app is not None
    return app.locations


# --- §1.7 message catalogue, exact strings ------------------------------------

CATALOGUE: list[tuple[str, object, object, str]] = [
    # 1. '<key>' must be a mapping
    ("app-string", "linux", None, "'app' must be a mapping"),
    ("app-list", ["linux"], None, "'app' must be a mapping"),
    (
        "app-not-a-dict-mapping",
        MappingProxyType({"linux": linux()}),
        None,
        "'app' must be a mapping",
    ),
    ("requires-list", None, ["app"], "'requires' must be a mapping"),
    ("requires-string", None, "app", "'requires' must be a mapping"),
    (
        "requires-not-a-dict-mapping",
        None,
        MappingProxyType({"app": False}),
        "'requires' must be a mapping",
    ),
    ("os-block-null", {"linux": None}, None, "'app.linux' must be a mapping"),
    ("os-block-string", {"darwin": "bundle"}, None, "'app.darwin' must be a mapping"),
    ("version-string", only_linux(version="plist"), None, "'app.linux.version' must be a mapping"),
    ("version-list", only_linux(version=["none"]), None, "'app.linux.version' must be a mapping"),
    (
        "liveness-string",
        only_linux(liveness="server_json"),
        None,
        "'app.linux.liveness' must be a mapping",
    ),
    ("liveness-true", only_linux(liveness=True), None, "'app.linux.liveness' must be a mapping"),
    # 2. unknown OS keys
    ("unknown-os", {"freebsd": linux()}, None, f"app has unknown OS keys ['freebsd']; {OS_HINT}"),
    (
        "unknown-os-sorted",
        {"windows": linux(), "linux": linux(), "macos": linux()},
        None,
        f"app has unknown OS keys ['macos', 'windows']; {OS_HINT}",
    ),
    # 3. empty app
    ("app-empty", {}, None, "app needs at least one OS block"),
    # 4. presence
    # A missing key and a bad value get different messages (issue 9).
    (
        "presence-missing",
        {"linux": without(linux(), "presence")},
        None,
        "app.linux.presence must be one of ('executable', 'bundle') (missing)",
    ),
    (
        "presence-unknown",
        only_linux(presence="app"),
        None,
        "app.linux.presence must be one of ('executable', 'bundle')",
    ),
    (
        "presence-unhashable",
        only_linux(presence=["executable"]),
        None,
        "app.linux.presence must be one of ('executable', 'bundle')",
    ),
    # 5. location is required
    (
        "location-missing",
        {"linux": without(linux(), "location")},
        None,
        "app.linux.location is required",
    ),
    ("location-null", only_linux(location=None), None, "app.linux.location is required"),
    ("location-empty-list", only_linux(location=[]), None, "app.linux.location is required"),
    (
        "location-bare-mapping",
        only_linux(location={"kind": "command", "name": "vendor"}),
        None,
        "app.linux.location is required",
    ),
    ("location-number", only_linux(location=5), None, "app.linux.location is required"),
    ("location-blank-string", only_linux(location="   "), None, "app.linux.location is required"),
    (
        "location-blank-item",
        only_linux(location=["/opt/x", " "]),
        None,
        "app.linux.location[1] is required",
    ),
    # 6. path not rooted
    ("path-relative", only_linux(location="opt/vendor"), None, f"app.linux.location {ROOTED_HINT}"),
    (
        "path-item-relative",
        only_linux(location=["/opt/x", "bin/x"]),
        None,
        f"app.linux.location[1] {ROOTED_HINT}",
    ),
    (
        "path-double-star",
        {"darwin": darwin(location="/Applications/Thing */**/Thing.app")},
        None,
        f"app.darwin.location {ROOTED_HINT}",
    ),
    # 7. not a path or a known kind
    (
        "kind-unknown",
        {"win32": win32(location=[{"kind": "registry", "name": "x"}])},
        None,
        f"app.win32.location[0] {KINDS_HINT}",
    ),
    (
        "kind-missing",
        only_linux(location=[{"name": "vendor"}]),
        None,
        "app.linux.location[0] must be a path or a mapping with kind one of "
        + repr(["app_bundle", "command", "flatpak", "snap", "uninstall_registry"])
        + " (missing 'kind')",
    ),
    (
        "kind-unhashable",
        only_linux(location=[{"kind": ["command"], "name": "vendor"}]),
        None,
        f"app.linux.location[0] {KINDS_HINT}",
    ),
    (
        "item-number",
        only_linux(location=["/opt/x", 7]),
        None,
        f"app.linux.location[1] {KINDS_HINT}",
    ),
    ("item-list", only_linux(location=[["/opt/x"]]), None, f"app.linux.location[0] {KINDS_HINT}"),
    # 8. kind under the wrong OS
    (
        "app-bundle-on-linux",
        only_linux(presence="bundle", location=[{"kind": "app_bundle", "name": "V.app"}]),
        None,
        "app.linux.location[0] kind 'app_bundle' is only valid under app.darwin",
    ),
    (
        "uninstall-on-darwin",
        {
            "darwin": darwin(
                presence="executable",
                location=[{"kind": "uninstall_registry", "display_name_prefix": "V", "file": "v"}],
            )
        },
        None,
        "app.darwin.location[0] kind 'uninstall_registry' is only valid under app.win32",
    ),
    (
        "flatpak-on-win32",
        {"win32": win32(location=[{"kind": "flatpak", "app_id": "a.b.C"}])},
        None,
        "app.win32.location[0] kind 'flatpak' is only valid under app.linux",
    ),
    # 9. kind with the wrong presence
    (
        "command-in-bundle-block",
        {"darwin": darwin(location=[{"kind": "command", "name": "v"}])},
        None,
        "app.darwin.location[0] kind 'command' needs app.darwin.presence executable",
    ),
    (
        "app-bundle-in-executable-block",
        {
            "darwin": darwin(
                presence="executable", location=[{"kind": "app_bundle", "name": "V.app"}]
            )
        },
        None,
        "app.darwin.location[0] kind 'app_bundle' needs app.darwin.presence bundle",
    ),
    # 10. bare name
    (
        "snap-name-up",
        only_linux(location=[{"kind": "snap", "name": "../thing"}]),
        None,
        "app.linux.location[0].name must be a bare name",
    ),
    (
        "flatpak-app-id-missing",
        only_linux(location=["/opt/x", {"kind": "flatpak"}]),
        None,
        "app.linux.location[1].app_id must be a bare name (missing; kind 'flatpak' needs it)",
    ),
    (
        "uninstall-prefix-path",
        {
            "win32": win32(
                location=[
                    {"kind": "uninstall_registry", "display_name_prefix": "a/b", "file": "v.exe"}
                ]
            )
        },
        None,
        "app.win32.location[0].display_name_prefix must be a bare name",
    ),
    # 11. file
    (
        "uninstall-file-missing",
        {
            "win32": win32(
                location=[{"kind": "uninstall_registry", "display_name_prefix": "Vendor"}]
            )
        },
        None,
        "app.win32.location[0].file must be a relative path inside the install folder "
        "(missing; kind 'uninstall_registry' needs it)",
    ),
    # 12. version kind unknown
    (
        "version-kind-unknown",
        only_linux(version={"kind": "rpm"}),
        None,
        f"app.linux.version.kind {VERSION_KINDS_HINT}",
    ),
    (
        "version-kind-unhashable",
        only_linux(version={"kind": ["plist"]}),
        None,
        f"app.linux.version.kind {VERSION_KINDS_HINT}",
    ),
    # 13. version kind under the wrong OS
    (
        "plist-on-linux",
        only_linux(version={"kind": "plist"}),
        None,
        "app.linux.version.kind 'plist' is only valid under app.darwin",
    ),
    (
        "pe-resource-on-darwin",
        {"darwin": darwin(version={"kind": "pe_resource"})},
        None,
        "app.darwin.version.kind 'pe_resource' is only valid under app.win32",
    ),
    # 14. display_name_prefix
    (
        "uninstall-version-no-prefix",
        {"win32": win32(version={"kind": "uninstall_registry"})},
        None,
        "app.win32.version.display_name_prefix is required for uninstall_registry",
    ),
    (
        "uninstall-version-empty-prefix",
        {"win32": win32(version={"kind": "uninstall_registry", "display_name_prefix": ""})},
        None,
        "app.win32.version.display_name_prefix is required for uninstall_registry",
    ),
    # 15. liveness kind
    (
        "liveness-kind-unknown",
        only_linux(liveness={"kind": "pidfile"}),
        None,
        "app.linux.liveness.kind must be one of ('server_json', 'none')",
    ),
    (
        "liveness-kind-unhashable",
        only_linux(liveness={"kind": ["server_json"]}),
        None,
        "app.linux.liveness.kind must be one of ('server_json', 'none')",
    ),
    # 16. liveness path
    (
        "liveness-path-missing",
        only_linux(liveness={"kind": "server_json"}),
        None,
        "app.linux.liveness.path is required for server_json",
    ),
    (
        "liveness-path-blank",
        only_linux(liveness={"kind": "server_json", "path": "  "}),
        None,
        "app.linux.liveness.path is required for server_json",
    ),
    # 17. requires unknown keys
    ("requires-unknown", None, {"foo": 1}, "requires has unknown keys ['foo']"),
    (
        "requires-unknown-sorted",
        None,
        {"zeta": 1, "app": False, "beta": 2},
        "requires has unknown keys ['beta', 'zeta']",
    ),
    # 18. gpu
    ("gpu-amd", None, {"gpu": "amd"}, "requires.gpu must be one of ['nvidia']"),
    ("gpu-intel", None, {"gpu": "intel"}, "requires.gpu must be one of ['nvidia']"),
    ("gpu-case", None, {"gpu": "NVIDIA"}, "requires.gpu must be one of ['nvidia']"),
    ("gpu-unhashable", None, {"gpu": ["nvidia"]}, "requires.gpu must be one of ['nvidia']"),
    # 19. requires.app boolean
    ("app-one", only_linux(), {"app": 1}, "requires.app must be a boolean"),
    ("app-string-true", only_linux(), {"app": "true"}, "requires.app must be a boolean"),
    ("app-null", only_linux(), {"app": None}, "requires.app must be a boolean"),
    # 20. app true without app block
    (
        "app-without-block",
        None,
        {"app": True},
        "requires.app is true but the declaration has no 'app' block",
    ),
    # 21. min_version format
    (
        "min-version-newline",
        {"darwin": darwin(version={"kind": "plist"})},
        {"app": True, "min_version": "1.0\n"},
        "requires.min_version must be a dotted numeric string",
    ),
    (
        "min-version-latest",
        {"darwin": darwin(version={"kind": "plist"})},
        {"app": True, "min_version": "latest"},
        "requires.min_version must be a dotted numeric string",
    ),
    (
        "min-version-empty",
        {"darwin": darwin(version={"kind": "plist"})},
        {"app": True, "min_version": ""},
        "requires.min_version must be a dotted numeric string",
    ),
    (
        "min-version-number",
        {"darwin": darwin(version={"kind": "plist"})},
        {"app": True, "min_version": 2},
        "requires.min_version must be a dotted numeric string",
    ),
    # 22. min_version without app
    (
        "min-version-no-app",
        {"darwin": darwin(version={"kind": "plist"})},
        {"min_version": "1.0"},
        "requires.min_version needs requires.app: true",
    ),
    (
        "min-version-app-false",
        {"darwin": darwin(version={"kind": "plist"})},
        {"app": False, "min_version": "1.0"},
        "requires.min_version needs requires.app: true",
    ),
    # 23. no version source
    (
        "min-version-win32-none",
        {"win32": win32()},
        {"app": True, "min_version": "1.0"},
        "requires.min_version needs a version source under app.win32 (kind is none)",
    ),
    (
        "min-version-linux-only",
        only_linux(),
        {"app": True, "min_version": "1.0"},
        "requires.min_version needs a version source under app.linux (kind is none)",
    ),
]


@pytest.mark.parametrize(
    ("raw_app", "raw_requires", "expected"),
    [pytest.param(app, req, text, id=case) for case, app, req, text in CATALOGUE],
)
def test_catalogue_message_is_exact(raw_app: object, raw_requires: object, expected: str) -> None:
    assert message(raw_app, raw_requires) == f"{WHERE}: {expected}"


def test_declaration_error_is_a_value_error_with_where_key_and_reason() -> None:
    err = error_of(only_linux(presence="app"))
    assert isinstance(err, ValueError)
    assert err.where == WHERE
    assert err.key == "app.linux.presence"
    assert err.reason == "app.linux.presence must be one of ('executable', 'bundle')"
    assert str(err) == f"{err.where}: {err.reason}"


@pytest.mark.parametrize(
    ("raw_app", "raw_requires", "key"),
    [
        pytest.param(
            only_linux(location=["/opt/x", {"kind": "flatpak", "app_id": "a/b"}]),
            None,
            "app.linux.location[1].app_id",
            id="flatpak-app-id",
        ),
        pytest.param(
            {
                "win32": win32(
                    location=[
                        {"kind": "uninstall_registry", "display_name_prefix": "V", "file": "/abs"}
                    ]
                )
            },
            None,
            "app.win32.location[0].file",
            id="uninstall-file",
        ),
        pytest.param(only_linux(location=[]), None, "app.linux.location", id="location"),
        pytest.param(
            only_linux(version={"kind": "plist"}), None, "app.linux.version.kind", id="version-kind"
        ),
        pytest.param(
            only_linux(liveness={"kind": "server_json"}),
            None,
            "app.linux.liveness.path",
            id="liveness-path",
        ),
        pytest.param(
            {"darwin": darwin(version={"kind": "plist"})},
            {"app": True, "min_version": "x"},
            "requires.min_version",
            id="min-version",
        ),
        pytest.param(None, {"gpu": "amd"}, "requires.gpu", id="gpu"),
    ],
)
def test_error_names_the_key_path(raw_app: object, raw_requires: object, key: str) -> None:
    assert error_of(raw_app, raw_requires).key == key


def test_where_is_the_message_prefix() -> None:
    with pytest.raises(DeclarationError) as info:
        parse_declaration("v", {}, None, where="acme/plugin.yaml")
    assert str(info.value) == "acme/plugin.yaml: app needs at least one OS block"


def test_unknown_os_keys_of_mixed_types_are_a_declaration_error() -> None:
    err = error_of({1: linux(), "freebsd": linux()})
    assert str(err).startswith(f"{WHERE}: app has unknown OS keys ")


def test_unknown_os_keys_are_listed_in_plain_sorted_order() -> None:
    # The list is repr(sorted(keys)), not sorted by each key's repr.
    assert message({"z'": linux(), "a": linux()}) == (
        f"{WHERE}: app has unknown OS keys ['a', \"z'\"]; {OS_HINT}"
    )


def test_unknown_requires_keys_are_listed_in_plain_sorted_order() -> None:
    assert message(None, {"z'": 1, "a": 2}) == f"{WHERE}: requires has unknown keys ['a', \"z'\"]"


# --- §9.2 fragment table -------------------------------------------------------

FRAGMENTS: list[tuple[str, object, object, str]] = [
    ("app-without-block", None, {"app": True}, "no 'app' block"),
    (
        "trailing-newline",
        {"darwin": darwin(version={"kind": "plist"})},
        {"app": True, "min_version": "1.0\n"},
        "dotted numeric",
    ),
    (
        "latest",
        {"darwin": darwin(version={"kind": "plist"})},
        {"app": True, "min_version": "latest"},
        "dotted numeric",
    ),
    (
        "plist-under-linux",
        only_linux(version={"kind": "plist"}),
        None,
        "only valid under app.darwin",
    ),
    (
        "uninstall-without-prefix",
        {"win32": win32(version={"kind": "uninstall_registry"})},
        None,
        "display_name_prefix",
    ),
    ("freebsd", {"freebsd": linux()}, None, "unknown OS keys"),
    (
        "min-version-without-app",
        {"darwin": darwin(version={"kind": "plist"})},
        {"min_version": "2.0"},
        "needs requires.app",
    ),
    (
        "win32-version-none",
        {"win32": win32()},
        {"app": True, "min_version": "2.0"},
        "needs a version source",
    ),
    (
        "linux-only",
        only_linux(),
        {"app": True, "min_version": "2.0"},
        "needs a version source under app.linux",
    ),
    ("win32-up", {"win32": win32(location="../Up/vendor.exe")}, None, "must be absolute"),
    ("win32-relative", {"win32": win32(location="Relative/vendor.exe")}, None, "must be absolute"),
    (
        "win32-url",
        {"win32": win32(location="https://example.com/vendor.exe")},
        None,
        "must be absolute",
    ),
    ("win32-thing", {"win32": win32(location="Thing/thing.exe")}, None, "must be absolute"),
    ("linux-up", only_linux(location="../Up/vendor"), None, "must be absolute"),
    ("linux-relative", only_linux(location="Relative/vendor"), None, "must be absolute"),
    ("linux-url", only_linux(location="https://example.com/vendor"), None, "must be absolute"),
    (
        "double-star",
        {"darwin": darwin(location="/Applications/Thing */**/Thing.app")},
        None,
        "must be absolute",
    ),
    ("gpu-amd", None, {"gpu": "amd"}, "requires.gpu must be one of"),
    ("empty-location-list", only_linux(location=[]), None, "location is required"),
    (
        "kind-registry",
        {"win32": win32(location=[{"kind": "registry"}])},
        None,
        "must be a path or a mapping with kind one of",
    ),
    (
        "app-bundle-under-linux",
        only_linux(location=[{"kind": "app_bundle", "name": "V.app"}]),
        None,
        "only valid under app.darwin",
    ),
    (
        "command-in-darwin-bundle",
        {"darwin": darwin(location=[{"kind": "command", "name": "v"}])},
        None,
        "needs app.darwin.presence executable",
    ),
    (
        "snap-up",
        only_linux(location=[{"kind": "snap", "name": "../thing"}]),
        None,
        "location[0].name must be a bare name",
    ),
    (
        "uninstall-without-file",
        {
            "win32": win32(
                location=[{"kind": "uninstall_registry", "display_name_prefix": "Vendor"}]
            )
        },
        None,
        "location[0].file must be a relative path inside the install folder "
        "(missing; kind 'uninstall_registry' needs it)",
    ),
]


@pytest.mark.parametrize(
    ("raw_app", "raw_requires", "fragment"),
    [pytest.param(app, req, frag, id=case) for case, app, req, frag in FRAGMENTS],
)
def test_fragment_table(raw_app: object, raw_requires: object, fragment: str) -> None:
    assert fragment in message(raw_app, raw_requires)


# --- positive cases (§1.8, §9.2) ----------------------------------------------


def two_os_declaration() -> Declaration:
    return parse(
        {
            "darwin": darwin(version={"kind": "plist"}),
            "win32": win32(
                version={"kind": "uninstall_registry", "display_name_prefix": "Vendor App"},
                liveness={
                    "kind": "server_json",
                    "path": "%LOCALAPPDATA%/Vendor/server.json",
                    "endpoint_path": "/rpc/v1",
                },
            ),
        },
        {"app": True, "min_version": "2.3.0"},
    )


def test_two_os_declaration_has_one_app_def_per_os_in_input_order() -> None:
    decl = two_os_declaration()
    assert decl.app is not None
    assert list(decl.app.per_os) == ["darwin", "win32"]
    assert [key for key, _ in decl.app.blocks] == ["darwin", "win32"]
    assert decl.app.for_os("darwin") is decl.app_for("darwin")


def test_two_os_declaration_darwin_block() -> None:
    mac = two_os_declaration().app_for("darwin")
    assert mac is not None
    assert mac.app_id == "vendor"
    assert mac.os_family == "darwin"
    assert mac.presence == "bundle"
    assert mac.locations == (("path", "/Applications/Vendor.app", ""),)
    assert mac.version_kind == "plist"
    assert mac.liveness_kind == "none"
    assert mac.liveness_pid_key == "pid"
    assert mac.endpoint_path == "/mcp"


def test_two_os_declaration_win32_block() -> None:
    win = two_os_declaration().app_for("win32")
    assert win is not None
    assert win.presence == "executable"
    assert win.version_kind == "uninstall_registry"
    assert win.version_arg == "Vendor App"
    assert win.liveness_kind == "server_json"
    assert win.liveness_path == "%LOCALAPPDATA%/Vendor/server.json"
    assert win.endpoint_path == "/rpc/v1"
    assert win.liveness_pid_key == "pid"
    assert win.liveness_url_key == "http"
    assert win.liveness_token_key == "token"


def test_two_os_declaration_exposes_requirements() -> None:
    decl = two_os_declaration()
    assert decl.name == "vendor"
    assert decl.requires_app is True
    assert decl.min_version == "2.3.0"
    assert decl.required_gpu is None
    assert decl.requires == RequiresSpec(app=True, min_version="2.3.0", gpu=None)


def test_app_for_has_no_fallback() -> None:
    decl = two_os_declaration()
    assert decl.app_for("linux") is None
    assert decl.app_for("freebsd") is None
    assert decl.app is not None
    assert decl.app.for_os("macos") is None


def test_location_list_keeps_order_and_records_equal_tuples() -> None:
    locations = linux_locations(
        [
            {"kind": "command", "name": "vendor"},
            "/opt/Vendor */bin/vendor",
            {"kind": "flatpak", "app_id": "com.vendor.App"},
            {"kind": "snap", "name": "vendor"},
        ]
    )
    assert locations == (
        ("command", "vendor", ""),
        ("path", "/opt/Vendor */bin/vendor", ""),
        ("flatpak", "com.vendor.App", ""),
        ("snap", "vendor", ""),
    )
    assert all(isinstance(loc, AppLocation) for loc in locations)
    assert [loc.kind for loc in locations] == ["command", "path", "flatpak", "snap"]


def test_plain_path_is_kind_path_with_empty_file() -> None:
    (loc,) = linux_locations("/opt/vendor/bin/vendor")
    assert (loc.kind, loc.value, loc.file) == ("path", "/opt/vendor/bin/vendor", "")


def test_starred_paths_are_stored_unexpanded() -> None:
    decl = parse(
        {
            "win32": win32(
                location=[
                    {
                        "kind": "uninstall_registry",
                        "display_name_prefix": "Vendor App",
                        "file": "vendor.exe",
                    },
                    "%ProgramFiles%/Vendor/Vendor App */vendor.exe",
                ]
            )
        }
    )
    win = decl.app_for("win32")
    assert win is not None
    assert win.locations == (
        ("uninstall_registry", "Vendor App", "vendor.exe"),
        ("path", "%ProgramFiles%/Vendor/Vendor App */vendor.exe", ""),
    )


def test_darwin_plist_with_linux_command_and_min_version() -> None:
    decl = parse(
        {
            "darwin": darwin(version={"kind": "plist"}),
            "linux": linux(location=[{"kind": "command", "name": "vendor"}]),
        },
        {"app": True, "min_version": "2.0"},
    )
    lin = decl.app_for("linux")
    assert lin is not None
    assert lin.version_kind == "none"
    assert lin.locations == (("command", "vendor", ""),)
    assert decl.min_version == "2.0"


def test_app_without_requires_carries_data_only() -> None:
    decl = parse(only_linux())
    assert decl.app is not None
    assert decl.requires == RequiresSpec()
    assert decl.requires_app is False
    assert decl.min_version is None


def test_app_with_requires_app_false() -> None:
    assert parse(only_linux(), {"app": False}).requires_app is False


def test_gpu_only_declaration_has_no_app_block() -> None:
    decl = parse(None, {"gpu": "nvidia"})
    assert decl.app is None
    assert decl.app_for("linux") is None
    assert decl.required_gpu == "nvidia"
    assert decl.requires_app is False


def test_no_app_and_no_requires() -> None:
    decl = parse(None, None)
    assert decl == Declaration(name="vendor", app=None, requires=RequiresSpec())


def test_empty_requires_is_all_defaults() -> None:
    assert parse(only_linux(), {}).requires == RequiresSpec()


def test_gpu_null_means_no_gpu_requirement() -> None:
    assert parse(None, {"gpu": None}).required_gpu is None


def test_min_version_null_means_no_minimum() -> None:
    assert parse(only_linux(), {"app": True, "min_version": None}).min_version is None


def test_bundle_presence_is_accepted_under_linux() -> None:
    decl = parse(only_linux(presence="bundle", location="/opt/Vendor.app"))
    app = decl.app_for("linux")
    assert app is not None
    assert app.presence == "bundle"


def test_linux_without_version_is_exempt_next_to_a_versioned_win32_block() -> None:
    decl = parse(
        {"linux": linux(), "win32": win32(version={"kind": "pe_resource"})},
        {"app": True, "min_version": "1"},
    )
    assert decl.min_version == "1"


def test_declaration_is_frozen() -> None:
    decl = two_os_declaration()
    with pytest.raises(dataclasses.FrozenInstanceError):
        decl.name = "other"  # type: ignore[misc]


@pytest.mark.parametrize("falsy", [None, {}, "", 0, []])
def test_falsy_version_means_kind_none(falsy: object) -> None:
    app = parse(only_linux(version=falsy)).app_for("linux")
    assert app is not None
    assert (app.version_kind, app.version_arg) == ("none", "")


def test_version_kind_null_means_none() -> None:
    app = parse(only_linux(version={"kind": None})).app_for("linux")
    assert app is not None
    assert app.version_kind == "none"


def test_version_prefix_is_stored_for_any_kind() -> None:
    app = parse({"darwin": darwin(version={"kind": "plist", "display_name_prefix": "V"})})
    mac = app.app_for("darwin")
    assert mac is not None
    assert mac.version_arg == "V"


def test_version_prefix_is_converted_to_string_and_not_stripped() -> None:
    decl = parse(
        {"win32": win32(version={"kind": "uninstall_registry", "display_name_prefix": " Vendor "})}
    )
    win = decl.app_for("win32")
    assert win is not None
    assert win.version_arg == " Vendor "
    numeric = parse(
        {"win32": win32(version={"kind": "uninstall_registry", "display_name_prefix": 2024})}
    ).app_for("win32")
    assert numeric is not None
    assert numeric.version_arg == "2024"


@pytest.mark.parametrize("falsy", [None, {}, "", 0, []])
def test_falsy_liveness_means_defaults(falsy: object) -> None:
    app = parse(only_linux(liveness=falsy)).app_for("linux")
    assert app is not None
    assert (
        app.liveness_kind,
        app.liveness_path,
        app.liveness_pid_key,
        app.liveness_url_key,
        app.liveness_token_key,
        app.endpoint_path,
    ) == ("none", "", "pid", "http", "token", "/mcp")


def test_liveness_key_fields_fall_back_when_falsy() -> None:
    app = parse(
        only_linux(
            liveness={
                "kind": "server_json",
                "path": "/run/v.json",
                "pid_key": "",
                "url_key": None,
                "token_key": 0,
                "endpoint_path": "",
            }
        )
    ).app_for("linux")
    assert app is not None
    assert (app.liveness_pid_key, app.liveness_url_key, app.liveness_token_key) == (
        "pid",
        "http",
        "token",
    )
    assert app.endpoint_path == "/mcp"


def test_custom_liveness_keys_are_kept() -> None:
    app = parse(
        only_linux(
            liveness={
                "kind": "server_json",
                "path": "/run/v.json",
                "pid_key": "proc.pid",
                "url_key": "url-1",
                "token_key": "Bearer_Token",
            }
        )
    ).app_for("linux")
    assert app is not None
    assert (app.liveness_pid_key, app.liveness_url_key, app.liveness_token_key) == (
        "proc.pid",
        "url-1",
        "Bearer_Token",
    )


# --- fail closed: unknown keys anywhere are errors (issue 9) ----------------------------

LOCATION_KEYS_SNAP = "(valid keys: ['file', 'kind', 'name'])"


@pytest.mark.parametrize(
    ("raw_app", "raw_requires", "key", "expected"),
    [
        pytest.param(
            only_linux(location=[{"kind": "snap", "name": "vendor", "flie": "x"}]),
            None,
            "app.linux.location[0].flie",
            "app.linux.location[0] has unknown keys ['flie']; did you mean 'file'? "
            + LOCATION_KEYS_SNAP,
            id="location-typo",
        ),
        pytest.param(
            only_linux(location=[{"kind": "snap", "name": "vendor", "channel": "edge"}]),
            None,
            "app.linux.location[0].channel",
            "app.linux.location[0] has unknown keys ['channel'] " + LOCATION_KEYS_SNAP,
            id="location-unknown",
        ),
        pytest.param(
            {
                "win32": win32(
                    location=[
                        {"kind": "uninstall_registry", "display_name_prefix": "V", "flie": "v.exe"}
                    ]
                )
            },
            None,
            "app.win32.location[0].flie",
            "app.win32.location[0] has unknown keys ['flie']; did you mean 'file'? "
            "(valid keys: ['display_name_prefix', 'file', 'kind'])",
            id="typo-before-missing-file",
        ),
        pytest.param(
            only_linux(location=[{"knd": "snap", "name": "vendor"}]),
            None,
            "app.linux.location[0].knd",
            "app.linux.location[0] has unknown keys ['knd']; did you mean 'kind'?",
            id="kind-typo",
        ),
        pytest.param(
            only_linux(colour="blue"),
            None,
            "app.linux.colour",
            "app.linux has unknown keys ['colour'] "
            "(valid keys: ['liveness', 'location', 'presence', 'version'])",
            id="os-block-unknown",
        ),
        pytest.param(
            only_linux(presense="executable"),
            None,
            "app.linux.presense",
            "app.linux has unknown keys ['presense']; did you mean 'presence'? "
            "(valid keys: ['liveness', 'location', 'presence', 'version'])",
            id="os-block-typo-before-missing-presence",
        ),
        pytest.param(
            {"darwin": darwin(version={"kind": "plist", "extra": 1})},
            None,
            "app.darwin.version.extra",
            "app.darwin.version has unknown keys ['extra'] "
            "(valid keys: ['display_name_prefix', 'kind'])",
            id="version-unknown",
        ),
        pytest.param(
            {"win32": win32(version={"kind": "uninstall_registry", "display_name_prefx": "V"})},
            None,
            "app.win32.version.display_name_prefx",
            "app.win32.version has unknown keys ['display_name_prefx']; "
            "did you mean 'display_name_prefix'? (valid keys: ['display_name_prefix', 'kind'])",
            id="version-typo",
        ),
        pytest.param(
            only_linux(liveness={"kind": "none", "extra": 2}),
            None,
            "app.linux.liveness.extra",
            "app.linux.liveness has unknown keys ['extra'] (valid keys: ['endpoint_path', "
            "'kind', 'path', 'pid_key', 'token_key', 'url_key'])",
            id="liveness-unknown",
        ),
        pytest.param(
            only_linux(liveness={"kind": "server_json", "path": "/run/v.json", "pid_ky": "p"}),
            None,
            "app.linux.liveness.pid_ky",
            "app.linux.liveness has unknown keys ['pid_ky']; did you mean 'pid_key'? "
            "(valid keys: ['endpoint_path', 'kind', 'path', 'pid_key', 'token_key', 'url_key'])",
            id="liveness-typo",
        ),
        pytest.param(
            {"linx": linux()},
            None,
            "app",
            "app has unknown OS keys ['linx'] (did you mean 'linux'?); "
            "use ('win32', 'darwin', 'linux')",
            id="os-key-typo",
        ),
        pytest.param(
            only_linux(),
            {"app": True, "min_verison": "1"},
            "requires.min_verison",
            "requires has unknown keys ['min_verison']; did you mean 'min_version'?",
            id="requires-typo",
        ),
    ],
)
def test_unknown_keys_fail_closed_with_a_did_you_mean(
    raw_app: object, raw_requires: object, key: str, expected: str
) -> None:
    error = error_of(raw_app, raw_requires)
    assert str(error) == f"{WHERE}: {expected}"
    assert error.key == key


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        (
            {"kind": "snap"},
            "app.linux.location[0].name must be a bare name (missing; kind 'snap' needs it)",
        ),
        (
            {"kind": "snap", "name": None},
            "app.linux.location[0].name must be a bare name (missing; kind 'snap' needs it)",
        ),
        ({"kind": "snap", "name": "../x"}, "app.linux.location[0].name must be a bare name"),
    ],
)
def test_a_missing_key_and_a_bad_value_read_differently(
    location: dict[str, Any], expected: str
) -> None:
    assert message(only_linux(location=[location])) == f"{WHERE}: {expected}"


def test_a_missing_and_a_bad_uninstall_file_read_differently() -> None:
    assert message(uninstall_location(None)) == (
        f"{WHERE}: app.win32.location[0].file must be a relative path inside the install folder "
        "(missing; kind 'uninstall_registry' needs it)"
    )
    assert message(uninstall_location("../x.exe")) == (
        f"{WHERE}: app.win32.location[0].file must be a relative path inside the install folder"
    )


def test_location_string_is_stripped() -> None:
    assert linux_locations("  /opt/vendor/bin/vendor\t") == (
        ("path", "/opt/vendor/bin/vendor", ""),
    )


def test_kind_key_value_and_file_are_stripped() -> None:
    decl = parse(
        {
            "win32": win32(
                location=[
                    {
                        "kind": "uninstall_registry",
                        "display_name_prefix": " Vendor App ",
                        "file": " bin/vendor.exe ",
                    }
                ]
            )
        }
    )
    win = decl.app_for("win32")
    assert win is not None
    assert win.locations == (("uninstall_registry", "Vendor App", "bin/vendor.exe"),)


def test_file_on_a_kind_without_file_is_stored_as_string() -> None:
    assert linux_locations([{"kind": "snap", "name": "vendor", "file": "ignored"}]) == (
        ("snap", "vendor", "ignored"),
    )
    assert linux_locations([{"kind": "snap", "name": "vendor", "file": 7}]) == (
        ("snap", "vendor", "7"),
    )


def test_absent_file_on_a_kind_without_file_is_empty() -> None:
    assert linux_locations([{"kind": "command", "name": "vendor"}]) == (("command", "vendor", ""),)


def test_app_bundle_and_command_under_darwin() -> None:
    bundle = parse({"darwin": darwin(location=[{"kind": "app_bundle", "name": "Vendor.app"}])})
    exe = parse(
        {"darwin": darwin(presence="executable", location=[{"kind": "command", "name": "vendor"}])}
    )
    assert bundle.app_for("darwin") is not None
    assert exe.app_for("darwin") is not None


@pytest.mark.parametrize("version", ["0", "2", "2.3.0", "10.0.19045.1", "123456789.1"])
def test_min_version_accepts_dotted_numeric(version: str) -> None:
    decl = parse(
        {"darwin": darwin(version={"kind": "plist"})}, {"app": True, "min_version": version}
    )
    assert decl.min_version == version


@pytest.mark.parametrize(
    "version",
    [
        "1.",
        ".1",
        "1..2",
        " 1.0",
        "1.0 ",
        "v1.0",
        "1.0-beta",
        "1,0",
        "١.٢",
        "1234567890",
        "1.1234567890",
        "１.０",
        "+1",
    ],
)
def test_min_version_rejects_others_ascii_and_at_most_nine_digits(version: str) -> None:
    assert message(
        {"darwin": darwin(version={"kind": "plist"})}, {"app": True, "min_version": version}
    ) == (f"{WHERE}: requires.min_version must be a dotted numeric string")


@pytest.mark.parametrize("not_a_string", [1.0, 2, True, ["1.0"], {"v": "1"}])
def test_min_version_must_be_a_string(not_a_string: object) -> None:
    assert message(
        {"darwin": darwin(version={"kind": "plist"})}, {"app": True, "min_version": not_a_string}
    ) == (f"{WHERE}: requires.min_version must be a dotted numeric string")


def test_public_helpers_parse_app_and_requires() -> None:
    spec = parse_app(only_linux(), name="vendor", where=WHERE)
    assert spec is not None
    assert parse_app(None, name="vendor", where=WHERE) is None
    assert parse_requires({"app": True}, spec, where=WHERE) == RequiresSpec(app=True)
    with pytest.raises(DeclarationError) as info:
        parse_requires({"app": True}, None, where=WHERE)
    assert str(info.value) == (
        f"{WHERE}: requires.app is true but the declaration has no 'app' block"
    )


def test_gpu_label() -> None:
    assert gpu_label("nvidia") == "an NVIDIA GPU"
    assert gpu_label("amd") == "a supported GPU"
    assert gpu_label(None) == "a supported GPU"


# --- check order: the first error wins ------------------------------------------


def test_unknown_os_key_alone_is_reported_as_unknown_not_empty() -> None:
    assert message({"freebsd": {}}) == f"{WHERE}: app has unknown OS keys ['freebsd']; {OS_HINT}"


def test_unknown_os_keys_are_checked_before_any_block() -> None:
    assert message({"linux": linux(presence="bad"), "freebsd": {}}) == (
        f"{WHERE}: app has unknown OS keys ['freebsd']; {OS_HINT}"
    )


def test_os_blocks_are_checked_in_input_order() -> None:
    bad_linux = linux(presence="bad")
    bad_darwin = darwin(location=[])
    assert message({"linux": bad_linux, "darwin": bad_darwin}) == (
        f"{WHERE}: app.linux.presence must be one of ('executable', 'bundle')"
    )
    assert message({"darwin": bad_darwin, "linux": bad_linux}) == (
        f"{WHERE}: app.darwin.location is required"
    )


def test_presence_is_checked_before_location() -> None:
    assert message(only_linux(presence=None, location=[])) == (
        f"{WHERE}: app.linux.presence must be one of ('executable', 'bundle') (missing)"
    )
    assert message(only_linux(presence="exe", location=[])) == (
        f"{WHERE}: app.linux.presence must be one of ('executable', 'bundle')"
    )


def test_location_is_checked_before_version() -> None:
    assert message(only_linux(location="rel", version={"kind": "plist"})) == (
        f"{WHERE}: app.linux.location {ROOTED_HINT}"
    )


def test_version_is_checked_before_liveness() -> None:
    assert message(only_linux(version={"kind": "plist"}, liveness={"kind": "bad"})) == (
        f"{WHERE}: app.linux.version.kind 'plist' is only valid under app.darwin"
    )


def test_location_items_are_checked_in_order() -> None:
    assert message(only_linux(location=["/ok", "rel", {"kind": "nope"}])) == (
        f"{WHERE}: app.linux.location[1] {ROOTED_HINT}"
    )
    assert message(only_linux(location=["/ok", {"kind": "nope"}, "rel"])) == (
        f"{WHERE}: app.linux.location[1] {KINDS_HINT}"
    )


def test_version_kind_os_is_checked_before_prefix() -> None:
    assert message({"darwin": darwin(version={"kind": "uninstall_registry"})}) == (
        f"{WHERE}: app.darwin.version.kind 'uninstall_registry' is only valid under app.win32"
    )


def test_liveness_kind_is_checked_before_path() -> None:
    assert message(only_linux(liveness={"kind": "bad", "path": "rel"})) == (
        f"{WHERE}: app.linux.liveness.kind must be one of ('server_json', 'none')"
    )


def test_location_kind_os_is_checked_before_presence() -> None:
    # app_bundle yields "bundle" but the block is "executable": the OS error wins.
    assert message(only_linux(location=[{"kind": "app_bundle", "name": "V.app"}])) == (
        f"{WHERE}: app.linux.location[0] kind 'app_bundle' is only valid under app.darwin"
    )


def test_location_kind_presence_is_checked_before_key() -> None:
    assert message({"darwin": darwin(location=[{"kind": "command", "name": "../x"}])}) == (
        f"{WHERE}: app.darwin.location[0] kind 'command' needs app.darwin.presence executable"
    )


def test_location_kind_key_is_checked_before_file() -> None:
    assert message(
        {"win32": win32(location=[{"kind": "uninstall_registry", "display_name_prefix": "a/b"}])}
    ) == (f"{WHERE}: app.win32.location[0].display_name_prefix must be a bare name")


def test_app_is_checked_before_requires() -> None:
    assert message(only_linux(presence="bad"), {"gpu": "amd", "foo": 1}) == (
        f"{WHERE}: app.linux.presence must be one of ('executable', 'bundle')"
    )


def test_requires_unknown_keys_come_before_gpu() -> None:
    assert message(None, {"gpu": "amd", "foo": 1}) == f"{WHERE}: requires has unknown keys ['foo']"


def test_requires_gpu_comes_before_app() -> None:
    assert message(None, {"gpu": "amd", "app": 1}) == (
        f"{WHERE}: requires.gpu must be one of ['nvidia']"
    )


def test_requires_app_boolean_comes_before_missing_block() -> None:
    assert message(None, {"app": "yes", "min_version": "x"}) == (
        f"{WHERE}: requires.app must be a boolean"
    )


def test_requires_missing_block_comes_before_min_version() -> None:
    assert message(None, {"app": True, "min_version": "latest"}) == (
        f"{WHERE}: requires.app is true but the declaration has no 'app' block"
    )


def test_requires_min_version_format_comes_before_needs_app() -> None:
    assert message(only_linux(), {"min_version": "latest"}) == (
        f"{WHERE}: requires.min_version must be a dotted numeric string"
    )


def test_requires_needs_app_comes_before_version_source() -> None:
    assert message(only_linux(), {"min_version": "1.0"}) == (
        f"{WHERE}: requires.min_version needs requires.app: true"
    )


def test_version_source_reports_the_first_os_in_sorted_order() -> None:
    raw = {"win32": win32(), "linux": linux(), "darwin": darwin()}
    assert message(raw, {"app": True, "min_version": "1"}) == (
        f"{WHERE}: requires.min_version needs a version source under app.darwin (kind is none)"
    )
    raw_versioned_mac = {
        "win32": win32(),
        "linux": linux(),
        "darwin": darwin(version={"kind": "plist"}),
    }
    assert message(raw_versioned_mac, {"app": True, "min_version": "1"}) == (
        f"{WHERE}: requires.min_version needs a version source under app.win32 (kind is none)"
    )


# --- §1.4 rooted paths ------------------------------------------------------------

POSIX_ROOTED = [
    "/opt/vendor/bin/vendor",
    "//host/share/vendor",
    "~/bin/vendor",
    "~user/bin/vendor",
    "$HOME/bin/vendor",
    "${XDG_DATA_HOME}/vendor/bin",
    "%APPDATA%/vendor",
    "/opt/a..b/vendor",
    "/opt/./vendor",
    "/opt/Vendor */bin/vendor",
]
POSIX_NOT_ROOTED = [
    "opt/vendor",
    "./vendor",
    "../vendor",
    "/opt/../vendor",
    "/opt/vendor/..",
    "~/../vendor",
    "$HOME/../vendor",
    "/opt\\..\\vendor",
    "file:///opt/vendor",
    "/opt/x://y",
    "/opt/**/vendor",
    "C:/vendor/vendor",
    "vendor",
]
WIN32_ROOTED = [
    "C:/Program Files/Vendor/vendor.exe",
    "c:\\Vendor\\vendor.exe",
    "%ProgramFiles%/Vendor/vendor.exe",
    "~/vendor.exe",
    "~user/vendor.exe",
    "${LOCALAPPDATA}/Vendor/vendor.exe",
    "$env/vendor.exe",
    "C:/Vendor/a..b/vendor.exe",
    "%ProgramFiles%/Vendor/Vendor App */vendor.exe",
]
WIN32_NOT_ROOTED = [
    "\\\\server\\share\\vendor.exe",
    "\\\\?\\C:\\vendor.exe",
    "\\\\.\\pipe\\vendor",
    "//host/share/vendor.exe",
    "C:vendor.exe",
    "/opt/vendor.exe",
    "\\Vendor\\vendor.exe",
    "Thing/thing.exe",
    "../Up/vendor.exe",
    "C:\\Vendor\\..\\vendor.exe",
    "https://example.com/vendor.exe",
    "C:\\Vendor\\**\\vendor.exe",
]


@pytest.mark.parametrize("path", POSIX_ROOTED)
@pytest.mark.parametrize("os_key", ["linux", "darwin"])
def test_posix_rooted_location_is_accepted_unexpanded(os_key: str, path: str) -> None:
    block = {"presence": "executable", "location": path}
    app = parse({os_key: block}).app_for(os_key)
    assert app is not None
    assert app.locations == (("path", path, ""),)


@pytest.mark.parametrize("path", POSIX_NOT_ROOTED)
@pytest.mark.parametrize("os_key", ["linux", "darwin"])
def test_posix_unrooted_location_is_rejected(os_key: str, path: str) -> None:
    block = {"presence": "executable", "location": [path]}
    assert message({os_key: block}) == f"{WHERE}: app.{os_key}.location[0] {ROOTED_HINT}"


@pytest.mark.parametrize("path", WIN32_ROOTED)
def test_win32_rooted_location_is_accepted_unexpanded(path: str) -> None:
    app = parse({"win32": win32(location=path)}).app_for("win32")
    assert app is not None
    assert app.locations == (("path", path, ""),)


@pytest.mark.parametrize("path", WIN32_NOT_ROOTED)
def test_win32_unrooted_location_is_rejected(path: str) -> None:
    assert message({"win32": win32(location=path)}) == (
        f"{WHERE}: app.win32.location {ROOTED_HINT}"
    )


@pytest.mark.parametrize(
    "path",
    [
        "\\\\fileserver\\share\\server.json",
        "\\\\?\\C:\\x\\server.json",
        "\\\\.\\pipe\\x",
        "\\\\host\\share",
    ],
)
def test_location_is_rooted_refuses_unc_and_device_paths_on_win32(path: str) -> None:
    assert location_is_rooted(path, "win32") is False


def test_location_is_rooted_public_helper() -> None:
    assert location_is_rooted("C:/x", "win32") is True
    assert location_is_rooted("C:/x", "linux") is False
    assert location_is_rooted("//host/share", "linux") is True
    assert location_is_rooted("~user/x", "darwin") is True
    assert location_is_rooted("/a/../b", "linux") is False


# --- §1.4 bare names and relative files --------------------------------------------

BARE_OK = ["vendor", "a..b", ".", "com.vendor.App", "Thing.app", "v-1_2", "Vendor App"]
BARE_BAD: list[object] = [
    "C:x",
    "/vendor",
    "vendor/",
    "a/b",
    "a\\b",
    "..",
    "",
    "   ",
    "a//b",
    "http://x",
    "x://y",
    5,
    ["vendor"],
]


@pytest.mark.parametrize("name", BARE_OK)
def test_bare_name_is_accepted(name: str) -> None:
    assert linux_locations([{"kind": "snap", "name": name}]) == (("snap", name, ""),)


@pytest.mark.parametrize("name", BARE_BAD)
def test_bare_name_is_rejected(name: object) -> None:
    assert message(only_linux(location=[{"kind": "snap", "name": name}])) == (
        f"{WHERE}: app.linux.location[0].name must be a bare name"
    )


def test_bare_name_is_stripped() -> None:
    assert linux_locations([{"kind": "flatpak", "app_id": "  com.vendor.App "}]) == (
        ("flatpak", "com.vendor.App", ""),
    )


def uninstall_location(file: object) -> dict[str, Any]:
    return {
        "win32": win32(
            location=[{"kind": "uninstall_registry", "display_name_prefix": "Vendor", "file": file}]
        )
    }


@pytest.mark.parametrize(
    ("file", "stored"),
    [
        ("vendor.exe", "vendor.exe"),
        ("bin/vendor.exe", "bin/vendor.exe"),
        ("bin\\vendor.exe", "bin\\vendor.exe"),
        ("./vendor.exe", "./vendor.exe"),
        ("a..b/vendor.exe", "a..b/vendor.exe"),
        (" vendor.exe ", "vendor.exe"),
    ],
)
def test_relative_file_is_accepted(file: str, stored: str) -> None:
    win = parse(uninstall_location(file)).app_for("win32")
    assert win is not None
    assert win.locations == (("uninstall_registry", "Vendor", stored),)


@pytest.mark.parametrize(
    "file",
    [
        "/vendor.exe",
        "bin/",
        "../vendor.exe",
        "bin/../../vendor.exe",
        "C:\\vendor.exe",
        "C:vendor.exe",
        "\\\\server\\share\\vendor.exe",
        "a//b",
        "",
        "  ",
        "file://x",
        5,
        ["vendor.exe"],
    ],
)
def test_relative_file_is_rejected(file: object) -> None:
    assert message(uninstall_location(file)) == (
        f"{WHERE}: app.win32.location[0].file must be a relative path inside the install folder"
    )


# --- §1.9 line E hardening ------------------------------------------------------------


def live(**fields: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"kind": "server_json", "path": "/run/vendor/server.json"}
    block.update(fields)
    return block


@pytest.mark.parametrize(
    "path", ["run/server.json", "/run/../etc/server.json", "http://x/server.json", "./server.json"]
)
def test_liveness_path_must_be_rooted(path: str) -> None:
    assert message(only_linux(liveness=live(path=path))) == (
        f"{WHERE}: app.linux.liveness.path {LIVENESS_PATH_HINT}"
    )


@pytest.mark.parametrize(
    "path",
    [
        "\\\\fileserver\\share\\server.json",
        "\\\\?\\C:\\x\\server.json",
        "server.json",
        "/run/server.json",
    ],
)
def test_win32_liveness_path_must_be_drive_rooted(path: str) -> None:
    assert message({"win32": win32(liveness=live(path=path))}) == (
        f"{WHERE}: app.win32.liveness.path {LIVENESS_PATH_HINT}"
    )


@pytest.mark.parametrize(
    ("os_key", "path"),
    [
        ("linux", "~/.vendor/server.json"),
        ("linux", "$XDG_RUNTIME_DIR/v.json"),
        ("win32", "%LOCALAPPDATA%/Vendor/server.json"),
        ("win32", "C:\\V\\server.json"),
    ],
)
def test_rooted_liveness_path_is_accepted(os_key: str, path: str) -> None:
    raw = (
        {"linux": linux(liveness=live(path=path))}
        if os_key == "linux"
        else {"win32": win32(liveness=live(path=path))}
    )
    app = parse(raw).app_for(os_key)
    assert app is not None
    assert app.liveness_path == path


def test_liveness_path_is_stored_stripped() -> None:
    app = parse(only_linux(liveness=live(path="  /run/v.json\n"))).app_for("linux")
    assert app is not None
    assert app.liveness_path == "/run/v.json"


@pytest.mark.parametrize(
    "endpoint",
    [
        "@attacker.example/",
        "mcp",
        "http://evil.test/x",
        "/mcp?token=1",
        "/mcp#frag",
        "/mcp x",
        "/mcp\tx",
        " /mcp",
        "/a/../../b",
        "/..",
        "//evil.test/mcp",
        "/mcp\n",
        "/mcp%2f",
        "/méthode",
        5,
        ["/mcp"],
    ],
)
def test_endpoint_path_rejects(endpoint: object) -> None:
    assert message(only_linux(liveness=live(endpoint_path=endpoint))) == (
        f"{WHERE}: app.linux.liveness.endpoint_path {ENDPOINT_HINT}"
    )


@pytest.mark.parametrize("endpoint", ["/mcp", "/rpc/v1", "/a/b-c_d.e~f", "/"])
def test_endpoint_path_accepts(endpoint: str) -> None:
    app = parse(only_linux(liveness=live(endpoint_path=endpoint))).app_for("linux")
    assert app is not None
    assert app.endpoint_path == endpoint


@pytest.mark.parametrize("empty", ["", None])
def test_empty_endpoint_path_falls_back_to_mcp(empty: object) -> None:
    app = parse(only_linux(liveness=live(endpoint_path=empty))).app_for("linux")
    assert app is not None
    assert app.endpoint_path == "/mcp"


@pytest.mark.parametrize("field", ["pid_key", "url_key", "token_key"])
@pytest.mark.parametrize("value", ["pid key", "a:b", "a/b", "$pid", "pid\n", "pïd", "a[0]"])
def test_liveness_key_names_must_be_simple(field: str, value: str) -> None:
    assert message(only_linux(liveness=live(**{field: value}))) == (
        f"{WHERE}: app.linux.liveness.{field} must be a simple key name"
    )


# --- the seed's two app blocks ----------------------------------------------------

SEED_FIRST = """\
app:
  win32:
    presence: executable
    location: "%ProgramFiles%/Vendor/Vendor App/McpServer/Server.exe"
    version: { kind: uninstall_registry, display_name_prefix: "Vendor App" }
    liveness:
      kind: server_json
      path: "%LOCALAPPDATA%/Vendor/Vendor App/McpServer/server.json"
      pid_key: pid
      url_key: http
      token_key: token
      endpoint_path: /mcp
  darwin:
    presence: bundle
    location: /Applications/Vendor.app
    version: { kind: plist }
"""

SEED_SECOND = """\
app:
  win32:
    presence: executable
    location:
      - { kind: uninstall_registry, display_name_prefix: "Vendor App", file: vendor.exe }
      - "%ProgramFiles%/Vendor/Vendor App */vendor.exe"
    version: { kind: pe_resource }
  darwin:
    presence: bundle
    location: [{ kind: app_bundle, name: Vendor.app }]
    version: { kind: plist }
  linux:
    presence: executable
    location:
      - { kind: command, name: vendor }
      - { kind: flatpak, app_id: com.vendor.App }
      - { kind: snap, name: vendor }
"""

SEED_REQUIRES = {"app": True, "min_version": "2.3.0"}


def parse_seed(text: str) -> Declaration:
    raw = YAML(typ="safe").load(text)
    return parse_declaration("my-server", raw["app"], SEED_REQUIRES, where="my-plugin/plugin.yaml")


def test_seed_first_block_parses() -> None:
    decl = parse_seed(SEED_FIRST)
    assert decl.app is not None
    assert list(decl.app.per_os) == ["win32", "darwin"]
    assert decl.min_version == "2.3.0"
    assert decl.requires_app is True


def test_seed_first_block_win32_fields() -> None:
    win = parse_seed(SEED_FIRST).app_for("win32")
    assert win is not None
    assert win.app_id == "my-server"
    assert win.presence == "executable"
    assert win.locations == (("path", "%ProgramFiles%/Vendor/Vendor App/McpServer/Server.exe", ""),)
    assert (win.version_kind, win.version_arg) == ("uninstall_registry", "Vendor App")
    assert win.liveness_kind == "server_json"
    assert win.liveness_path == "%LOCALAPPDATA%/Vendor/Vendor App/McpServer/server.json"
    assert (win.liveness_pid_key, win.liveness_url_key, win.liveness_token_key) == (
        "pid",
        "http",
        "token",
    )
    assert win.endpoint_path == "/mcp"


def test_seed_first_block_darwin_fields() -> None:
    mac = parse_seed(SEED_FIRST).app_for("darwin")
    assert mac is not None
    assert mac.presence == "bundle"
    assert mac.locations == (("path", "/Applications/Vendor.app", ""),)
    assert (mac.version_kind, mac.version_arg) == ("plist", "")
    assert mac.liveness_kind == "none"


def test_seed_second_block_parses_with_locations_in_order() -> None:
    decl = parse_seed(SEED_SECOND)
    assert decl.app is not None
    assert list(decl.app.per_os) == ["win32", "darwin", "linux"]
    win, mac, lin = (decl.app_for(os_key) for os_key in ("win32", "darwin", "linux"))
    assert win is not None and mac is not None and lin is not None
    assert win.locations == (
        ("uninstall_registry", "Vendor App", "vendor.exe"),
        ("path", "%ProgramFiles%/Vendor/Vendor App */vendor.exe", ""),
    )
    assert (win.version_kind, win.version_arg) == ("pe_resource", "")
    assert mac.locations == (("app_bundle", "Vendor.app", ""),)
    assert mac.version_kind == "plist"
    assert lin.locations == (
        ("command", "vendor", ""),
        ("flatpak", "com.vendor.App", ""),
        ("snap", "vendor", ""),
    )
    assert lin.version_kind == "none"
    assert lin.endpoint_path == "/mcp"
