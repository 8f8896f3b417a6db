"""Hypothesis properties of the declaration parser (spec/declarations.md §5)."""

from __future__ import annotations

import copy
import io
import string
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from hermes_platform.declaration import Declaration, DeclarationError, parse_declaration

WHERE = "props/plugin.yaml"
PROPERTY_SETTINGS = settings(max_examples=150, deadline=None, database=None)

OS_KEYS = ("win32", "darwin", "linux")
BLOCK_KEYS = ("presence", "location", "version", "liveness", "extra")
INNER_KEYS = (
    "kind",
    "name",
    "app_id",
    "display_name_prefix",
    "file",
    "path",
    "pid_key",
    "url_key",
    "token_key",
    "endpoint_path",
    "extra",
)
REQUIRES_KEYS = ("app", "min_version", "gpu", "extra")
INTERESTING_STRINGS = (
    "win32",
    "darwin",
    "linux",
    "freebsd",
    "executable",
    "bundle",
    "none",
    "plist",
    "pe_resource",
    "uninstall_registry",
    "server_json",
    "command",
    "flatpak",
    "snap",
    "app_bundle",
    "registry",
    "nvidia",
    "amd",
    "/opt/x",
    "C:/x",
    "c:\\x",
    "C:x",
    "..",
    "../x",
    "**",
    "/a/**/b",
    "://",
    "http://x/y",
    "%X%/y",
    "$X/y",
    "${X}/y",
    "~",
    "~u/x",
    "\\\\server\\share",
    "\\\\?\\C:\\x",
    "1.0",
    "1.0\n",
    "latest",
    "",
    " ",
    "\x00",
    "\u0663.\u0664",
    "/mcp",
    "//mcp",
    "/mcp?x=1",
    "a..b",
    ".",
    "a/b",
    "x y",
    "\ud7ff",
    "1234567890",
)

hashable_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=12)
    | st.sampled_from(INTERESTING_STRINGS)
)
scalars = hashable_scalars | st.floats(allow_nan=True, allow_infinity=True)
anything = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(hashable_scalars | st.sampled_from(INNER_KEYS), children, max_size=4)
    ),
    max_leaves=10,
)
KIND_NAMES = (
    "command",
    "flatpak",
    "snap",
    "app_bundle",
    "uninstall_registry",
    "none",
    "plist",
    "pe_resource",
    "server_json",
)
small_values = (
    scalars
    | st.lists(scalars, max_size=3)
    | st.dictionaries(st.sampled_from(INNER_KEYS), scalars, max_size=2)
)
inner_mapping = st.fixed_dictionaries(
    {},
    optional={
        key: (st.sampled_from(KIND_NAMES) | small_values) if key == "kind" else small_values
        for key in INNER_KEYS
    },
)
field_value = small_values | inner_mapping | st.lists(small_values | inner_mapping, max_size=3)
os_block = st.fixed_dictionaries(
    {"presence": st.sampled_from(("executable", "bundle")) | scalars},
    optional={key: field_value for key in BLOCK_KEYS if key != "presence"},
)
fuzzy_app = st.dictionaries(st.sampled_from(OS_KEYS), os_block, min_size=1, max_size=3) | (
    st.dictionaries(
        st.sampled_from((*OS_KEYS, "freebsd")) | hashable_scalars, os_block | anything, max_size=3
    )
)
fuzzy_requires = anything | st.dictionaries(
    st.sampled_from(REQUIRES_KEYS) | hashable_scalars,
    anything | st.sampled_from([True, False, "nvidia", "1.2.3", "2"]),
    max_size=4,
)


def parse_or_error(raw_app: object, raw_requires: object) -> Declaration | DeclarationError:
    try:
        return parse_declaration("vendor", raw_app, raw_requires, where=WHERE)
    except DeclarationError as exc:
        return exc


