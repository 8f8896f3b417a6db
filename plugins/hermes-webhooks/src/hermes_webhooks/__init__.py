"""Hermes messaging adapters for incoming webhooks: Slack, Discord and any JSON endpoint."""

__version__ = "0.1.0"
