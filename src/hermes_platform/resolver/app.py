"""Application definitions, the table of location kinds, and ``locate``.

``locate`` walks an :class:`AppDef`'s locations in declared order and keeps
every candidate it looked at; the first present one decides.  It stats
only: no file contents, no spawning, no network.
"""

from __future__ import annotations

from dataclasses import dataclass

from hermes_platform.registration import RegistrationTable
from hermes_platform.resolver.kinds import BUILTIN_LOCATION_KINDS
from hermes_platform.resolver.locating import (
    AppLocation,
    Candidate,
    LocateContext,
    LocationKind,
)

__all__ = [
    "LOCATION_KINDS",
    "AppDef",
    "AppLocation",
    "Candidate",
    "LocateContext",
    "LocationKind",
    "LocationTrial",
    "Resolution",
    "locate",
]

LOCATION_KINDS: RegistrationTable[LocationKind] = RegistrationTable(
    "location kind", LocationKind, BUILTIN_LOCATION_KINDS
)
_MAX_CANDIDATES_PER_LOCATION = 256


@dataclass(frozen=True)
class AppDef:
    """How to find one app on one OS, as parsed from ``app.<os>``."""

    app_id: str
    os_family: str
    presence: str
    locations: tuple[AppLocation, ...]
    version_kind: str = "none"
    version_arg: str = ""
    liveness_kind: str = "none"
    liveness_path: str = ""
    liveness_pid_key: str = "pid"
    liveness_url_key: str = "http"
    liveness_token_key: str = "token"
    endpoint_path: str = "/mcp"


@dataclass(frozen=True)
class LocationTrial:
    """What one declared location produced (its candidates, or the locator's error)."""

    index: int
    location: AppLocation
    candidates: tuple[Candidate, ...]
    error: str | None = None


@dataclass(frozen=True)
class Resolution:
    """Every candidate looked at, in order; the first present one decides."""

    kind: str
    trials: tuple[LocationTrial, ...]

    @property
    def candidates(self) -> tuple[Candidate, ...]:
        return tuple(c for trial in self.trials for c in trial.candidates)

    @property
    def found(self) -> bool:
        return self.kind != "missing"

    @property
    def present(self) -> tuple[Candidate, ...]:
        return tuple(c for c in self.candidates if c.present)

    @property
    def command(self) -> tuple[str, ...]:
        present = self.present
        return (present[0].value,) if present else ()

    @property
    def source(self) -> str:
        present = self.present
        return present[0].source if present else "none"

    @property
    def looked_at(self) -> str | None:
        """The first present candidate's path, else the first candidate's, else ``None``."""
        present = self.present
        if present:
            return present[0].value
        candidates = self.candidates
        return candidates[0].value if candidates else None


def _path_candidates(ctx: LocateContext, raw: str) -> list[str]:
    expanded = ctx.expand(raw)
    if not ctx.is_absolute(expanded) or "%" in expanded or "$" in expanded:
        return [expanded]  # never resolved against the working directory
    if "*" not in expanded:
        return [expanded]
    return ctx.star(expanded) or [expanded]


def locate(app: AppDef, ctx: LocateContext | None = None) -> Resolution:
    """Find *app* on the host; never raises for anything the host returns."""
    if ctx is None:
        ctx = LocateContext(app.os_family)
    trials: list[LocationTrial] = []
    kind = "missing"
    for index, location in enumerate(app.locations):
        error: str | None = None
        if location.kind == "path":
            source, resolution, presence = f"app:{app.app_id}", "known_path", app.presence
            try:
                paths_found = _path_candidates(ctx, location.value)
            except Exception as exc:  # noqa: BLE001 - a misbehaving host must not break this
                paths_found, error = [], f"{type(exc).__name__}: {exc}"
        else:
            registered = LOCATION_KINDS.get(location.kind)
            source = f"app:{app.app_id}:{location.kind}"
            if registered is None:
                trials.append(LocationTrial(index, location, (), "location kind is not registered"))
                continue
            resolution = registered.resolution
            presence = registered.presence_for(app.os_family) or app.presence
            try:
                paths_found = []
                result = registered.locate(ctx, location)
                if result is None or isinstance(result, (str, bytes)):
                    what = type(result).__name__
                    raise TypeError(f"locator returned {what}, not an iterable of path strings")
                for found in result:
                    if not isinstance(found, str):
                        raise TypeError(f"locator returned {type(found).__name__}, not str")
                    paths_found.append(found)
                    if len(paths_found) >= _MAX_CANDIDATES_PER_LOCATION:
                        break
            except (Exception, SystemExit) as exc:  # noqa: BLE001 - a plugin's locator must not break this
                paths_found, error = [], f"{type(exc).__name__}: {exc}"
        candidates = []
        for path in paths_found:
            try:
                present = ctx.is_present(path, presence)
            except Exception:  # noqa: BLE001 - treat an unreadable path as absent
                present = False
            candidates.append(Candidate(path, source, present, index))
            if present and kind == "missing":
                kind = resolution
        trials.append(LocationTrial(index, location, tuple(candidates), error))
    return Resolution(kind, tuple(trials))
