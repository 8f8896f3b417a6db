"""Run every contributed locator, version reader and GPU probe on fake win32, darwin and linux
hosts.

Registration only checks types; a locator that raises, returns ``None`` or a
string, or a GPU probe that answers something that is not a GPU class, would
otherwise surface only as "not installed" on a user's machine.  This module
calls each one the way the resolver and ``gpu_class()`` will, on
:class:`~hermes_platform.testing.FakeHost` machines (no real I/O), and says
what is wrong.  ``check_plugin``, ``HERMES_STRICT_PLUGINS=1`` and
``hermes plugins list`` use it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import islice

from hermes_core.plugins.guard import call_plugin, code_origin, describe
from hermes_core.plugins.types import (
    AppDeclaration,
    AppLocation,
    GpuProbe,
    LocationKind,
    VersionSource,
)
from hermes_platform.host.gpu import GPU_CLASSES
from hermes_platform.resolver.locating import LocateContext
from hermes_platform.resolver.observation import OBSERVATION_STATES, Observation
from hermes_platform.testing import FakeHost

__all__ = ["FAKE_OSES", "fake_host", "kind_problem", "probe_problem", "source_problem"]

FAKE_OSES = ("linux", "darwin", "win32")
_SAMPLE = "example"
_MAX_CANDIDATES = 256
_GPU_LAYOUTS = {"linux": "nvidia", "win32": "amd", "darwin": "apple_silicon"}
# A found copy to read a version from, per OS (the fake hosts are empty).
_SAMPLE_FOUND = {
    "linux": "/opt/example/bin/example",
    "darwin": "/Applications/Example.app",
    "win32": "C:/Program Files/Example/example.exe",
}


def fake_host(os_name: str) -> FakeHost:
    """An empty machine of *os_name* with the environment a real one has."""
    if os_name == "win32":
        return FakeHost(
            "win32",
            env={
                "PATH": "C:\\Windows\\system32;C:\\Windows",
                "PATHEXT": ".COM;.EXE;.BAT;.CMD",
                "ProgramFiles": "C:\\Program Files",
                "ProgramFiles(x86)": "C:\\Program Files (x86)",
                "LOCALAPPDATA": "C:\\Users\\user\\AppData\\Local",
                "APPDATA": "C:\\Users\\user\\AppData\\Roaming",
                "USERPROFILE": "C:\\Users\\user",
            },
        )
    return FakeHost(os_name, env={"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/home/user"})


def _kind_oses(kind: LocationKind) -> list[str]:
    oses: object = getattr(kind, "os", None)
    if oses is None:
        return list(FAKE_OSES)
    if isinstance(oses, str):
        return [oses]
    if not isinstance(oses, Iterable):
        raise TypeError(f"os must be an OS name or a list of them, not {type(oses).__name__}")
    return [str(o) for o in oses]


def _declared_locations(
    kind: LocationKind, declarations: Iterable[AppDeclaration]
) -> Iterator[AppLocation]:
    """The locations of this kind that installed declarations name (values as written)."""
    for decl in declarations:
        blocks = decl.app if isinstance(decl.app, Mapping) else {}
        for block in blocks.values():
            raw = block.get("location") if isinstance(block, Mapping) else None
            entries = raw if isinstance(raw, list) else [raw]
            for entry in entries:
                if not isinstance(entry, Mapping) or entry.get("kind") != kind.name:
                    continue
                value, file = entry.get(kind.key), entry.get("file", "")
                if isinstance(value, str) and isinstance(file, str):
                    yield AppLocation(kind.name, value, file)


def _samples(kind: LocationKind, declarations: Iterable[AppDeclaration]) -> list[AppLocation]:
    sample = AppLocation(kind.name, _SAMPLE, f"{_SAMPLE}.exe" if kind.needs_file else "")
    found = [sample, *_declared_locations(kind, declarations)]
    return list(dict.fromkeys(found))


def _check_candidates(result: object) -> str | None:
    """Why *result* is not what a locator must return (an iterable of path strings)."""
    expected = "expected an iterable of path strings (a list; [] when there is nothing to try)"
    if result is None:
        return f"returned None, {expected}"
    if isinstance(result, (str, bytes)):
        return f"returned a {type(result).__name__} ({str(result)[:60]!r}), {expected}"
    try:
        items = iter(result)  # type: ignore[call-overload]
    except TypeError:
        return f"returned a {type(result).__name__}, {expected}"
    for item in islice(items, _MAX_CANDIDATES):
        if not isinstance(item, str):
            return f"yielded a {type(item).__name__} ({item!r:.60}), {expected}"
    return None


def _run_locator(
    locate: Callable[[LocateContext, AppLocation], object],
    ctx: LocateContext,
    location: AppLocation,
) -> str | None:
    return _check_candidates(locate(ctx, location))


def kind_problem(
    plugin: str, kind: LocationKind, declarations: Iterable[AppDeclaration] = ()
) -> str | None:
    """The first thing wrong with *kind*'s locator on the fake hosts, or ``None``."""
    if not callable(kind.locate):
        what = type(kind.locate).__name__
        return f"location kind {kind.name!r}: locate is a {what}, not callable"
    for os_name in _kind_oses(kind):
        for location in _samples(kind, declarations):
            ctx = LocateContext(os_name, fake_host(os_name))
            call = f"locate(ctx, {location.value!r}) on a fake {os_name} host"
            try:
                wrong = call_plugin(
                    plugin, f"location_kind ({kind.name})", _run_locator, kind.locate, ctx, location
                )
            except Exception as exc:  # noqa: BLE001 - the point is to report it
                where = code_origin(kind.locate)
                return f"location kind {kind.name!r}: {call} {describe(exc, within=where)}"
            if wrong is not None:
                return f"location kind {kind.name!r}: {call} {wrong}"
    return None


