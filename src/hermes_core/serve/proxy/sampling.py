"""An upstream server's ``sampling/createMessage`` behind ``hermes mcp proxy``.

The proxy's host is built with a :class:`DownstreamSampler` (a
:class:`~hermes_core.sampling.route.SamplingRouter`), so every upstream server is
offered sampling.  A request goes to the downstream client whose call to that server is in
flight (the latest one, when several are; :class:`~.downstream.DownstreamElicitor` keeps
them) when that client declared the ``sampling`` capability: it is the downstream client's
model, and its user reviews the request there.  Otherwise the host's own handler answers it,
with its limits (``sampling:`` in config.yaml, :mod:`hermes_core.sampling.handler`); with
neither, the request is refused with a reason.

A forwarded request keeps the host's bounds: at most ``sampling.max_rpm`` a minute per server,
``maxTokens`` cut to ``sampling.max_tokens_cap``, every string the server wrote cleaned of
control and invisible characters before the downstream client sees it, and no answer after
``elicitation.timeout``'s default (a person may be reviewing it) refuses it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, TypeAlias

import mcp_types as types

from hermes_core.offers.elicitation import DEFAULT_TIMEOUT
from hermes_core.sampling.limiter import SlidingWindowLimiter
from hermes_core.sanitize import sanitize_value
from hermes_core.serve.proxy.downstream import DownstreamElicitor, Sampler

if TYPE_CHECKING:
    from mcp.client.session import ClientRequestContext

    from hermes_core.sampling.handler import SamplingHandler
    from hermes_core.sampling.settings import SamplingSettings

__all__ = ["DownstreamSampler", "ForwardedSampling"]

log = logging.getLogger(__name__)
#: The code of a refused request (the host's own handler refuses with the same).
REFUSED = -1
_Answer: TypeAlias = (
    "types.CreateMessageResult | types.CreateMessageResultWithTools | types.ErrorData"
)


class ForwardedSampling:
    """One upstream server's sampling callback (see the module's docstring)."""

    def __init__(
        self,
        server: str,
        own: SamplingHandler | None,
        settings: SamplingSettings,
        callers: DownstreamElicitor,
    ) -> None:
        self.server = server
        self.own = own
        self.settings = settings
        self.callers = callers
        self.limiter = SlidingWindowLimiter(settings.max_rpm, 60.0)

    def __repr__(self) -> str:
        return f"ForwardedSampling({self.server!r})"

    async def __call__(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> _Answer:
        target = self.callers.caller_for(self.server)
        if isinstance(target, Sampler) and target.can_sample:
            return await self._forward(target, params)
        if self.own is not None:
            answer: _Answer = await self.own(context, params)
            return answer
        why = "no downstream caller" if target is None else "the downstream client cannot sample"
        log.info("MCP server '%s': sampling request refused (%s)", self.server, why)
        return self._refused(
            "unavailable",
            f"sampling is not available to server '{self.server}': {why}, and this host has "
            "no sampling model configured",
        )

    async def _forward(self, target: Sampler, params: types.CreateMessageRequestParams) -> _Answer:
        if not self.limiter.acquire():
            wait = self.limiter.retry_after()
            return self._refused(
                "rate_limited",
                f"Sampling rate limit exceeded for server '{self.server}' "
                f"({self.settings.max_rpm} requests per minute; try again in {wait:.0f} s)",
            )
        data = sanitize_value(params.model_dump(by_alias=True, mode="json", exclude_none=True))
        data["maxTokens"] = max(1, min(int(data.get("maxTokens", 1)), self.settings.max_tokens_cap))
        try:
            request = types.CreateMessageRequestParams.model_validate(data)
            return await target.sample(request, DEFAULT_TIMEOUT)
        except Exception as exc:  # noqa: BLE001 - the upstream server gets the reason
            log.info("MCP server '%s': forwarded sampling failed: %s", self.server, exc)
            return self._refused(
                "error", f"the downstream client did not answer the sampling request: {exc}"
            )

    def _refused(self, reason: str, message: str) -> types.ErrorData:
        """The refusal the host's own handler would give: *reason* in its data."""
        return types.ErrorData(
            code=REFUSED, message=message, data={"reason": reason, "server": self.server}
        )


class DownstreamSampler:
    """The proxy's sampling router: each server's :class:`ForwardedSampling`."""

    def __init__(self, callers: DownstreamElicitor) -> None:
        self.callers = callers

    def callback(
        self, server: str, own: SamplingHandler | None, settings: SamplingSettings
    ) -> ForwardedSampling:
        return ForwardedSampling(server, own, settings, self.callers)
