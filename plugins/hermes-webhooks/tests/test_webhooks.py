"""The webhook adapters against a local HTTP receiver: directly, from config.yaml, and through a
real ``hermes mcp serve`` loaded with this plugin's entry point."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import hermes_webhooks.plugin
import importlib_metadata
import pytest
from hermes_webhooks.adapters import DiscordWebhook, JsonWebhook, SlackWebhook

from hermes_core.config.loader import parse_config_text
from hermes_core.config.models import ConfigError
from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.serve.messaging import load_messaging
from hermes_core.testing import check_plugin
from support.cli import run_hermes
from support.serve import sdk_session, structured

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.network]


class Receiver:
    """Records every POST; answers by path (``/fail`` gets 500)."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.arrived = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                receiver.received.append(
                    {"path": self.path, "body": body, "headers": dict(self.headers)}
                )
                receiver.arrived.set()
                if self.path.startswith("/fail"):
                    self.send_response(500, "Exploded")
                    self.end_headers()
                    return
                answer = b"ok"
                if self.path.startswith("/discord"):
                    answer = b'{"id": "987654321"}'
                elif self.path.startswith("/json"):
                    answer = b'{"message_id": "m-1"}'
                self.send_response(200)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.close()


def test_the_plugin_contributes_three_messaging_platforms() -> None:
    names = [p.name for p in check_plugin(hermes_webhooks.plugin, "webhooks")["messaging_platform"]]
    assert names == ["slack_webhook", "discord_webhook", "json_webhook"]
    (entry,) = importlib_metadata.entry_points(group="hermes.plugins", name="webhooks")
    assert entry.load() is hermes_webhooks.plugin


def test_each_adapter_posts_its_platform_s_payload(receiver: Receiver) -> None:
    slack = SlackWebhook("slack", {"channels": {"general": receiver.url + "/slack/T1/B2/secret"}})
    assert slack.send("general", "hello").detail == "HTTP 200"
    discord = DiscordWebhook(
        "discord", {"channels": {"#general": receiver.url + "/discord/1/tok"}, "username": "H"}
    )
    assert discord.send("#general", "@everyone look").message_id == "987654321"
    hook = JsonWebhook(
        "ops",
        {
            "channels": {
                "deploys": {
                    "url": receiver.url + "/json",
                    "headers": {"Authorization": "Bearer s3cret"},
                    "description": "deploy notes",
                }
            }
        },
    )
    assert [(c.chat_id, c.description) for c in hook.channels()] == [("deploys", "deploy notes")]
    assert hook.send("deploys", "shipped").message_id == "m-1"
    slack_post, discord_post, json_post = receiver.received
    assert slack_post["body"] == {"text": "hello"}
    assert discord_post["path"] == "/discord/1/tok?wait=true"
    assert discord_post["body"] == {
        "content": "@everyone look",
        "allowed_mentions": {"parse": []},
        "username": "H",
    }
    assert json_post["headers"]["Authorization"] == "Bearer s3cret"
    body = json_post["body"]
    assert (body["target"], body["platform"], body["chat_id"], body["text"]) == (
        "ops:deploys",
        "ops",
        "deploys",
        "shipped",
    )
    with pytest.raises(ValueError, match="at most 2000 characters"):
        discord.send("#general", "x" * 2001)
    with pytest.raises(ValueError, match=r"no channel 'random' \(configured: general\)"):
        slack.send("random", "x")


def test_a_failed_delivery_names_the_status_but_not_the_url(receiver: Receiver) -> None:
    slack = SlackWebhook("slack", {"channels": {"general": receiver.url + "/fail/T1/secret"}})
    with pytest.raises(OSError) as caught:
        slack.send("general", "x")
    assert str(caught.value) == "the Slack webhook answered HTTP 500 Exploded"
    assert "secret" not in repr(slack) and "secret" not in repr(slack.settings)


