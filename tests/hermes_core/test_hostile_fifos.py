"""FIFOs where Hermes reads its caches, a catalog manifest or an attachment (issue 27, item 10).

A FIFO opened for reading blocks until a writer comes: before, ``hermes mcp catalog`` and
``hermes mcp list`` waited for ever on one planted in the cache, and one attachment path
froze the whole serve process.  Each command here must finish (the subprocess timeout is the
failure) and treat the FIFO as a file that is not there, or refuse it by name.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from hermes_core.host.tools.schema_cache import cache_path
from hermes_core.regular_files import NotRegularFileError, read_regular
from support.cli import run_hermes
from support.serve import populate, sdk_session, structured

TIMEOUT = 60  # a command that blocks on the FIFO never finishes: TimeoutExpired fails the test


def test_read_regular_refuses_a_fifo_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError, match="not a regular file"):
        read_regular(fifo, 100)
    (tmp_path / "file").write_bytes(b"x" * 10)
    assert read_regular(tmp_path / "file", 4) == b"xxxxx"  # max_bytes + 1: over the bound


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.parametrize("record", ["catalog-names.json", "entry-points.json"])
def test_a_fifo_in_the_cache_is_a_record_not_there(tmp_path: Path, record: str) -> None:
    (tmp_path / "cache").mkdir()
    os.mkfifo(tmp_path / "cache" / record)
    (tmp_path / "config.yaml").write_text("mcp_servers:\n  s:\n    command: x\n")
    env = {"HERMES_HOME": str(tmp_path)}
    listed = run_hermes("mcp", "list", env=env, timeout=TIMEOUT)
    assert listed.returncode == 0, listed.stderr
    catalog = run_hermes("mcp", "catalog", env=env, timeout=TIMEOUT)
    assert catalog.returncode == 0, catalog.stderr
    assert "filesystem" in catalog.stdout
    assert "Traceback" not in listed.stderr + catalog.stderr


@pytest.mark.process
@pytest.mark.cli
def test_a_fifo_for_a_lazy_servers_listing_is_no_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache" / "mcp-tools"
    cache.mkdir(parents=True)
    os.mkfifo(cache_path(cache, "s"))
    (tmp_path / "config.yaml").write_text(
        f"mcp_servers:\n  s:\n    command: {sys.executable}\n    args: ['-c', 'pass']\n"
        "    lazy: true\n"
    )
    done = run_hermes("mcp", "list", env={"HERMES_HOME": str(tmp_path)}, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.process
@pytest.mark.cli
def test_a_fifo_manifest_in_the_catalog_path_is_refused_by_name(tmp_path: Path) -> None:
    manifests = tmp_path / "manifests"
    manifests.mkdir()
    os.mkfifo(manifests / "evil.yaml")
    env = {"HERMES_HOME": str(tmp_path / "home"), "HERMES_CATALOG_PATH": str(manifests)}
    done = run_hermes("mcp", "catalog", env=env, timeout=TIMEOUT)
    assert "Traceback" not in done.stderr
    assert str(manifests / "evil.yaml") in done.stderr + done.stdout
    assert "not a regular file" in done.stderr + done.stdout


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_a_fifo_attachment_is_listed_not_read_and_serve_goes_on(tmp_path: Path) -> None:
    made = populate(tmp_path)
    (tmp_path / "notes.txt").unlink()
    os.mkfifo(tmp_path / "notes.txt")  # the attachment's path, now a FIFO

    async def scenario() -> tuple[dict[str, object], dict[str, object]]:
        async with sdk_session(tmp_path) as session:
            args = {"session_key": "discord:#general", "message_id": made["photo_message"]}
            fetched = await asyncio.wait_for(session.call_tool("attachments_fetch", args), 30)
            listed = await asyncio.wait_for(session.call_tool("conversations_list", {}), 30)
            return fetched.structured_content, structured(listed)

    fetched, listed = asyncio.run(scenario())
    notes = [a for a in fetched["attachments"] if a["name"] == "notes.txt"]  # type: ignore[union-attr, index]
    assert notes and not notes[0]["included"]
    assert "not a regular file" in notes[0]["note"]
    assert listed["count"] == 3
    json.dumps(fetched)  # (plain data)
