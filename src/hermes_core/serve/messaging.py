"""``messaging:`` in ``config.yaml``: the adapters ``hermes mcp serve`` sends through.

Each entry names a registered ``messaging_platform`` (``adapter:``) and holds its settings;
the entry's key is the platform of ``platform:chat_id`` targets::

    messaging:
      slack:
        adapter: slack_webhook
        channels:
          general: ${SLACK_GENERAL_WEBHOOK}

Every string in the settings has ``${VAR}`` expanded (environment first, then
``$HERMES_HOME/.env``).  Problems are :class:`ConfigError` at the file and line: an unknown
adapter (listing the registered ones), an unset variable, settings the adapter rejects.
"""

from __future__ import annotations

import http.client
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import ValidationError

if TYPE_CHECKING:
    from pydantic_core import ErrorDetails

from hermes_core.config.interpolate import expand, load_dotenv
from hermes_core.config.loader import LoadedConfig
from hermes_core.config.models import ConfigError, kind_of
from hermes_core.plugins.types import (
    MessagingAdapter,
    MessagingChannel,
    MessagingPlatform,
    SendReceipt,
)
from hermes_core.yaml_lines import line_of, plain

__all__ = [
    "INSTALL_HINT",
    "ConfiguredPlatform",
    "Messaging",
    "SendError",
    "load_messaging",
    "prefixed",
    "split_target",
]

PLATFORM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
INSTALL_HINT = (
    "install a messaging plugin (for incoming webhooks to Slack, Discord or any JSON "
    "endpoint: pip install hermes-webhooks) and add a `messaging:` entry to {config} "
    "(see docs/mcp-serve.md)"
)


class SendError(Exception):
    """A message that was not sent; the text says why and what to do."""


@dataclass(frozen=True)
class ConfiguredPlatform:
    """One ``messaging.<name>`` entry, its adapter built."""

    name: str
    adapter_name: str
    adapter: MessagingAdapter = field(repr=False)


def split_target(target: str) -> tuple[str, str]:
    """``"telegram:123456"`` → ``("telegram", "123456")``; ``ValueError`` when malformed."""
    platform, sep, chat_id = target.strip().partition(":")
    if not sep or not platform or not chat_id:
        raise ValueError(
            f"target must look like platform:chat_id (e.g. slack:general), got {target!r}"
        )
    return platform, chat_id


@dataclass
class Messaging:
    """The configured platforms, by the name used in targets."""

    platforms: dict[str, ConfiguredPlatform]
    registered: tuple[str, ...] = ()
    config_path: str = "config.yaml"

    def channels(self, platform: str | None = None) -> list[tuple[str, MessagingChannel]]:
        found: list[tuple[str, MessagingChannel]] = []
        for name, configured in self.platforms.items():
            if platform and name.lower() != platform.lower():
                continue
            found.extend((name, channel) for channel in configured.adapter.channels())
        return found

    def send(self, target: str, text: str) -> tuple[str, str, SendReceipt]:
        """Deliver *text*; ``SendError`` says exactly why not (no adapter, unknown platform,
        unknown chat, delivery failed).  Blocking: call from a worker thread."""
        try:
            platform, chat_id = split_target(target)
        except ValueError as exc:
            raise SendError(str(exc)) from None
        if not self.platforms:
            if self.registered:
                how = (
                    f"add a `messaging:` entry to {self.config_path} with one of the registered "
                    f"adapters ({', '.join(self.registered)}); see docs/mcp-serve.md"
                )
            else:
                how = INSTALL_HINT.format(config=self.config_path)
            raise SendError(f"No messaging platform is configured, so nothing can be sent: {how}")
        configured = self.platforms.get(platform) or next(
            (p for n, p in self.platforms.items() if n.lower() == platform.lower()), None
        )
        if configured is None:
            known = ", ".join(sorted(self.platforms))
            adapters = ", ".join(self.registered) or "none"
            raise SendError(
                f"No messaging platform named {platform!r} in {self.config_path} "
                f"(configured: {known}); add a `messaging.{platform}:` entry with one of the "
                f"registered adapters ({adapters})"
            )
        try:
            receipt = configured.adapter.send(chat_id, text)
        except ValueError as exc:
            raise SendError(prefixed(configured.name, exc)) from None
        except OSError as exc:
            raise SendError(f"Send failed: {prefixed(configured.name, exc)}") from None
        except http.client.HTTPException as exc:  # (BadStatusLine: not an OSError)
            raise SendError(
                f"Send failed: {configured.name}: the platform's answer was not HTTP "
                f"({type(exc).__name__}); the message may have been delivered"
            ) from None
        except Exception as exc:  # noqa: BLE001 - an adapter's own failure: one line, no traceback
            failure = f"{type(exc).__name__}: {exc}"
            raise SendError(f"Send failed: {prefixed(configured.name, failure)}"[:500]) from None
        return configured.name, chat_id, receipt


