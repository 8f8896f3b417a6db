"""A call interceptor's settings, checked when ``config.yaml`` is read (not at the first call).

An interceptor's settings are the top-level block of ``config.yaml`` named after it.  One with
a settings model (:attr:`CallInterceptor.settings`) has that block checked by the model like a
transport's or a sampling backend's (:func:`settings_shapes`).  One written before models
existed checks its settings in ``create`` by raising ``ValueError``: when such an interceptor is
selected and its block is present, :func:`check_created` calls ``create`` once while the file is
read, so a typo is a config error at the block's file and line on every command, never a
traceback at the first call.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel

from hermes_core.config.errors import ConfigError
from hermes_core.config.loader import LoadedConfig
from hermes_core.config.plugin_settings import SettingsShape
from hermes_core.host.calls.intercept.builtin import BUILTIN_INTERCEPTORS
from hermes_core.plugins.interceptors import CallInterceptor, InterceptorSetup

__all__ = [
    "BUILTIN_BLOCKS",
    "check_created",
    "is_builtin",
    "selected",
    "settings_shapes",
    "validated",
]

_BUILTIN_CREATES = {id(spec.create) for spec in BUILTIN_INTERCEPTORS}
#: The names of Hermes' own interceptors, whose blocks (``audit:``, ``results:``) Hermes' own
#: config models check.
BUILTIN_BLOCKS = frozenset(spec.name for spec in BUILTIN_INTERCEPTORS)


def is_builtin(spec: CallInterceptor) -> bool:
    """Whether *spec* is one of Hermes' own (their blocks are Hermes' own config models)."""
    return id(spec.create) in _BUILTIN_CREATES


def settings_shapes(specs: Mapping[str, CallInterceptor]) -> dict[str, SettingsShape]:
    """Interceptor name → the shape of its settings model, for those that carry one."""
    return {
        name: SettingsShape.of_model(spec.settings)
        for name, spec in specs.items()
        if isinstance(spec.settings, type) and issubclass(spec.settings, BaseModel)
    }


def validated(spec: CallInterceptor, block: Mapping[str, object]) -> object:
    """*block* validated by *spec*'s settings model (checked already when the file was read),
    or ``None`` when it carries none."""
    return None if spec.settings is None else spec.settings.model_validate(dict(block))


def selected(loaded: LoadedConfig) -> list[str]:
    """The interceptors ``config.yaml`` selects, host-wide and per server, each once."""
    names = dict.fromkeys(loaded.config.interceptors)
    for cfg in loaded.config.mcp_servers.values():
        names.update(dict.fromkeys(cfg.interceptors))
    return list(names)


def check_created(loaded: LoadedConfig, specs: Mapping[str, CallInterceptor], home: Path) -> None:
    """Call ``create`` of each selected plugin interceptor that has no settings model and whose
    settings block is present; a ``ValueError`` is a :class:`ConfigError` at the block's line.
    What ``create`` made is closed again (the host makes its own at its first call)."""
    tree = loaded.tree
    blocks = tree if isinstance(tree, Mapping) else {}
    for name in selected(loaded):
        spec = specs.get(name)
        block = blocks.get(name)
        if spec is None or spec.create is None or spec.settings is not None or is_builtin(spec):
            continue
        if not isinstance(block, Mapping):
            continue
        try:
            made = spec.create(InterceptorSetup(home, dict(block)))
        except ValueError as exc:
            raise ConfigError(
                f"interceptor {name!r} refused its settings: {exc}",
                path=str(loaded.path),
                line=loaded.line_of(name),
                key=name,
            ) from None
        closer = getattr(made, "close", None)
        if callable(closer):
            with contextlib.suppress(Exception):
                closer()
