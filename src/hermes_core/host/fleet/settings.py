"""The fleet's bus as a replica uses it: ``bus.url`` of ``config.yaml`` (checked when the
config is read, :mod:`hermes_core.config.bus`) with its ``${VAR}`` expanded from the
environment, then ``$HERMES_HOME/.env``.  :class:`BusSettings` holds the expanded URL; its
``repr`` and :attr:`~BusSettings.shown` never carry the password."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from hermes_core.config.errors import ConfigError
from hermes_core.config.interpolate import expand, load_dotenv
from hermes_core.config.loader import LoadedConfig

__all__ = ["BusSettings", "load_bus_settings"]


@dataclass(frozen=True)
class BusSettings:
    """The bus's expanded URL (secret: never printed) and what may be shown of it."""

    url: str = field(repr=False)
    shown: str

    def __repr__(self) -> str:
        return f"BusSettings({self.shown})"

    @property
    def tls(self) -> bool:
        return self.url.startswith("rediss://")


def load_bus_settings(loaded: LoadedConfig) -> BusSettings | None:
    """``bus:`` of *loaded* (``None``: absent); a ``${VAR}`` that is not set is a
    :class:`ConfigError` naming the file, the key and the variable, never a value."""
    bus = loaded.config.bus
    if bus is None:
        return None
    try:
        url = expand(bus.url, env=os.environ, dotenv=load_dotenv())
    except ValueError as exc:
        line = loaded.line_of("bus.url")
        raise ConfigError(str(exc), path=str(loaded.path), line=line, key="bus.url") from None
    return BusSettings(url, bus.shown())