def prefixed(name: str, exc: BaseException | str) -> str:
    """``<name>: <message>``, once: an adapter whose message already names it is not
    prefixed again (never ``acme: acme: …``)."""
    text = exc if isinstance(exc, str) else (str(exc) or type(exc).__name__)
    return text if text.startswith(f"{name}:") else f"{name}: {text}"


def load_messaging(
    loaded: LoadedConfig,
    registered: Mapping[str, MessagingPlatform],
    *,
    env: Mapping[str, str] | None = None,
    dotenv: Mapping[str, str] | None = None,
) -> Messaging:
    """Build every adapter of ``messaging:``; :class:`ConfigError` for the first problem."""
    label = str(loaded.path)
    tree = loaded.tree
    names = tuple(sorted(registered))
    node = tree.get("messaging") if isinstance(tree, Mapping) else None
    messaging = Messaging({}, names, label)
    if node is None:
        return messaging

    def fail(key: str, reason: str) -> ConfigError:
        return ConfigError(reason, path=label, line=line_of(tree, key), key=key)

    if not isinstance(node, Mapping):
        raise fail(
            "messaging",
            f"must be a mapping of platform names to their adapter settings "
            f"(got {kind_of(plain(node))})",
        )
    environ = os.environ if env is None else env
    values = load_dotenv() if dotenv is None else dotenv
    for name, entry in node.items():
        key = f"messaging.{name}"
        if not isinstance(name, str) or not PLATFORM_NAME.fullmatch(name):
            raise fail(
                key,
                "platform names start with a letter or digit and use only letters, digits, "
                "'_' and '-' (they are the part before ':' in targets)",
            )
        if not isinstance(entry, Mapping):
            raise fail(key, f"must be a mapping with adapter: (got {kind_of(plain(entry))})")
        raw = plain(entry)
        adapter_name = raw.pop("adapter", None)
        if adapter_name is None:
            raise fail(key, f"adapter: is required (registered adapters: {_listing(names)})")
        if not isinstance(adapter_name, str) or adapter_name not in registered:
            raise fail(
                f"{key}.adapter",
                f"unknown adapter {str(adapter_name)!r}; registered adapters: {_listing(names)}",
            )

        def expanded(value: object, where: str) -> object:
            if isinstance(value, str):
                try:
                    return expand(value, env=environ, dotenv=values)
                except ValueError as exc:
                    raise fail(where, str(exc)) from None
            if isinstance(value, dict):
                return {k: expanded(v, f"{where}.{k}") for k, v in value.items()}
            if isinstance(value, list):
                return [expanded(v, f"{where}[{i}]") for i, v in enumerate(value)]
            return value

        settings = {k: expanded(v, f"{key}.{k}") for k, v in raw.items()}
        try:
            adapter = registered[adapter_name].create(name, settings)
        except ValidationError as exc:
            first = exc.errors(include_url=False, include_input=False)[0]
            sub = "".join(
                f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"]
            )
            raise fail(key + sub, _sentence(first)) from None
        except (ValueError, TypeError) as exc:
            raise fail(key, prefixed(adapter_name, exc)) from None
        messaging.platforms[name] = ConfiguredPlatform(name, adapter_name, adapter)
    return messaging


def _listing(names: tuple[str, ...]) -> str:
    return ", ".join(names) if names else "none (pip install hermes-webhooks for webhook adapters)"


def _sentence(error: ErrorDetails) -> str:
    kind = str(error.get("type", ""))
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "is not a setting of this adapter"
    message = str(error.get("msg", "is not valid"))
    return message.removeprefix("Value error, ")