@pytest.mark.parametrize(
    ("entry", "line", "message"),
    [
        (
            "    channels:\n      general: http://hooks.example.com/T1/secret\n",
            5,
            "messaging.slack.channels.general.url: must use https (plain http is allowed "
            "only for loopback addresses)",
        ),
        ("    username: Hermes\n", 2, "messaging.slack.channels: is required"),
        (
            "    channels: {general: 'https://h.example/x'}\n    chanels: {}\n",
            5,
            "messaging.slack.chanels: is not a setting of this adapter",
        ),
        (
            "    channels: {general: 'https://h.example/x'}\n    timeout: 0\n",
            5,
            "messaging.slack.timeout: must be more than 0 and at most 120 seconds",
        ),
        (
            "    channels:\n      general: ${MISSING_HOOK}\n",
            5,
            "messaging.slack.channels.general: ${MISSING_HOOK} is not set",
        ),
    ],
)
def test_bad_settings_are_reported_at_their_line(
    hermes_pm: HermesPluginManager, entry: str, line: int, message: str
) -> None:
    hermes_pm.register_plugin(hermes_webhooks.plugin, "webhooks")
    text = "messaging:\n  slack:\n    adapter: slack_webhook\n" + entry
    loaded = parse_config_text(text, "config.yaml")
    with pytest.raises(ConfigError) as caught:
        load_messaging(loaded, hermes_pm.messaging_platforms(), env={}, dotenv={})
    assert str(caught.value).startswith(f"config.yaml:{line}: {message}")
    assert "secret" not in str(caught.value)


def test_hermes_mcp_serve_sends_through_the_configured_webhooks(
    tmp_path: Path, receiver: Receiver
) -> None:
    (tmp_path / ".env").write_text(
        f"SLACK_GENERAL={receiver.url}/slack/T1/B2/secret\nOPS_TOKEN=t0ken\n"
    )
    (tmp_path / "config.yaml").write_text(
        "# where Hermes may post\n"
        "messaging:\n"
        "  slack:\n"
        "    adapter: slack_webhook\n"
        "    channels:\n"
        "      general: ${SLACK_GENERAL}\n"
        f"      broken: {receiver.url}/fail/secret\n"
        "  discord:\n"
        "    adapter: discord_webhook\n"
        "    channels:\n"
        f"      '#general': {receiver.url}/discord/1/tok\n"
        "  ops:\n"
        "    adapter: json_webhook\n"
        "    channels:\n"
        "      deploys:\n"
        f"        url: {receiver.url}/json\n"
        "        headers: {Authorization: 'Bearer ${OPS_TOKEN}'}\n"
    )

    async def scenario() -> None:
        async with sdk_session(tmp_path) as session:
            channels = structured(await session.call_tool("channels_list", {}))
            assert [(c["target"], c["sendable"]) for c in channels["channels"]] == [
                ("slack:general", True),
                ("slack:broken", True),
                ("discord:#general", True),
                ("ops:deploys", True),
            ]
            assert channels["note"] == ""
            sent = structured(
                await session.call_tool(
                    "messages_send", {"target": "slack:general", "message": "Deployed 2.4"}
                )
            )
            assert (sent["sent"], sent["target"], sent["detail"]) == (
                True,
                "slack:general",
                "HTTP 200",
            )
            sent = structured(
                await session.call_tool(
                    "messages_send", {"target": "discord:#general", "message": "hi"}
                )
            )
            assert sent["message_id"] == "987654321"
            sent = structured(
                await session.call_tool(
                    "messages_send", {"target": "ops:deploys", "message": "shipped"}
                )
            )
            assert sent["message_id"] == "m-1"
            failed = await session.call_tool(
                "messages_send", {"target": "slack:broken", "message": "x"}
            )
            assert failed.is_error
            assert "Send failed: slack: the Slack webhook answered HTTP 500" in (
                failed.content[0].text
            )
            assert "secret" not in failed.content[0].text
            unknown = await session.call_tool(
                "messages_send", {"target": "teams:general", "message": "x"}
            )
            assert "No messaging platform named 'teams'" in unknown.content[0].text
            assert "(configured: discord, ops, slack)" in unknown.content[0].text
            bad = await session.call_tool("messages_send", {"target": "general", "message": "x"})
            assert "target must look like platform:chat_id" in bad.content[0].text
            read = structured(
                await session.call_tool("messages_read", {"session_key": "slack:general"})
            )
            assert [(m["role"], m["content"]) for m in read["messages"]] == [
                ("assistant", "Deployed 2.4")
            ]

    asyncio.run(scenario())
    bodies = {r["path"]: r for r in receiver.received}
    assert bodies["/slack/T1/B2/secret"]["body"] == {"text": "Deployed 2.4"}
    assert bodies["/json"]["headers"]["Authorization"] == "Bearer t0ken"
    assert "/fail/secret" in bodies


def test_a_bad_webhook_entry_stops_serve_with_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "messaging:\n  slack:\n    adapter: slack_webhook\n    channels:\n"
        "      general: http://hooks.slack.example/services/secret\n"
    )
    done = run_hermes("mcp", "serve", env={"HERMES_HOME": str(tmp_path)})
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"error: {tmp_path / 'config.yaml'}:5: messaging.slack.channels.general.url: must use "
        "https (plain http is allowed only for loopback addresses)"
    )
