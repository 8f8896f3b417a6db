"""``hermes mcp serve`` against a hostile home, client and webhook (issue 27, round 3).

Each test plants what an attacker or a broken machine leaves (a link at the token's
temporary name, a loose token file, a FIFO attachment, ...) and checks the server refuses it
with one clear line, or goes on without harm.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from hermes_core.serve.http_auth import TOKEN_FILE, TokenFileError, load_or_create_token
from support.cli import run_hermes
from support.serve import serve_env


# --- the bearer token file (item 12) --------------------------------------------------------
def test_a_link_planted_at_the_temporary_name_is_never_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    # What an attacker plants: the old temporary name (the pid) and a few around it.
    for pid in range(os.getpid() - 2, os.getpid() + 3):
        (tmp_path / f".{TOKEN_FILE}.{pid}.tmp").symlink_to(victim)
    token, created = load_or_create_token(tmp_path, renew=True)
    assert created
    assert victim.read_text() == "precious\n"
    assert (tmp_path / TOKEN_FILE).read_text().strip() == token
    assert not (tmp_path / TOKEN_FILE).is_symlink()


def test_a_loose_token_file_is_made_private_and_said(tmp_path: Path) -> None:
    path = tmp_path / TOKEN_FILE
    path.write_text("t" * 43 + "\n")
    path.chmod(0o644)
    said: list[str] = []
    assert load_or_create_token(tmp_path, say=said.append) == ("t" * 43, False)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert said == [f"{path} was mode 644 (others could read the token); it is now 0600"]


@pytest.mark.parametrize("kind", ["symlink", "fifo"])
def test_a_token_file_that_is_not_a_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    path = tmp_path / TOKEN_FILE
    if kind == "symlink":
        other = tmp_path / "elsewhere"
        other.write_text("s" * 43 + "\n")
        path.symlink_to(other)
    else:
        os.mkfifo(path)  # opened without blocking: the refusal is immediate
    with pytest.raises(TokenFileError, match="--new-token"):
        load_or_create_token(tmp_path)


@pytest.mark.process
@pytest.mark.cli
def test_serve_says_what_is_wrong_with_the_token_file(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").write_text("s" * 43 + "\n")
    (tmp_path / TOKEN_FILE).symlink_to(tmp_path / "elsewhere")
    done = run_hermes("mcp", "serve", "--http", "--port", "1", env=serve_env(tmp_path))
    assert done.returncode == 1
    assert f"{tmp_path / TOKEN_FILE}: is a symbolic link" in done.stderr
    assert "Traceback" not in done.stderr