def assert_declaration_or_named_error(result: Declaration | DeclarationError) -> None:
    if isinstance(result, DeclarationError):
        assert str(result).startswith(f"{WHERE}: ")
        assert result.where == WHERE
        # A catalogued message, not the defensive catch-all for a crash.
        assert not result.reason.startswith("invalid declaration")
    else:
        assert isinstance(result, Declaration)


@PROPERTY_SETTINGS
@given(raw_app=anything, raw_requires=anything)
def test_arbitrary_values_give_a_declaration_or_a_declaration_error(
    raw_app: object, raw_requires: object
) -> None:
    assert_declaration_or_named_error(parse_or_error(raw_app, raw_requires))


@PROPERTY_SETTINGS
@given(raw_app=fuzzy_app, raw_requires=fuzzy_requires | st.none())
def test_schema_shaped_noise_gives_a_declaration_or_a_declaration_error(
    raw_app: object, raw_requires: object
) -> None:
    assert_declaration_or_named_error(parse_or_error(raw_app, raw_requires))


# --- valid declarations ---------------------------------------------------------

NAME_POOL = (
    "vendor",
    "Vendor.app",
    "com.vendor.App",
    "a..b",
    ".",
    "v-1_2",
    "0",
    "1.0",
    "true",
    "null",
    "~x",
    "-",
    "_",
    "Vendor App",
    "yes",
    "x.y.z",
    ".hidden",
    "MCP",
)
SEGMENT_POOL = (
    "opt",
    "Program Files",
    "Vendor",
    "Vendor App *",
    "*",
    "v*",
    "a..b",
    ".",
    "bin",
    "McpServer",
    "2.10",
    "Thing 10.0b",
    "x-y_z",
    "#hash",
    "a:b",
    "@at",
    "é",
)

bare_names = st.sampled_from(NAME_POOL) | st.text(
    string.ascii_letters + string.digits + "._-", min_size=1, max_size=6
).filter(lambda s: s != "..")
path_segment = st.sampled_from(SEGMENT_POOL)
key_names = st.sampled_from(("pid", "http", "token", "proc.pid", "url-1", "A_b", "0", "true")) | (
    st.text(string.ascii_letters + string.digits + "._-", min_size=1, max_size=6)
)


ROOT_PREFIXES = {
    "win32": ("C:/", "c:\\", "%ProgramFiles%/", "~/", "$LOCALAPPDATA/"),
    "darwin": ("/", "~/", "$HOME/", "${XDG_DATA_HOME}/", "%APPDATA%/"),
    "linux": ("/", "~/", "$HOME/", "${XDG_DATA_HOME}/", "%APPDATA%/"),
}


def join_rooted(prefix: str, segments: list[str]) -> str:
    sep = "\\" if prefix.endswith("\\") else "/"
    return prefix + sep.join(segments)


ROOTED_PATHS = {
    os_key: st.builds(
        join_rooted, st.sampled_from(prefixes), st.lists(path_segment, min_size=1, max_size=4)
    )
    for os_key, prefixes in ROOT_PREFIXES.items()
}
relative_files = st.lists(bare_names, min_size=1, max_size=3).map("/".join)

Expected = tuple[str, str, str]
KIND_CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("linux", "executable"): ("command", "flatpak", "snap"),
    ("darwin", "executable"): ("command",),
    ("darwin", "bundle"): ("app_bundle",),
    ("win32", "executable"): ("command", "uninstall_registry"),
}
KEY_OF = {
    "command": "name",
    "flatpak": "app_id",
    "snap": "name",
    "app_bundle": "name",
    "uninstall_registry": "display_name_prefix",
}
VERSION_CHOICES = {
    "linux": ("none", "jetbrains_product_info", "flatpak", "snap"),
    "darwin": ("none", "plist", "jetbrains_product_info"),
    "win32": ("none", "pe_resource", "uninstall_registry", "jetbrains_product_info"),
}


def path_item(path: str) -> tuple[object, Expected]:
    return path, ("path", path, "")


