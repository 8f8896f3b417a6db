"""Application declarations: the parser and the process-wide registry.

A plugin whose MCP server fronts a desktop app declares which app it is
(``app:``, one block per OS) and what the server needs (``requires:``).
:func:`parse_declaration` turns plain, already-decoded mappings into a frozen
:class:`Declaration`; it never reads files and imports only the standard
library and ``hermes_platform``.  Every bad input raises
:class:`DeclarationError` whose message starts with ``<where>: `` and names
the exact key path.

The registry (:func:`register`, :func:`unregister`, :func:`lookup`,
:func:`clear`) is process-wide and lock-protected; the last registration
wins and :data:`on_change` is called after every mutation.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

from hermes_platform import declared
from hermes_platform.declaration_model import (
    GPU_LABELS,
    AppSpec,
    Declaration,
    RequiresSpec,
    gpu_label,
)
from hermes_platform.declared import add_change_listener, lookup, names, remove_change_listener
from hermes_platform.resolver.app import LOCATION_KINDS, AppDef, AppLocation
from hermes_platform.resolver.locating import OS_KEYS, PRESENCES
from hermes_platform.resolver.paths import is_bare_name, is_relative_inside, location_is_rooted
from hermes_platform.resolver.versions import VERSION_KINDS

__all__ = [
    "GPU_LABELS",
    "OS_KEYS",
    "AppDef",
    "AppLocation",
    "AppSpec",
    "Declaration",
    "DeclarationError",
    "RequiresSpec",
    "add_change_listener",
    "clear",
    "gpu_label",
    "lookup",
    "names",
    "on_change",
    "parse_app",
    "parse_declaration",
    "parse_requires",
    "register",
    "remove_change_listener",
    "unknown_keys_reason",
    "unregister",
]

LIVENESS_KINDS = ("server_json", "none")
_REQUIRES_KEYS = ("app", "min_version", "gpu")
_BLOCK_KEYS = ("presence", "location", "version", "liveness")
_REQUIRES_ELSEWHERE = {key: "requires" for key in _REQUIRES_KEYS}
_LIVENESS_KEYS = ("kind", "path", "pid_key", "url_key", "token_key", "endpoint_path")
_MIN_VERSION = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})*")
_KEY_NAME = re.compile(r"[A-Za-z0-9_.-]+")
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ENDPOINT_PATH = re.compile(r"/[A-Za-z0-9._~/-]*")
_ROOTED_HINT = "must be absolute or start with ~ / %VAR% / $VAR, without '..', '**' or a URL scheme"


class DeclarationError(ValueError):
    """A declaration that cannot be accepted.

    ``str(error)`` is ``"<where>: <key path> <reason>"``; the parts are also
    available as ``where``, ``key`` (for example ``app.linux.location[1].app_id``;
    empty when the problem is the whole input) and ``reason``.
    """

    def __init__(self, where: str, key: str, text: str) -> None:
        super().__init__(f"{where}: {text}")
        self.where = where
        self.key = key
        self.reason = text


# --- parser -------------------------------------------------------------------


def _fail(where: str, key: str, text: str) -> DeclarationError:
    return DeclarationError(where, key, text)


def _sorted_repr(keys: Sequence[object]) -> str:
    return repr(sorted(keys, key=lambda k: (0, k) if isinstance(k, str) else (1, repr(k))))


def _close_matches(unknown: Sequence[object], valid: Collection[str]) -> list[tuple[str, str]]:
    pairs = []
    for key in unknown:
        if isinstance(key, str):
            found = _closest(key, valid)
            if found:
                pairs.append((key, found[0]))
    return pairs


def unknown_keys_reason(
    label: str,
    unknown: Sequence[object],
    valid: Collection[str],
    *,
    list_valid: bool = True,
    elsewhere: Mapping[str, str] | None = None,
) -> str:
    """``<label> has unknown keys [..]; did you mean 'x'? (valid keys: [..])``.

    The did-you-mean part appears when :mod:`difflib` finds a close valid key
    (``'file'`` for ``'flie'``), or names where a key that is valid elsewhere
    belongs (*elsewhere*: ``{"min_version": "requires"}``); ``plugin_yaml``
    words its top-level check with it too.
    """
    text = f"{label} has unknown keys {_sorted_repr(unknown)}"
    misplaced = [key for key in unknown if isinstance(key, str) and key in (elsewhere or {})]
    if misplaced and elsewhere is not None:
        text += "; " + ", ".join(f"{key!r} belongs under {elsewhere[key]}" for key in misplaced)
        return text + (f" (valid keys: {sorted(valid)!r})" if list_valid else "")
    pairs = _close_matches(unknown, valid)
    if len(pairs) == 1 and len(unknown) == 1:
        text += f"; did you mean {pairs[0][1]!r}?"
    elif pairs:
        text += "; did you mean " + ", ".join(f"{m!r} for {k!r}" for k, m in pairs) + "?"
    if list_valid:
        text += f" (valid keys: {sorted(valid)!r})"
    return text


def _did_you_mean(value: object, table: Iterable[str]) -> str:
    """``"; did you mean 'snap'?"`` for a close registered name, else ``""``."""
    if not isinstance(value, str):
        return ""
    found = _closest(value, table, VALUE_CUTOFF)
    return f"; did you mean {found[0]!r}?" if found else ""


#: How close a misspelt *value* (a location kind, a version source) must be to be suggested:
#: stricter than for keys, so that the error catalogue of docs/declarations.md holds (a
#: ``kind: registry`` is not taken for ``uninstall_registry``).
VALUE_CUTOFF = 0.75


def _closest(word: str, known: Iterable[str], cutoff: float = 0.6) -> list[str]:
    """The one known word close to *word* (the platform's own did-you-mean: it imports
    nothing of hermes_core, whose ``spelling`` module asks the same question with the same
    threshold for keys, ``spelling.CUTOFF``)."""
    return difflib.get_close_matches(word, list(known), n=1, cutoff=cutoff)


def _check_keys(
    block: Mapping[object, object],
    valid: Collection[str],
    where: str,
    label: str,
    elsewhere: Mapping[str, str] | None = None,
) -> None:
    """Fail closed: a key the block does not know (a typo) is an error, not ignored."""
    unknown = [key for key in block if key not in valid]
    if unknown:
        first = unknown[0]
        plain = isinstance(first, str) and _PLAIN_KEY.fullmatch(first)
        key = f"{label}.{first}" if plain else label
        raise _fail(where, key, unknown_keys_reason(label, unknown, valid, elsewhere=elsewhere))


def _text(value: object, where: str, key: str) -> str:
    """``str(value)``, or a declaration error naming *key* when even that fails."""
    try:
        return str(value)
    except (ValueError, TypeError, RecursionError):
        raise _fail(where, key, f"{key} must be text") from None


def _mapping(value: object, where: str, key: str) -> dict[object, object]:
    if not isinstance(value, dict):
        raise _fail(where, key, f"'{key}' must be a mapping")
    return value


def _parse_location_item(
    item: object, os_key: str, presence: str, label: str, where: str
) -> AppLocation:
    if isinstance(item, str):
        text = item.strip()
        if not text:
            raise _fail(where, label, f"{label} is required")
        if "**" in text or not location_is_rooted(text, os_key):
            raise _fail(where, label, f"{label} {_ROOTED_HINT}")
        return AppLocation("path", text, "")
    kinds_hint = f"{label} must be a path or a mapping with kind one of {LOCATION_KINDS.names()!r}"
    if not isinstance(item, dict):
        raise _fail(where, label, kinds_hint)
    kind_name = item.get("kind")
    if kind_name is None:
        typos = [typo for typo, _ in _close_matches(list(item), ("kind",))]
        if typos:
            raise _fail(
                where,
                f"{label}.{typos[0]}" if _PLAIN_KEY.fullmatch(typos[0]) else label,
                unknown_keys_reason(label, typos, ("kind",), list_valid=False),
            )
        raise _fail(
            where,
            f"{label}.kind",
            kinds_hint + " (missing 'kind')",
        )
    kind = LOCATION_KINDS.get(kind_name)
    if kind is None:
        raise _fail(where, f"{label}.kind", kinds_hint + _did_you_mean(kind_name, LOCATION_KINDS))
    if not kind.serves(os_key):
        valid_under = " or ".join(f"app.{os}" for os in kind.oses or ())
        raise _fail(
            where, f"{label}.kind", f"{label} kind '{kind.name}' is only valid under {valid_under}"
        )
    kind_presence = kind.presence_for(os_key)
    if kind_presence != presence:
        raise _fail(
            where,
            f"{label}.kind",
            f"{label} kind '{kind.name}' needs app.{os_key}.presence {kind_presence}",
        )
    _check_keys(item, ("kind", kind.key, "file"), where, label)
    value = item.get(kind.key)
    if value is None:
        raise _fail(
            where,
            f"{label}.{kind.key}",
            f"{label}.{kind.key} must be a bare name (missing; kind '{kind.name}' needs it)",
        )
    if not is_bare_name(value):
        raise _fail(where, f"{label}.{kind.key}", f"{label}.{kind.key} must be a bare name")
    assert isinstance(value, str)
    file_text = ""
    if kind.needs_file:
        raw_file = item.get("file")
        if raw_file is None:
            raise _fail(
                where,
                f"{label}.file",
                f"{label}.file must be a relative path inside the install folder "
                f"(missing; kind '{kind.name}' needs it)",
            )
        if not is_relative_inside(raw_file):
            raise _fail(
                where,
                f"{label}.file",
                f"{label}.file must be a relative path inside the install folder",
            )
        assert isinstance(raw_file, str)
        file_text = raw_file.strip()
    elif item.get("file") is not None:
        file_text = _text(item["file"], where, f"{label}.file").strip()
    return AppLocation(kind.name, value.strip(), file_text)


def _parse_locations(
    raw: object, os_key: str, presence: str, where: str
) -> tuple[AppLocation, ...]:
    base = f"app.{os_key}.location"
    if isinstance(raw, str):
        return (_parse_location_item(raw, os_key, presence, base, where),)
    if not isinstance(raw, list) or not raw:
        raise _fail(where, base, f"{base} is required")
    return tuple(
        _parse_location_item(item, os_key, presence, f"{base}[{index}]", where)
        for index, item in enumerate(raw)
    )


def _parse_version(raw: object, os_key: str, where: str) -> tuple[str, str]:
    base = f"app.{os_key}.version"
    if not raw:
        return "none", ""
    block = _mapping(raw, where, base)
    kind_name = block.get("kind")
    if kind_name is None:
        kind_name = "none"
    source = VERSION_KINDS.get(kind_name)
    if source is None:
        raise _fail(
            where,
            f"{base}.kind",
            f"{base}.kind must be one of {VERSION_KINDS.names()!r}"
            + _did_you_mean(kind_name, VERSION_KINDS),
        )
    if not source.serves(os_key):
        valid_under = " or ".join(f"app.{os}" for os in source.oses or ())
        raise _fail(
            where,
            f"{base}.kind",
            f"{base}.kind '{source.name}' is only valid under {valid_under}",
        )
    arg_key = source.arg_key
    _check_keys(block, ("kind", arg_key), where, base)
    raw_arg = block.get(arg_key)
    arg = _text(raw_arg, where, f"{base}.{arg_key}") if raw_arg else ""
    if source.needs_arg and not arg:
        raise _fail(
            where,
            f"{base}.{arg_key}",
            f"{base}.{arg_key} is required for {source.name}",
        )
    return source.name, arg


def _parse_liveness(raw: object, os_key: str, where: str) -> dict[str, str]:
    base = f"app.{os_key}.liveness"
    result = {
        "kind": "none",
        "path": "",
        "pid_key": "pid",
        "url_key": "http",
        "token_key": "token",
        "endpoint_path": "/mcp",
    }
    if not raw:
        return result
    block = _mapping(raw, where, base)
    _check_keys(block, _LIVENESS_KEYS, where, base)
    kind = block.get("kind")
    if kind is None:
        kind = "none"
    if not isinstance(kind, str) or kind not in LIVENESS_KINDS:
        raise _fail(where, f"{base}.kind", f"{base}.kind must be one of {LIVENESS_KINDS!r}")
    result["kind"] = kind
    path = block.get("path")
    path_text = _text(path, where, f"{base}.path").strip() if path else ""
    if kind == "server_json":
        if not path_text:
            raise _fail(where, f"{base}.path", f"{base}.path is required for server_json")
        if not location_is_rooted(path_text, os_key):
            raise _fail(
                where,
                f"{base}.path",
                f"{base}.path must be absolute or start with ~ / %VAR% / $VAR, "
                "without '..' or a URL scheme",
            )
    result["path"] = path_text
    for field_name, default in (("pid_key", "pid"), ("url_key", "http"), ("token_key", "token")):
        value = block.get(field_name)
        text = _text(value, where, f"{base}.{field_name}") if value else default
        if not _KEY_NAME.fullmatch(text):
            raise _fail(
                where, f"{base}.{field_name}", f"{base}.{field_name} must be a simple key name"
            )
        result[field_name] = text
    endpoint = block.get("endpoint_path")
    endpoint_text = endpoint if endpoint else "/mcp"
    if (
        not isinstance(endpoint_text, str)
        or not _ENDPOINT_PATH.fullmatch(endpoint_text)
        or endpoint_text.startswith("//")
        or ".." in endpoint_text.split("/")
    ):
        raise _fail(
            where,
            f"{base}.endpoint_path",
            f"{base}.endpoint_path must be a plain path starting with '/' "
            "(no userinfo, query, scheme, or whitespace)",
        )
    result["endpoint_path"] = endpoint_text
    return result


def _parse_os_block(os_key: str, raw: object, *, name: str, where: str) -> AppDef:
    block = _mapping(raw, where, f"app.{os_key}")
    _check_keys(block, _BLOCK_KEYS, where, f"app.{os_key}", _REQUIRES_ELSEWHERE)
    presence = block.get("presence")
    if presence is None:
        raise _fail(
            where,
            f"app.{os_key}.presence",
            f"app.{os_key}.presence must be one of {PRESENCES!r} (missing)",
        )
    if not isinstance(presence, str) or presence not in PRESENCES:
        raise _fail(
            where, f"app.{os_key}.presence", f"app.{os_key}.presence must be one of {PRESENCES!r}"
        )
    locations = _parse_locations(block.get("location"), os_key, presence, where)
    version_kind, version_arg = _parse_version(block.get("version"), os_key, where)
    liveness = _parse_liveness(block.get("liveness"), os_key, where)
    return AppDef(
        app_id=name,
        os_family=os_key,
        presence=presence,
        locations=locations,
        version_kind=version_kind,
        version_arg=version_arg,
        liveness_kind=liveness["kind"],
        liveness_path=liveness["path"],
        liveness_pid_key=liveness["pid_key"],
        liveness_url_key=liveness["url_key"],
        liveness_token_key=liveness["token_key"],
        endpoint_path=liveness["endpoint_path"],
    )


def parse_app(raw: object, *, name: str, where: str) -> AppSpec | None:
    """Parse an ``app:`` block; ``None`` means no app block."""
    if raw is None:
        return None
    block = _mapping(raw, where, "app")
    unknown = [key for key in block if key not in OS_KEYS]
    if unknown:
        pairs = _close_matches(unknown, OS_KEYS)
        hint = ""
        if pairs:
            hint = " (did you mean " + ", ".join(repr(match) for _, match in pairs) + "?)"
        raise _fail(
            where,
            "app",
            f"app has unknown OS keys {_sorted_repr(unknown)}{hint}; use {OS_KEYS!r}",
        )
    if not block:
        raise _fail(where, "app", "app needs at least one OS block")
    return AppSpec(
        tuple(
            (str(key), _parse_os_block(str(key), value, name=name, where=where))
            for key, value in block.items()  # each key one of OS_KEYS (checked above)
        )
    )


def parse_requires(raw: object, app: AppSpec | None, *, where: str) -> RequiresSpec:
    """Parse a ``requires:`` block against the already-parsed *app*."""
    if raw is None:
        return RequiresSpec()
    block = _mapping(raw, where, "requires")
    unknown = [key for key in block if key not in _REQUIRES_KEYS]
    if unknown:
        first = unknown[0]
        plain = isinstance(first, str) and _PLAIN_KEY.fullmatch(first)
        raise _fail(
            where,
            f"requires.{first}" if plain else "requires",
            unknown_keys_reason("requires", unknown, _REQUIRES_KEYS, list_valid=False),
        )
    gpu = block.get("gpu")
    if gpu is not None and (not isinstance(gpu, str) or gpu not in GPU_LABELS):
        raise _fail(where, "requires.gpu", f"requires.gpu must be one of {sorted(GPU_LABELS)!r}")
    needs_app = block.get("app", False)
    if not isinstance(needs_app, bool):
        raise _fail(where, "requires.app", "requires.app must be a boolean")
    if needs_app and app is None:
        raise _fail(
            where, "requires.app", "requires.app is true but the declaration has no 'app' block"
        )
    min_version = block.get("min_version")
    if min_version is not None:
        if not isinstance(min_version, str) or not _MIN_VERSION.fullmatch(min_version):
            raise _fail(
                where,
                "requires.min_version",
                "requires.min_version must be a dotted numeric string",
            )
        if not needs_app or app is None:
            raise _fail(
                where, "requires.min_version", "requires.min_version needs requires.app: true"
            )
        per_os = dict(app.blocks)
        for os_key in sorted(per_os):
            exempt = os_key == "linux" and len(per_os) > 1
            if per_os[os_key].version_kind == "none" and not exempt:
                raise _fail(
                    where,
                    "requires.min_version",
                    "requires.min_version needs a version source under "
                    f"app.{os_key} (kind is none)",
                )
    return RequiresSpec(app=needs_app, min_version=min_version, gpu=gpu)


def parse_declaration(
    name: str, raw_app: object = None, raw_requires: object = None, *, where: str
) -> Declaration:
    """Parse one declaration; raises :class:`DeclarationError` for any bad input."""
    where = str(where)
    if not isinstance(name, str) or not name.strip():
        raise _fail(where, "", "the server name must be a non-empty string")
    try:
        app = parse_app(raw_app, name=name, where=where)
        requires = parse_requires(raw_requires, app, where=where)
    except DeclarationError:
        raise
    except (TypeError, ValueError, AttributeError, RecursionError) as exc:
        # Defensive: odd inputs must surface as a declaration error, never a crash.
        raise _fail(where, "", f"invalid declaration ({type(exc).__name__}: {exc})") from exc
    return Declaration(name=name, app=app, requires=requires)


# --- registry -----------------------------------------------------------------
# The table and its listeners live in hermes_platform.declared (stdlib only), so that a host
# asking about an undeclared server imports neither this parser nor the resolvers.

on_change: Callable[[], None] | None = None
"""Called once, after the listeners, after every register/unregister/clear."""


def _notify() -> None:
    declared._notify_listeners()
    hook = on_change
    if hook is not None:
        hook()


def register(server_name: str, decl: Declaration) -> None:
    """Store *decl* under the configured server name; the last registration wins."""
    if not isinstance(decl, Declaration):
        raise TypeError(f"register() needs a Declaration, got {type(decl).__name__}")
    declared._store(server_name, decl)
    _notify()


def unregister(server_name: str) -> None:
    """Remove *server_name*; an absent name is not an error."""
    declared._store(server_name, None)
    _notify()


def clear() -> None:
    """Remove every registration (not a per-plugin unload)."""
    declared._clear()
    _notify()
