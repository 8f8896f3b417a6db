"""What the host offers each server as a client: answering its questions (elicitation) and
sampling an LLM for it; the handlers are made per server and kept while its settings hold."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from hermes_core.host.optional import model_catalog_class, sampling_handler_class
from hermes_core.host.server_spec import HostServer
from hermes_core.json_types import JsonObject
from hermes_core.offers.elicitation import ElicitationHandler, Elicitor
from hermes_core.sampling.route import SamplingRouter
from hermes_core.sampling.settings import unplannable

if TYPE_CHECKING:
    from mcp.client.session import SamplingFnT
    from mcp.types import SamplingCapability

    from hermes_core.plugins.types import SamplingProvider
    from hermes_core.sampling.catalog import ModelCatalog, SamplingPlan
    from hermes_core.sampling.handler import SamplingHandler

__all__ = ["ClientOffers"]


class ClientOffers:
    """The elicitation and sampling handlers of every server, and their status."""

    def __init__(
        self,
        elicitor: Elicitor | None,
        sampling_providers: Mapping[str, SamplingProvider] | None = None,
        sampling_clock: Callable[[], float] = time.monotonic,
        sampling_router: SamplingRouter | None = None,
    ) -> None:
        self.elicitor = elicitor
        self.sampling_router = sampling_router
        self.sampling_providers = dict(sampling_providers or {})
        self._catalog: ModelCatalog | None = None
        self._catalog_lock = asyncio.Lock()
        self._samplings: dict[str, SamplingHandler] = {}
        self._sampling_why: dict[str, str] = {}
        self._sampling_clock = sampling_clock
        self._elicitations: dict[str, ElicitationHandler] = {}

    # -- elicitation -------------------------------------------------------------------
    def elicitation_handler(self, name: str, server: HostServer) -> ElicitationHandler | None:
        """The server's ``elicitation/create`` handler (``None``: the host cannot ask)."""
        if self.elicitor is None or not server.elicitation.enabled:
            return None
        handler = self._elicitations.get(name)
        if handler is None or handler.settings != server.elicitation:
            handler = ElicitationHandler(name, self.elicitor, server.elicitation)
            self._elicitations[name] = handler
        return handler

    def elicitation_counters(self, name: str) -> dict[str, int] | None:
        handler = self._elicitations.get(name)
        return dataclasses.asdict(handler.counters) if handler is not None else None

    # -- sampling ------------------------------------------------------------------------
    async def sampling_catalog(self) -> ModelCatalog:
        """The models the sampling backends offer, listed once (in a worker thread)."""
        async with self._catalog_lock:
            if self._catalog is None:
                providers = self.sampling_providers
                catalog = model_catalog_class()
                self._catalog = (
                    await asyncio.to_thread(catalog.load, providers)
                    if providers
                    else catalog({}, {})
                )
            return self._catalog

    async def sampling_handler(self, name: str, server: HostServer) -> SamplingHandler | None:
        """The server's sampling handler, or None (and why, for :meth:`sampling_status`)."""
        settings = server.sampling
        self._sampling_why.pop(name, None)
        # Without a model configured, the backends' models are never listed (nor imported).
        plan: SamplingPlan | str | None = unplannable(settings, self.sampling_providers)
        if plan is None:
            plan = (await self.sampling_catalog()).plan(settings)
        if isinstance(plan, str):
            self._samplings.pop(name, None)
            self._sampling_why[name] = plan
            return None
        if settings.approval == "ask" and not _can_ask(self.elicitor):
            self._samplings.pop(name, None)
            self._sampling_why[name] = "approval: ask, but this host has no way to ask the user"
            return None
        handler = self._samplings.get(name)
        if handler is None or handler.settings != settings or handler.plan != plan:
            handler = sampling_handler_class()(
                name,
                settings,
                await self.sampling_catalog(),
                plan,
                approver=self.elicitor,
                approval_timeout=server.elicitation.timeout,
                clock=self._sampling_clock,
            )
            self._samplings[name] = handler
        return handler

    def sampling_callback(
        self, name: str, server: HostServer, own: SamplingHandler | None
    ) -> tuple[SamplingFnT | None, SamplingCapability | None]:
        """The server's sampling callback and the capability advertised with it: the host's
        own handler, or what the router makes of it (see :mod:`hermes_core.sampling.route`);
        ``(None, None)``: no sampling offered."""
        if self.sampling_router is None or not server.sampling.enabled:
            return own, own.capabilities if own is not None else None
        from mcp import types

        capabilities = own.capabilities if own is not None else types.SamplingCapability()
        return self.sampling_router.callback(name, own, server.sampling), capabilities

    def sampling_status(self, name: str) -> JsonObject | None:
        handler = self._samplings.get(name)
        if handler is not None:
            plan = handler.plan
            return {
                "offered": True,
                "reason": None,
                "model": plan.model.id if plan.model is not None else None,
                "backend": plan.model.backend if plan.model is not None else None,
                "allowed_models": [m.id for m in plan.allowed],
                **dataclasses.asdict(handler.counters),
            }
        if name in self._sampling_why:
            return {"offered": False, "reason": self._sampling_why[name]}
        return None


def _can_ask(elicitor: object) -> bool:
    """Whether *elicitor* can put a question to a person: a host without one cannot, nor
    one whose elicitor says it cannot (``can_ask`` false: a terminal elicitor without a
    terminal), so sampling that needs an approval is not offered, as ``status`` says."""
    return elicitor is not None and bool(getattr(elicitor, "can_ask", True))
