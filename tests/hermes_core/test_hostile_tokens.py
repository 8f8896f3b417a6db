"""Token files: never through a link, one file per server name, old shared files migrated."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
from pathlib import Path

import pytest
from mcp.shared.auth import OAuthToken

from hermes_core.auth.storage import TOKEN_DIR, TokenStorage, token_path

URL = "https://a.example/mcp"


def save(home: Path, server: str, access: str) -> None:
    storage = TokenStorage(home, server, server_url=URL, fresh=True)
    asyncio.run(storage.set_tokens(OAuthToken(access_token=access, token_type="Bearer")))


def access_of(home: Path, server: str) -> str | None:
    storage = TokenStorage(home, server, server_url=URL)
    tokens = asyncio.run(storage.get_tokens())
    return tokens.access_token if tokens is not None else None


def test_a_planted_link_is_neither_followed_nor_chmod_ed(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home = tmp_path / "home"
    (home / TOKEN_DIR).mkdir(parents=True)
    victim = tmp_path / "victim.json"
    victim.write_text(json.dumps({"server": "acme", "server_url": URL, "tokens": None}))
    victim.chmod(0o644)
    token_path(home, "acme").symlink_to(victim)
    with caplog.at_level(logging.WARNING):
        assert access_of(home, "acme") is None
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644  # the target was not touched
    assert "is a symbolic link" in caplog.text

    save(home, "acme", "fresh-token")  # a login replaces the link, never writes through it
    assert not token_path(home, "acme").is_symlink()
    assert json.loads(victim.read_text())["tokens"] is None
    assert access_of(home, "acme") == "fresh-token"


def test_a_fifo_in_place_of_a_token_file_does_not_hang(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home = tmp_path / "home"
    (home / TOKEN_DIR).mkdir(parents=True)
    os.mkfifo(token_path(home, "acme"))
    with caplog.at_level(logging.WARNING):
        assert access_of(home, "acme") is None
    assert "not a regular file" in caplog.text


def test_servers_a_dot_b_and_a_underscore_b_have_their_own_files(tmp_path: Path) -> None:
    save(tmp_path, "a.b", "token-of-a.b")
    save(tmp_path, "a_b", "token-of-a_b")
    assert token_path(tmp_path, "a.b") != token_path(tmp_path, "a_b")
    assert access_of(tmp_path, "a.b") == "token-of-a.b"
    assert access_of(tmp_path, "a_b") == "token-of-a_b"


def test_a_file_under_the_old_shared_name_moves_to_its_server(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / TOKEN_DIR
    folder.mkdir(mode=0o700)
    old = {"format": 1, "server": "a.b", "server_url": URL}
    old["tokens"] = {"access_token": "old-a.b", "token_type": "Bearer"}  # type: ignore[assignment]
    (folder / "a_b.json").write_text(json.dumps(old))
    (folder / "a_b.json").chmod(0o600)

    with caplog.at_level(logging.WARNING):
        assert access_of(tmp_path, "a_b") is None  # it was a.b's: never used by a_b
    assert "saved for server 'a.b', not 'a_b'" in caplog.text
    assert access_of(tmp_path, "a.b") == "old-a.b"
    assert (folder / "a.b.json").exists() and not (folder / "a_b.json").exists()