def kind_item(kind: str, value: str, file: str) -> tuple[object, Expected]:
    raw: dict[str, Any] = {"kind": kind, KEY_OF[kind]: value}
    if kind == "uninstall_registry":
        raw["file"] = file
        return raw, (kind, value, file)
    return raw, (kind, value, "")


def location_items(os_key: str, presence: str) -> st.SearchStrategy[tuple[object, Expected]]:
    items = ROOTED_PATHS[os_key].map(path_item)
    kinds = KIND_CHOICES.get((os_key, presence))
    if kinds:
        items |= st.builds(kind_item, st.sampled_from(kinds), bare_names, relative_files)
    return items


LOCATION_ITEMS = {
    (os_key, presence): st.lists(location_items(os_key, presence), min_size=1, max_size=4)
    for os_key in OS_KEYS
    for presence in ("executable", "bundle")
}
LIVENESS_KEYS = st.fixed_dictionaries(
    {},
    optional={
        "pid_key": key_names,
        "url_key": key_names,
        "token_key": key_names,
        "endpoint_path": st.lists(
            (key_names | st.just("~x")).filter(lambda part: part != ".."), min_size=1, max_size=3
        ).map(lambda parts: "/" + "/".join(parts)),
    },
)


@st.composite
def valid_block(draw: st.DrawFn, os_key: str) -> tuple[dict[str, Any], tuple[Expected, ...], str]:
    presence = draw(st.sampled_from(("executable", "bundle")))
    items = draw(LOCATION_ITEMS[os_key, presence])
    block: dict[str, Any] = {"presence": presence}
    if len(items) == 1 and isinstance(items[0][0], str) and draw(st.booleans()):
        block["location"] = items[0][0]
    else:
        block["location"] = [raw for raw, _ in items]
    version_kind = draw(st.sampled_from(VERSION_CHOICES[os_key]))
    if version_kind == "uninstall_registry":
        block["version"] = {"kind": version_kind, "display_name_prefix": draw(bare_names)}
    elif version_kind != "none":
        block["version"] = {"kind": version_kind}
    if draw(st.booleans()):
        block["liveness"] = {
            "kind": "server_json",
            "path": draw(ROOTED_PATHS[os_key]),
            **draw(LIVENESS_KEYS),
        }
    return block, tuple(expected for _, expected in items), version_kind


VALID_BLOCKS = {os_key: valid_block(os_key) for os_key in OS_KEYS}
MIN_VERSIONS = st.lists(st.integers(0, 999_999_999), min_size=1, max_size=4).map(
    lambda parts: ".".join(str(part) for part in parts)
)


@st.composite
def valid_declaration(
    draw: st.DrawFn,
) -> tuple[dict[str, Any], dict[str, Any] | None, dict[str, tuple[Expected, ...]]]:
    os_keys = draw(st.lists(st.sampled_from(OS_KEYS), min_size=1, max_size=3, unique=True))
    raw_app: dict[str, Any] = {}
    expected: dict[str, tuple[Expected, ...]] = {}
    version_kinds: dict[str, str] = {}
    for os_key in os_keys:
        block, locations, version_kind = draw(VALID_BLOCKS[os_key])
        raw_app[os_key] = block
        expected[os_key] = locations
        version_kinds[os_key] = version_kind
    if not draw(st.booleans()):
        return raw_app, None, expected
    requires: dict[str, Any] = {}
    if draw(st.booleans()):
        requires["gpu"] = "nvidia"
    app_required = draw(st.booleans())
    if app_required or draw(st.booleans()):
        requires["app"] = app_required
    versioned = all(
        kind != "none" or (os_key == "linux" and len(version_kinds) > 1)
        for os_key, kind in version_kinds.items()
    )
    if app_required and versioned and draw(st.booleans()):
        requires["min_version"] = draw(MIN_VERSIONS)
    return raw_app, requires, expected


YAML_SAFE = YAML(typ="safe")
# Keep the OS blocks in input order (ruamel sorts plain dicts by default).
YAML_SAFE.sort_base_mapping_type_on_output = False  # type: ignore[assignment]


