"""The ``hermes.plugins`` entry point: three ``messaging_platform`` contributions.

The adapters (and pydantic) are imported only when ``hermes mcp serve`` builds one, so this
plugin costs nothing to commands that never send.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import MessagingAdapter, MessagingPlatform

__all__ = ["messaging_platform"]


def create_slack(name: str, settings: Mapping[str, Any]) -> MessagingAdapter:
    from hermes_webhooks.adapters import SlackWebhook

    return SlackWebhook(name, settings)


def create_discord(name: str, settings: Mapping[str, Any]) -> MessagingAdapter:
    from hermes_webhooks.adapters import DiscordWebhook

    return DiscordWebhook(name, settings)


def create_json(name: str, settings: Mapping[str, Any]) -> MessagingAdapter:
    from hermes_webhooks.adapters import JsonWebhook

    return JsonWebhook(name, settings)


@hookimpl
def messaging_platform() -> Iterable[MessagingPlatform]:
    return [
        MessagingPlatform("slack_webhook", create_slack, "Slack incoming webhooks"),
        MessagingPlatform("discord_webhook", create_discord, "Discord channel webhooks"),
        MessagingPlatform("json_webhook", create_json, "any endpoint that takes a JSON POST"),
    ]
