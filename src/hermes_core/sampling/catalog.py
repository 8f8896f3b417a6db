"""Which models the installed backends offer, and which one answers a server's request.

* A server gets sampling only when a model resolves: ``sampling.model`` (an ID or alias a
  backend lists), or, without it, the ``allowed_models`` the backends offer.  Otherwise the
  capability is not advertised and :meth:`ModelCatalog.plan` says why.
* Per request: ``model`` wins; without it the server's ``modelPreferences`` hints are
  matched in order (case-insensitive substrings of an ID or alias, as the spec suggests)
  against ``allowed_models``; no hint fitting an allowed model refuses the request
  (``model_not_allowed``); no hints take the first allowed model.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hermes_core.sampling.backend import ModelInfo
from hermes_core.sampling.settings import NO_BACKEND, SamplingSettings, unplannable

if TYPE_CHECKING:
    from hermes_core.plugins.types import SamplingProvider

__all__ = ["NO_BACKEND", "ModelCatalog", "OfferedModel", "SamplingPlan"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OfferedModel:
    """A model and the backend that runs it."""

    backend: str
    info: ModelInfo

    @property
    def id(self) -> str:
        return self.info.id


@dataclass(frozen=True)
class SamplingPlan:
    """What a server's sampling can use: the fixed model, or the allowed ones (in order)."""

    model: OfferedModel | None
    allowed: tuple[OfferedModel, ...]


class ModelCatalog:
    """The models of every backend, listed once (see :meth:`load`)."""

    def __init__(
        self,
        providers: Mapping[str, SamplingProvider],
        listed: Mapping[str, Sequence[ModelInfo]],
        problems: Mapping[str, str] | None = None,
    ) -> None:
        self.providers = dict(providers)
        self.listed = {name: tuple(models) for name, models in listed.items()}
        self.problems = dict(problems or {})

    @classmethod
    def load(cls, providers: Mapping[str, SamplingProvider]) -> ModelCatalog:
        """Ask every backend for its models; one that raises is kept with its problem."""
        listed: dict[str, Sequence[ModelInfo]] = {}
        problems: dict[str, str] = {}
        for name, provider in providers.items():
            try:
                models = [m for m in provider.models() if isinstance(m, ModelInfo)]
            except Exception as exc:  # noqa: BLE001 - a broken backend must not stop the host
                problems[name] = f"listing its models failed: {type(exc).__name__}: {exc}"
                log.warning("sampling backend '%s': %s", name, problems[name])
                models = []
            listed[name] = models
        return cls(providers, listed, problems)

    def models(self, backend: str | None = None) -> list[OfferedModel]:
        return [
            OfferedModel(name, info)
            for name, infos in self.listed.items()
            if backend is None or name == backend
            for info in infos
        ]

    def find(self, name: str, backend: str | None = None) -> OfferedModel | None:
        """The model called *name* (an ID or alias, case-insensitive), first backend first."""
        wanted = name.lower()
        for offered in self.models(backend):
            if any(n.lower() == wanted for n in offered.info.names):
                return offered
        return None

    def plan(self, settings: SamplingSettings) -> SamplingPlan | str:
        """The models *settings* can use, or why sampling cannot be offered."""
        unusable = unplannable(settings, self.providers)
        if unusable is not None:
            return unusable
        where = settings.backend
        backends = where or ", ".join(self.providers)
        allowed: list[OfferedModel] = []
        for name in settings.allowed_models:
            found = self.find(name, where)
            if found is not None and found not in allowed:
                allowed.append(found)
        if settings.model is not None:
            model = self.find(settings.model, where)
            if model is None:
                return (
                    f"model {settings.model!r} is not offered by {backends} "
                    "(`hermes mcp sampling models` lists them)"
                )
            if settings.allowed_models and model not in allowed:
                return f"model {settings.model!r} is not in sampling.allowed_models"
            return SamplingPlan(model, tuple(allowed))
        if not allowed:
            return (
                f"none of sampling.allowed_models is offered by {backends} "
                "(`hermes mcp sampling models` lists them)"
            )
        return SamplingPlan(None, tuple(allowed))

    @staticmethod
    def pick(plan: SamplingPlan, hints: Sequence[str]) -> OfferedModel | str:
        """The model for one request, or the hint that names no allowed model."""
        if plan.model is not None:
            return plan.model
        for hint in hints:
            wanted = hint.lower()
            for offered in plan.allowed:
                if any(wanted in name.lower() for name in offered.info.names):
                    return offered
        if hints:
            return hints[0]
        return plan.allowed[0]
