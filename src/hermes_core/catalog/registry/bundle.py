"""``.mcpb`` bundles: a zip holding ``manifest.json`` and the server's files.

:func:`check_members` refuses a zip before anything is written: absolute names, ``..``,
symlinks, more than :data:`MAX_FILES` entries or :data:`MAX_UNPACKED_BYTES` declared;
:func:`unpack` writes into a new folder, counting the bytes really inflated (a header that lies
is caught too) and removes the folder on any failure.  :func:`read_manifest` reads the
manifest (``server`` with ``mcp_config``, ``user_config``, ``compatibility``) tolerantly: fields
this Hermes does not know are listed, not fatal; an unknown ``server.type`` is refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import sys
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from hermes_core.catalog.registry.app_meta import hermes_meta
from hermes_core.catalog.registry.entry import PlanError, Question
from hermes_platform.runners import MissingRunner, missing_runner

__all__ = [
    "MAX_BUNDLE_BYTES",
    "MAX_FILES",
    "MAX_UNPACKED_BYTES",
    "BundleError",
    "BundleManifest",
    "bundle_entry",
    "bundle_questions",
    "check_entry_point",
    "check_members",
    "read_manifest",
    "sha256_of",
    "unpack",
]

MAX_BUNDLE_BYTES = 256 * 1024 * 1024
"""The largest ``.mcpb`` file read or downloaded."""
MAX_UNPACKED_BYTES = 512 * 1024 * 1024
MAX_FILES = 10_000
_MAX_MANIFEST = 1024 * 1024
_SERVER_TYPES = ("node", "python", "binary")
_KNOWN = {
    "manifest_version", "dxt_version", "name", "display_name", "version", "description",
    "long_description", "author", "repository", "homepage", "documentation", "support", "icon",
    "icons", "screenshots", "server", "tools", "tools_generated", "prompts", "prompts_generated",
    "keywords", "license", "privacy_policies", "compatibility", "user_config", "_meta",
    "localization",
}  # fmt: skip


class BundleError(ValueError):
    """A bundle that is refused: the sentence says why; nothing was written."""


@dataclass(frozen=True)
class UserOption:
    key: str
    type: str
    title: str
    description: str = ""
    required: bool = False
    sensitive: bool = False
    multiple: bool = False
    default: str | None = None


@dataclass(frozen=True)
class BundleManifest:
    name: str
    version: str
    description: str
    display_name: str
    server_type: str
    entry_point: str | None
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    user_config: tuple[UserOption, ...] = ()
    platforms: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    hermes_meta: Mapping[str, object] = field(default_factory=dict)
    """Our ``_meta`` keys (``dev.hermes/declaration``: an app declaration), unparsed."""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def check_members(archive: zipfile.ZipFile, label: str) -> list[zipfile.ZipInfo]:
    """The members to unpack; :class:`BundleError` for any unsafe or oversized one."""
    members = archive.infolist()
    if len(members) > MAX_FILES:
        raise BundleError(f"{label}: more than {MAX_FILES} files")
    total = 0
    for info in members:
        name = info.filename
        path = PurePosixPath(name)
        if (
            not name
            or name.startswith(("/", "\\"))
            or "\\" in name
            or "\x00" in name
            or (len(name) > 1 and name[1] == ":")
            or any(part == ".." for part in path.parts)
        ):
            raise BundleError(f"{label}: unsafe path {name!r} in the bundle (refused)")
        if _is_symlink(info):
            raise BundleError(f"{label}: {name!r} is a symbolic link (bundles may not hold links)")
        total += info.file_size
        if total > MAX_UNPACKED_BYTES:
            raise BundleError(f"{label}: unpacks to more than {MAX_UNPACKED_BYTES} bytes")
    return members


def _manifest_text(archive: zipfile.ZipFile, label: str) -> object:
    try:
        info = archive.getinfo("manifest.json")
    except KeyError:
        raise BundleError(f"{label}: no manifest.json at the top of the bundle") from None
    if info.file_size > _MAX_MANIFEST:
        raise BundleError(f"{label}: manifest.json is larger than {_MAX_MANIFEST} bytes")
    with archive.open(info) as fh:
        data = fh.read(_MAX_MANIFEST + 1)
    if len(data) > _MAX_MANIFEST:
        raise BundleError(f"{label}: manifest.json is larger than {_MAX_MANIFEST} bytes")
    try:
        return json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError):
        raise BundleError(f"{label}: manifest.json is not valid JSON") from None


def _text(data: Mapping[str, object], key: str, label: str, *, required: bool = False) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise BundleError(
            f"{label}: manifest.json: {key}: "
            + ("is required" if value is None else "must be text")
        )
    return value[:4096]


def _option(key: str, raw: object, label: str) -> UserOption:
    if not isinstance(raw, dict):
        raise BundleError(f"{label}: manifest.json: user_config.{key}: must be an object")
    kind = raw.get("type", "string")
    if kind not in ("string", "number", "boolean", "directory", "file"):
        raise BundleError(f"{label}: manifest.json: user_config.{key}.type: {kind!r} is unknown")
    default = raw.get("default")
    if isinstance(default, list):
        default = os.pathsep.join(str(d) for d in default)
    elif isinstance(default, bool):
        default = "true" if default else "false"
    return UserOption(
        key=key,
        type=str(kind),
        title=str(raw.get("title") or key)[:200],
        description=str(raw.get("description") or "")[:1000],
        required=raw.get("required") is True,
        sensitive=raw.get("sensitive") is True,
        multiple=raw.get("multiple") is True,
        default=None if default is None else str(default),
    )


def read_manifest(archive: zipfile.ZipFile, label: str) -> BundleManifest:
    """The bundle's ``manifest.json``, checked for what Hermes needs to run it."""
    data = _manifest_text(archive, label)
    if not isinstance(data, dict):
        raise BundleError(f"{label}: manifest.json must be an object")
    unknown = tuple(str(k) for k in data if k not in _KNOWN)
    server = data.get("server")
    if not isinstance(server, dict):
        raise BundleError(f"{label}: manifest.json: server: is required")
    kind = server.get("type")
    if kind not in _SERVER_TYPES:
        raise BundleError(
            f"{label}: server type {kind!r} is not one this Hermes runs "
            f"({', '.join(_SERVER_TYPES)})"
        )
    config = server.get("mcp_config")
    if not isinstance(config, dict):
        raise BundleError(f"{label}: manifest.json: server.mcp_config: is required")
    override = (config.get("platform_overrides") or {}).get(sys.platform)
    if isinstance(override, dict):
        config = {**config, **override}
    command = _text(config, "command", label, required=True)
    args = config.get("args") or []
    env = config.get("env") or {}
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise BundleError(f"{label}: manifest.json: server.mcp_config.args: must be a list of text")
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise BundleError(f"{label}: manifest.json: server.mcp_config.env: must map names to text")
    raw_options = data.get("user_config") or {}
    if not isinstance(raw_options, dict):
        raise BundleError(f"{label}: manifest.json: user_config: must be an object")
    compatibility = data.get("compatibility")
    platforms = compatibility.get("platforms") if isinstance(compatibility, dict) else None
    entry_point = server.get("entry_point")
    return BundleManifest(
        name=_text(data, "name", label, required=True),
        version=_text(data, "version", label, required=True),
        description=_text(data, "description", label),
        display_name=_text(data, "display_name", label),
        server_type=str(kind),
        entry_point=entry_point if isinstance(entry_point, str) else None,
        command=command,
        args=tuple(args),
        env={str(k): v for k, v in env.items()},
        user_config=tuple(_option(str(k), v, label) for k, v in list(raw_options.items())[:64]),
        platforms=tuple(str(p) for p in platforms) if isinstance(platforms, list) else (),
        unknown=unknown,
        hermes_meta=hermes_meta(data.get("_meta")),
    )


