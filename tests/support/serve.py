"""``hermes mcp serve`` for tests: a populated store, the raw SDK client on a real subprocess,
and writes from another process."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from hermes_core.sessions import NewAttachment, SessionStore

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)


def serve_env(home: Path) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_")}
    return {**base, "HERMES_HOME": str(home), "HERMES_STRICT_PLUGINS": "1"}


def populate(home: Path) -> dict[str, Any]:
    """Three conversations, attachments of each kind, one open elicitation."""
    home.mkdir(parents=True, exist_ok=True)
    notes = home / "notes.txt"
    notes.write_text("meeting notes")
    big = home / "big.bin"
    with open(big, "wb") as fh:
        fh.truncate(9 * 1024 * 1024)
    with SessionStore(home / "state.db") as store:
        store.record_message(
            "telegram:123456",
            "user",
            "Can you book a table for two?",
            author="Ada",
            title="Ada Lovelace",
            user_name="ada",
            chat_type="dm",
            at=1000.0,
        )
        store.record_message("telegram:123456", "assistant", "Booked for 8 pm.", at=1001.0)
        store.upsert_conversation("telegram:123456", add_tokens=(120, 30), at=1001.0)
        photo = store.record_message(
            "discord:#general",
            "user",
            "the whiteboard \U000e0041and notes",
            author="Grace",
            title="#general",
            chat_type="group",
            attachments=[
                NewAttachment("image", "image/png", "board.png", data=PNG),
                NewAttachment("file", "text/plain", "notes.txt", path=str(notes)),
                NewAttachment("video", "video/mp4", "big.mp4", path=str(big)),
            ],
            at=1002.0,
        )
        store.record_message("slack:ops", "user", "x" * 3000, author="ops-bot", at=999.0)
        approval = store.request_approval(
            "elicitation",
            server="shop",
            summary="Which size?",
            payload={"message": "Which size?", "fields": [{"name": "size", "type": "string"}]},
        )
    return {"photo_message": photo.id, "approval": approval.id}


WRITE = """
import json, sys
from hermes_core.sessions import SessionStore
path, op, args = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
with SessionStore(path) as store:
    if op == "message":
        print(store.record_message(**args).id)
    elif op == "ask":
        print(store.request_approval(**args).id)
    else:
        print(store.resolve_approval(**args).id)
"""


def write_elsewhere(home: Path, op: str, **args: Any) -> int:
    """Write to ``home/state.db`` from another process; returns the new row's id."""
    done = subprocess.run(
        [sys.executable, "-c", WRITE, str(home / "state.db"), op, json.dumps(args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return int(done.stdout)


@contextlib.asynccontextmanager
async def sdk_session(
    home: Path, *args: str, errlog: Path | None = None, no_plugins: bool = False
) -> AsyncIterator[Any]:
    """The raw ``mcp`` SDK client on ``hermes [--no-plugins] mcp serve ARGS`` (a subprocess)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "hermes_core",
            *(["--no-plugins"] if no_plugins else []),
            "mcp",
            "serve",
            *args,
        ],
        env=serve_env(home),
    )
    log = open(errlog or os.devnull, "w")  # noqa: SIM115 - closed below
    try:
        async with (
            stdio_client(params, errlog=log) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session
    finally:
        log.close()


def structured(result: Any) -> Any:
    assert not result.is_error, result.content
    return result.structured_content
