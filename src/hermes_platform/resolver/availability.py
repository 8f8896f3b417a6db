"""``availability(decl)``: may this server and its skills be offered on this host?

This is the one evaluation every reader uses.  It runs ``locate``, reads
versions where a minimum needs them, and reads the cached GPU fact; it never
probes, spawns or connects, and keeps no cache of its own.  :func:`explain`
runs the same decision and also returns every location tried, so a vendor
can see *why* a server is hidden.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Protocol

from hermes_platform.host import facts, gpu
from hermes_platform.resolver.app import AppDef, Candidate, Resolution, locate
from hermes_platform.resolver.locating import LocateContext
from hermes_platform.resolver.versions import Observation, read_version

__all__ = [
    "OFFERABLE_STATES",
    "STATES",
    "Availability",
    "CandidateReport",
    "Explanation",
    "LocationReport",
    "availability",
    "explain",
    "version_at_least",
]

STATES = (
    "available",
    "installed_not_running",
    "missing_app",
    "version_too_old",
    "unsupported_os",
    "unsupported_gpu",
    "no_requirements",
)
OFFERABLE_STATES = frozenset({"available", "no_requirements"})
_READABLE_VERSION = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})*")


class Evaluable(Protocol):
    """Anything ``availability`` can evaluate (a ``Declaration`` qualifies)."""

    @property
    def requires_app(self) -> bool: ...

    @property
    def min_version(self) -> str | None: ...

    @property
    def required_gpu(self) -> str | None: ...

    def app_for(self, os_family: str) -> AppDef | None: ...


@dataclass(frozen=True)
class Availability:
    """The answer: a state, the version read, the path found or looked at, the minimum."""

    state: str
    version: str | None = None
    path: str | None = None
    min_version: str | None = None

    @property
    def offerable(self) -> bool:
        """True exactly for ``available`` and ``no_requirements``."""
        return self.state in OFFERABLE_STATES

    def __bool__(self) -> bool:
        raise TypeError("Availability is not a boolean; read .offerable or .state")

    def as_dict(self) -> dict[str, str | None]:
        return {
            "state": self.state,
            "version": self.version,
            "path": self.path,
            "min_version": self.min_version,
        }


def _components(version: object) -> list[int] | None:
    if not isinstance(version, str) or not _READABLE_VERSION.fullmatch(version):
        return None
    return [int(part) for part in version.split(".")]


def version_at_least(found: object, minimum: object) -> bool:
    """``found >= minimum`` for dotted ASCII-digit versions; false if either is unreadable."""
    have, want = _components(found), _components(minimum)
    if have is None or want is None:
        return False
    width = max(len(have), len(want))
    have += [0] * (width - len(have))
    want += [0] * (width - len(want))
    return have >= want


@dataclass(frozen=True)
class CandidateReport:
    """One path looked at, and the version read there (when one was read)."""

    path: str
    source: str
    present: bool
    version: str | None = None
    version_state: str = "not_checked"
    version_detail: str = ""


@dataclass(frozen=True)
class LocationReport:
    """One declared location and what it yielded."""

    index: int
    kind: str
    value: str
    file: str
    candidates: tuple[CandidateReport, ...]
    error: str | None = None


@dataclass(frozen=True)
class Explanation:
    """``availability`` with its reasons: the steps taken and every location tried."""

    name: str
    os: str
    availability: Availability
    steps: tuple[str, ...]
    locations: tuple[LocationReport, ...] = ()
    gpu: str | None = None
    version_kind: str | None = None

    @property
    def state(self) -> str:
        return self.availability.state

    def as_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["availability"] = self.availability.as_dict()
        data["state"] = self.state
        return data


class _Trace:
    def __init__(self) -> None:
        self.steps: list[str] = []
        self.gpu: str | None = None

    def step(self, text: str) -> None:
        self.steps.append(text)


def _decide(
    entry: Evaluable,
    os_family: str | None,
    trace: _Trace | None,
    ctx_factory: Callable[[str], LocateContext],
    reader: Callable[[LocateContext, AppDef, Candidate], Observation],
) -> tuple[Availability, Resolution | None, LocateContext | None, AppDef | None]:
    note = trace.step if trace is not None else (lambda _text: None)
    minimum = entry.min_version
    required_gpu = entry.required_gpu
    if not entry.requires_app and required_gpu is None:
        note("requires neither an app nor a GPU: no requirements (no I/O)")
        return Availability("no_requirements"), None, None, None
    os_name = os_family or facts.os_family()
    definition = entry.app_for(os_name) if entry.requires_app else None
    if entry.requires_app and definition is None:
        note(f"requires the app, but the declaration has no app.{os_name} block")
        return Availability("unsupported_os", min_version=minimum), None, None, None
    if required_gpu is not None:
        found_gpu = gpu.gpu_class()
        if trace is not None:
            trace.gpu = found_gpu
        if found_gpu not in (required_gpu, "unknown"):
            note(f"requires a {required_gpu} GPU; this machine's GPU class is {found_gpu}")
            return Availability("unsupported_gpu", min_version=minimum), None, None, None
        note(f"requires a {required_gpu} GPU; GPU class {found_gpu} passes")
    if definition is None:
        note("no app is required: no requirements beyond the GPU")
        return Availability("no_requirements"), None, None, None
    ctx = ctx_factory(os_name)
    resolution = locate(definition, ctx)
    looked_at = resolution.looked_at
    if not resolution.found:
        note(f"no location of app.{os_name} yielded a present candidate")
        return (
            Availability("missing_app", path=looked_at, min_version=minimum),
            resolution,
            ctx,
            definition,
        )
    if definition.version_kind == "none":
        note("found; the block reads no version, so presence is enough")
        return (
            Availability("available", path=looked_at, min_version=minimum),
            resolution,
            ctx,
            definition,
        )
    present = resolution.present
    if minimum is None:
        observed = reader(ctx, definition, present[0])
        note("found; no minimum version is required")
        return Availability("available", observed.value, looked_at), resolution, ctx, definition
    best: tuple[list[int], str, str] | None = None
    for candidate in present:
        observed = reader(ctx, definition, candidate)
        if observed.state == "present" and version_at_least(observed.value, minimum):
            note(f"found version {observed.value} at {candidate.value}, which meets {minimum}")
            return (
                Availability("available", observed.value, candidate.value, minimum),
                resolution,
                ctx,
                definition,
            )
        parts = _components(observed.value) if observed.state == "present" else None
        if parts is not None and observed.value is not None and (best is None or parts > best[0]):
            best = (parts, observed.value, candidate.value)
    if best is None:
        note(f"no present copy has a readable version; {minimum} is required")
        return (
            Availability("version_too_old", None, looked_at, minimum),
            resolution,
            ctx,
            definition,
        )
    note(f"the newest readable version is {best[1]}; {minimum} is required")
    return Availability("version_too_old", best[1], best[2], minimum), resolution, ctx, definition


def _plain_reader(ctx: LocateContext, definition: AppDef, candidate: Candidate) -> Observation:
    return read_version(ctx, definition.version_kind, candidate.value, definition.version_arg)


def availability(entry: Evaluable, *, os_family: str | None = None) -> Availability:
    """Evaluate *entry* on this host (or as if on *os_family*); never raises for host data."""
    result, _resolution, _ctx, _definition = _decide(
        entry, os_family, None, LocateContext, _plain_reader
    )
    return result


def explain(
    entry: Evaluable, *, os_family: str | None = None, name: str | None = None
) -> Explanation:
    """The same decision as :func:`availability`, with each location tried and why."""
    trace = _Trace()
    memo: dict[tuple[str, str], Observation] = {}

    def reader(ctx: LocateContext, definition: AppDef, candidate: Candidate) -> Observation:
        key = (definition.version_kind, candidate.value)
        if key not in memo:
            memo[key] = _plain_reader(ctx, definition, candidate)
        return memo[key]

    result, resolution, ctx, definition = _decide(entry, os_family, trace, LocateContext, reader)
    locations: list[LocationReport] = []
    if resolution is not None and ctx is not None and definition is not None:
        for trial in resolution.trials:
            reports = []
            for candidate in trial.candidates:
                observed = Observation("not_checked")
                if candidate.present and definition.version_kind != "none":
                    observed = reader(ctx, definition, candidate)
                reports.append(
                    CandidateReport(
                        candidate.value,
                        candidate.source,
                        candidate.present,
                        observed.value,
                        observed.state,
                        observed.detail,
                    )
                )
            loc = trial.location
            locations.append(
                LocationReport(
                    trial.index, loc.kind, loc.value, loc.file, tuple(reports), trial.error
                )
            )
    return Explanation(
        name=name if name is not None else str(getattr(entry, "name", "")),
        os=os_family or facts.os_family(),
        availability=result,
        steps=tuple(trace.steps),
        locations=tuple(locations),
        gpu=trace.gpu,
        version_kind=definition.version_kind if definition is not None else None,
    )
