"""The ``sampling_backends:`` block of ``config.yaml``: each backend's settings, handed to it.

A sampling backend may carry a settings model (``SamplingProvider.settings``); its block,
``sampling_backends.<name>``, is checked when the file is read
(:func:`hermes_core.config.loader.check_backend_settings`).  Here, when a host is built, every
``${VAR}`` in the block is expanded (environment, then ``$HERMES_HOME/.env``), the model
validates it once more, and the backend's ``complete`` gets it in ``request.settings``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping

from hermes_core.config.errors import ConfigError
from hermes_core.config.interpolate import expand, load_dotenv
from hermes_core.config.loader import LoadedConfig
from hermes_core.plugins.sampling_backend import Completion, CompletionRequest
from hermes_core.plugins.types import SamplingProvider
from hermes_core.yaml_lines import plain

__all__ = ["with_backend_settings"]


def with_backend_settings(
    providers: Mapping[str, SamplingProvider],
    loaded: LoadedConfig,
    *,
    env: Mapping[str, str] | None = None,
) -> dict[str, SamplingProvider]:
    """*providers*, those with a ``sampling_backends.<name>`` block in *loaded* bound to it."""
    tree = loaded.tree
    block = tree.get("sampling_backends") if isinstance(tree, Mapping) else None
    bound = dict(providers)
    if not isinstance(block, Mapping):
        return bound
    environ = os.environ if env is None else env
    dotenv = load_dotenv()
    for name, raw in block.items():
        provider = providers.get(str(name))
        if provider is None or not isinstance(raw, Mapping):
            continue  # reported when the file was read
        key = f"sampling_backends.{name}"

        def fail(where: str, reason: str, key: str = key) -> ConfigError:
            path = f"{key}.{where}" if where else key
            return ConfigError(reason, path=str(loaded.path), line=loaded.line_of(path), key=path)

        def expanded(value: object, where: str) -> object:
            if isinstance(value, str):
                try:
                    return expand(value, env=environ, dotenv=dotenv)
                except ValueError as exc:
                    raise fail(where, str(exc)) from None
            if isinstance(value, dict):
                return {k: expanded(v, f"{where}.{k}".lstrip(".")) for k, v in value.items()}
            if isinstance(value, list):
                return [expanded(v, f"{where}[{i}]") for i, v in enumerate(value)]
            return value

        settings = expanded(plain(raw), "")
        if provider.settings is not None:
            try:
                settings = provider.settings.model_validate(settings)
            except ValueError as exc:  # a pydantic ValidationError is one
                raise fail("", f"{name}: {_first_error(exc)}") from None
        bound[str(name)] = dataclasses.replace(provider, complete=_Bound(provider, settings))
    return bound


class _Bound:
    """A backend's ``complete`` that passes its settings in ``request.settings``."""

    def __init__(self, provider: SamplingProvider, settings: object) -> None:
        self._complete = provider.complete
        self._settings = settings

    async def __call__(self, request: CompletionRequest) -> Completion:
        return await self._complete(dataclasses.replace(request, settings=self._settings))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._complete!r})"  # never the settings


def _first_error(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        found = errors(include_input=False, include_url=False)
        if found:
            first = found[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            return f"{where}: {first.get('msg', 'invalid')}" if where else str(first.get("msg"))
    return str(exc)