def probe_problem(plugin: str, probe: GpuProbe) -> str | None:
    """The first thing wrong with *probe*'s ``read`` on fake hosts of its OS, or ``None``."""
    if not callable(probe.read):
        return f"GPU probe {probe.name!r}: read is a {type(probe.read).__name__}, not callable"
    hosts = [fake_host(probe.os)]
    if probe.os in _GPU_LAYOUTS:
        hosts.append(fake_host(probe.os).set_gpu(_GPU_LAYOUTS[probe.os]))
    for host in hosts:
        call = f"read(host) on a fake {probe.os} host"
        try:
            answer = call_plugin(plugin, f"gpu_probe ({probe.name})", probe.read, host)
        except Exception as exc:  # noqa: BLE001 - the point is to report it
            where = code_origin(probe.read)
            return f"GPU probe {probe.name!r}: {call} {describe(exc, within=where)}"
        if answer is not None and answer not in GPU_CLASSES:
            return (
                f"GPU probe {probe.name!r}: {call} answered {answer!r:.60}, "
                f"expected one of {', '.join(GPU_CLASSES)} or None"
            )
    return None


def source_problem(plugin: str, source: VersionSource) -> str | None:
    """The first thing wrong with *source*'s reader on empty fake hosts of its OSes, or ``None``.

    A reader must answer an :class:`Observation` (``absent`` or ``error`` is fine
    for a copy that is not there); one that raises or answers anything else would
    only ever read as "version unreadable" on a user's machine.
    """
    if not callable(source.read):
        return (
            f"version source {source.name!r}: read is a {type(source.read).__name__}, not callable"
        )
    for os_name in source.oses or FAKE_OSES:
        path = _SAMPLE_FOUND.get(os_name, _SAMPLE_FOUND["linux"])
        ctx = LocateContext(os_name, fake_host(os_name))
        call = f"read(ctx, {path!r}, {_SAMPLE!r}) on a fake {os_name} host"
        try:
            answer = call_plugin(
                plugin, f"version_source ({source.name})", source.read, ctx, path, _SAMPLE
            )
        except Exception as exc:  # noqa: BLE001 - the point is to report it
            where = code_origin(source.read)
            return f"version source {source.name!r}: {call} {describe(exc, within=where)}"
        if not isinstance(answer, Observation) or answer.state not in OBSERVATION_STATES:
            return (
                f"version source {source.name!r}: {call} answered {answer!r:.60}, "
                "expected an Observation (present, absent, unavailable or error)"
            )
        if answer.state == "present" and not isinstance(answer.value, str):
            return (
                f"version source {source.name!r}: {call} answered present with "
                f"{answer.value!r:.60}, expected the version as text"
            )
    return None