def unpack(
    archive: zipfile.ZipFile, members: list[zipfile.ZipInfo], dest: Path, label: str
) -> None:
    """Write *members* into the new folder *dest* (removed again on any failure)."""
    dest.mkdir(parents=True)
    written = 0
    try:
        for info in members:
            target = dest / info.filename
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            mode = (info.external_attr >> 16) & 0o755
            with archive.open(info) as src, open(target, "xb") as out:
                for chunk in iter(lambda src=src: src.read(1 << 20), b""):  # type: ignore[misc]
                    written += len(chunk)
                    if written > MAX_UNPACKED_BYTES:
                        raise BundleError(
                            f"{label}: unpacks to more than {MAX_UNPACKED_BYTES} bytes"
                        )
                    out.write(chunk)
            os.chmod(target, (mode | 0o600) if mode else 0o644)
    except OSError as exc:  # two members of one name, a file where a folder goes, a full disk
        shutil.rmtree(dest, ignore_errors=True)
        raise BundleError(f"{label}: cannot unpack it ({exc.strerror or exc})") from None
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise


def _home_paths(text: str) -> str:
    home = str(Path.home())
    for var, sub in (
        ("HOME", ""),
        ("DESKTOP", "Desktop"),
        ("DOCUMENTS", "Documents"),
        ("DOWNLOADS", "Downloads"),
    ):
        text = text.replace("${" + var + "}", os.path.join(home, sub) if sub else home)
    return text