def yaml_round_trip(document: dict[str, Any]) -> Any:
    buffer = io.StringIO()
    YAML_SAFE.dump(document, buffer)
    return YAML_SAFE.load(buffer.getvalue())


def parse(raw_app: object, raw_requires: object) -> Declaration:
    return parse_declaration("vendor", raw_app, raw_requires, where=WHERE)


@PROPERTY_SETTINGS
@given(valid_declaration())
def test_valid_declaration_parses_identically_twice(
    case: tuple[dict[str, Any], dict[str, Any] | None, Any],
) -> None:
    raw_app, raw_requires, _ = case
    before = copy.deepcopy((raw_app, raw_requires))
    first = parse(raw_app, raw_requires)
    second = parse(raw_app, raw_requires)
    assert first == second
    assert (raw_app, raw_requires) == before  # the parser does not mutate its input


@PROPERTY_SETTINGS
@given(valid_declaration())
def test_valid_declaration_survives_a_yaml_text_round_trip(
    case: tuple[dict[str, Any], dict[str, Any] | None, Any],
) -> None:
    raw_app, raw_requires, _ = case
    loaded = yaml_round_trip({"app": raw_app, "requires": raw_requires})
    assert parse(loaded["app"], loaded["requires"]) == parse(raw_app, raw_requires)


@PROPERTY_SETTINGS
@given(valid_declaration())
def test_location_order_is_preserved(
    case: tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any]],
) -> None:
    raw_app, raw_requires, expected = case
    decl = parse(raw_app, raw_requires)
    assert decl.app is not None
    assert list(decl.app.per_os) == list(raw_app)
    for os_key, locations in expected.items():
        app = decl.app_for(os_key)
        assert app is not None
        assert app.locations == locations
        assert app.os_family == os_key


MIN_VERSION_APP = {
    "darwin": {
        "presence": "bundle",
        "location": "/Applications/V.app",
        "version": {"kind": "plist"},
    }
}


@PROPERTY_SETTINGS
@given(st.text(alphabet=string.digits + ".\u0663 \nx", max_size=24))
def test_min_version_is_accepted_exactly_when_ascii_dotted_numeric(text: str) -> None:
    parts = text.split(".")
    valid = all(part.isascii() and part.isdigit() and len(part) <= 9 for part in parts)
    result = parse_or_error(MIN_VERSION_APP, {"app": True, "min_version": text})
    if valid:
        assert isinstance(result, Declaration)
        assert result.min_version == text
    else:
        assert isinstance(result, DeclarationError)
        assert result.reason == "requires.min_version must be a dotted numeric string"


# --- valid declarations with one node broken ------------------------------------


def nodes(value: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every path to a dict value or list item inside *value*."""
    found: list[tuple[object, ...]] = []
    if isinstance(value, dict):
        for key, child in value.items():
            found.append((*path, key))
            found.extend(nodes(child, (*path, key)))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found.append((*path, index))
            found.extend(nodes(child, (*path, index)))
    return found


@st.composite
def broken_declaration(draw: st.DrawFn) -> dict[str, Any]:
    raw_app, raw_requires, _ = draw(valid_declaration())
    document: dict[str, Any] = {"app": raw_app, "requires": raw_requires}
    path = draw(st.sampled_from(nodes(document)))
    parent: Any = document
    for step in path[:-1]:
        parent = parent[step]
    if draw(st.booleans()):
        parent[path[-1]] = draw(anything | st.sampled_from(INTERESTING_STRINGS))
    else:
        del parent[path[-1]]
    return document


@PROPERTY_SETTINGS
@given(broken_declaration())
def test_a_valid_declaration_with_one_node_broken_gives_a_declaration_or_an_error(
    document: dict[str, Any],
) -> None:
    assert_declaration_or_named_error(parse_or_error(document.get("app"), document.get("requires")))
