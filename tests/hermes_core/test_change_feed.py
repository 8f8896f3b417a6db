"""The change feed: "nothing changed" in one poll, and every edit of a watched file seen by the
next look (real files, the kernel's inotify)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from hermes_core.host.change_feed import ChangeFeed
from support.proxy import proxy_session, text_of

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify: Linux")


def looks(feed: ChangeFeed, times: int = 2) -> list[bool]:
    return [feed.maybe_changed() for _ in range(times)]


def test_each_kind_of_edit_is_seen_once_and_other_files_are_not(tmp_path: Path) -> None:
    watched = tmp_path / "config.yaml"
    watched.write_text("a: 1\n")
    feed = ChangeFeed([watched])
    assert feed.watching
    assert looks(feed) == [True, False]  # the first look always says "maybe"
    (tmp_path / "other.txt").write_text("x")
    (tmp_path / "config.yaml.tmp").write_text("x")
    assert looks(feed) == [False, False]
    with watched.open("a") as handle:  # written in place
        handle.write("b: 2\n")
    assert looks(feed) == [True, False]
    os.replace(tmp_path / "config.yaml.tmp", watched)  # replaced atomically, as editors do
    assert looks(feed) == [True, False]
    watched.chmod(0o600)
    assert looks(feed) == [True, False]
    watched.unlink()
    assert looks(feed) == [True, False]
    watched.write_text("again\n")  # made anew
    assert looks(feed) == [True, False]
    feed.close()


def test_a_file_in_folders_that_do_not_exist_yet_is_followed_once_they_are_made(
    tmp_path: Path,
) -> None:
    policy = tmp_path / "etc" / "hermes" / "policy.yaml"
    feed = ChangeFeed([policy])
    assert feed.watching and looks(feed) == [True, False]
    policy.parent.mkdir(parents=True)
    assert feed.maybe_changed()  # a folder on the way (a stat then finds no file yet)
    (policy.parent / "unrelated").write_text("x")
    assert not feed.maybe_changed()
    policy.write_text("servers: {}\n")
    assert looks(feed) == [True, False]


def test_a_symlinked_file_is_followed_in_its_targets_folder(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / "hermes.yaml"
    target.write_text("a: 1\n")
    home = tmp_path / "home"
    home.mkdir()
    link = home / "config.yaml"
    link.symlink_to(target)
    feed = ChangeFeed([link])
    assert looks(feed) == [True, False]
    target.write_text("a: 2\n")  # edited where it lives
    assert looks(feed) == [True, False]
    link.unlink()
    link.symlink_to(dotfiles / "other.yaml")  # the link pointed elsewhere
    assert looks(feed) == [True, False]


def test_a_removed_folder_leaves_the_feed_saying_maybe_for_good(tmp_path: Path) -> None:
    folder = tmp_path / "home"
    folder.mkdir()
    feed = ChangeFeed([folder / "config.yaml"])
    assert looks(feed) == [True, False]
    shutil.rmtree(folder)
    assert looks(feed, 3) == [True, True, True]
    assert not feed.watching


def test_without_inotify_every_look_says_maybe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    feed = ChangeFeed([tmp_path / "config.yaml"])
    assert not feed.watching and looks(feed, 3) == [True, True, True]


SHIFT = Path(__file__).resolve().parents[1] / "servers" / "shifting_server.py"


@pytest.mark.process
def test_a_running_proxy_that_follows_events_obeys_the_next_policy_edit(tmp_path: Path) -> None:
    """The proxy follows events once it has looked twice: after several calls, a deny rule
    written in place refuses the very next call; replaced (as an editor saves) by one that
    lifts it, the call runs again."""
    shift = tmp_path / "shift.json"
    shift.write_text(json.dumps({"look": {"description": "Read."}}))
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n  shift:\n"
        f"    command: {json.dumps(sys.executable)}\n    args: [{json.dumps(str(SHIFT))}]\n"
        f"    env: {{SHIFT_FILE: {json.dumps(str(shift))}}}\n"
    )
    policy = tmp_path / "policy" / "policy.yaml"
    policy.parent.mkdir()
    policy.write_text("deny:\n  tools: [nothing/here]\n")

    async def scenario() -> None:
        env = {"HERMES_POLICY": str(policy)}
        async with proxy_session(tmp_path, env=env) as session:
            for _ in range(3):
                ran = await session.call_tool("mcp_shift_look", {})
                assert not ran.is_error, text_of(ran)
            policy.write_text("deny:\n  tools: [shift/look]\n")
            refused = await session.call_tool("mcp_shift_look", {})
            assert refused.is_error and "refused by the administrator's policy" in text_of(refused)
            policy.with_name("new.yaml").write_text("deny:\n  tools: [nothing/here]\n")
            policy.with_name("new.yaml").replace(policy)
            again = await session.call_tool("mcp_shift_look", {})
            assert not again.is_error, text_of(again)

    asyncio.run(scenario())


def test_a_folder_link_on_the_way_pointed_elsewhere_is_a_change(tmp_path: Path) -> None:
    for release in ("one", "two"):
        (tmp_path / release).mkdir()
        (tmp_path / release / "config.yaml").write_text(f"release: {release}\n")
    current = tmp_path / "current"
    current.symlink_to(tmp_path / "one")
    feed = ChangeFeed([current / "config.yaml"])
    assert looks(feed) == [True, False]
    (tmp_path / "next").symlink_to(tmp_path / "two")
    os.replace(tmp_path / "next", current)  # a deployment switched releases atomically
    assert looks(feed) == [True, False]


def test_a_watcher_follows_events_from_its_second_look_and_lets_go_when_it_stops(
    tmp_path: Path,
) -> None:
    """The config watcher's inotify descriptor: made at the second look (a one-call CLI never
    makes one), closed when its watching ends with the host; an edit is seen either way."""
    from hermes_core.host.config_watch import ConfigWatcher

    config = tmp_path / "config.yaml"
    config.write_text("mcp_servers: {}\n")

    class Host:
        async def reload(self, servers: object, *, applied: object = None) -> dict[str, list[str]]:
            return {}

        def spawn(self, coro: Any, name: str) -> asyncio.Task[Any]:
            return asyncio.get_running_loop().create_task(coro)

    async def scenario() -> None:
        watcher = ConfigWatcher(Host(), list, [config], interval=60)
        assert watcher.pending() is None and watcher._feed is None  # first look: a stat
        assert watcher.pending() is None and watcher._feed is not None
        feed = watcher._feed
        config.write_text("mcp_servers: {}\n# edited\n")
        assert watcher.pending() is not None  # the event sent the look to the stamps
        running = asyncio.get_running_loop().create_task(watcher.run())
        await asyncio.sleep(0)
        running.cancel()
        with pytest.raises(asyncio.CancelledError):
            await running
        assert watcher._feed is None and not feed.watching

    asyncio.run(scenario())