def _variable(prefix: str, key: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", f"{prefix}_{key}").strip("_").upper()


def bundle_questions(manifest: BundleManifest, prefix: str) -> list[Question]:
    """The manifest's ``user_config``, asked like the catalog's keys (saved to ``.env``)."""
    return [
        Question(
            _variable(prefix, option.key),
            option.title + (f" — {option.description}" if option.description else ""),
            option.sensitive,
            option.required,
            _home_paths(option.default) if option.default is not None else None,
        )
        for option in manifest.user_config
    ]


def bundle_entry(
    manifest: BundleManifest, folder: Path, prefix: str, answered: set[str]
) -> tuple[dict[str, object], MissingRunner | None]:
    """The entry: ``${__dirname}`` → *folder*, ``${user_config.K}`` → ``${PREFIX_K}`` (an
    optional value left unanswered drops the argument), ``${HOME}`` and the like expanded."""
    options = {o.key: o for o in manifest.user_config}

    def sub(text: str) -> str | None:
        text = _home_paths(text.replace("${__dirname}", str(folder)))
        while "${user_config." in text:
            start = text.index("${user_config.")
            end = text.find("}", start)
            if end < 0:
                raise PlanError(f"manifest.json: {text!r}: an unterminated ${{user_config.…}}")
            key = text[start + len("${user_config.") : end]
            if key not in options:
                raise PlanError(f"manifest.json: ${{user_config.{key}}} is not in user_config")
            variable = _variable(prefix, key)
            if variable not in answered:
                return None
            text = text[:start] + "\x00" + variable + "\x01" + text[end + 1 :]
        return text.replace("\x00", "${").replace("\x01", "}")

    command = sub(manifest.command) or manifest.command
    if manifest.server_type == "binary" and not os.path.isabs(command) and "/" in command:
        command = str(folder / command)
    args = [a for a in (sub(a) for a in manifest.args) if a is not None]
    env = {k: v for k, v in ((k, sub(v)) for k, v in manifest.env.items()) if v is not None}
    entry: dict[str, object] = {"command": command}
    if args:
        entry["args"] = args
    if env:
        entry["env"] = env
    # A binary is the bundle's own file (checked by check_entry_point); node/python are runners.
    runner = missing_runner(command) if manifest.server_type != "binary" else None
    return entry, runner


def check_entry_point(manifest: BundleManifest, members: list[zipfile.ZipInfo], label: str) -> None:
    """The manifest's ``entry_point`` must be a file of the bundle."""
    if manifest.entry_point is None:
        return
    wanted = PurePosixPath(manifest.entry_point.removeprefix("./")).as_posix()
    if not any(PurePosixPath(m.filename).as_posix() == wanted for m in members):
        raise BundleError(f"{label}: its entry_point {manifest.entry_point!r} is not in the bundle")
