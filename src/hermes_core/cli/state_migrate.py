"""``hermes state migrate [--to URL] [--json]``: this home's state copied into PostgreSQL.

What is copied (the files themselves are only read, never changed):

* ``trust.db`` — servers' identities, pinned definitions, changes waiting, remembered
  decisions.  What the database already holds wins: a pin or decision another machine put
  there first is kept (``ON CONFLICT DO NOTHING``), so migrating a second machine never
  replaces the fleet's state with an older copy;
* the audit log (``logs/audit.jsonl`` and its rotated files) — each record keyed by its
  digest, so running the command again copies no record twice;
* OAuth tokens (``mcp-tokens/<server>.json``) of servers the database has none for.

The target is ``--to URL`` (its ``${VAR}`` expanded from the environment and ``.env``) or
``state.url`` of ``config.yaml``.  The URL is shown with its credentials hidden, and an error
never holds the password.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import sqlite3
import sys
import urllib.parse
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.loading import factory_for, load
from hermes_core.cli.stop import Stop
from hermes_core.config.interpolate import expand, load_dotenv
from hermes_core.config.state import state_url_problem
from hermes_core.home import hermes_home
from hermes_core.host.calls.audit import read_audit
from hermes_core.pgstate import Database, StateUnavailable, database_at, shown_url

if TYPE_CHECKING:
    import psycopg

__all__ = ["migrate_home", "run"]

_TABLES = (
    ("servers", "trust_servers", "server, identity, first_seen"),
    ("pins", "trust_pins", "server, tool, digest, definition, pinned_at, size"),
    ("changes", "trust_changes", "server, tool, digest, definition, seen_at, size"),
    ("decisions", "trust_decisions", "server, tool, decision, set_at"),
)
_TOKEN_FILE_BYTES = 1024 * 1024


def _target(args: argparse.Namespace, plugins: PluginLoader) -> Database:
    if args.to is None:
        factory = factory_for(plugins())
        db = factory.state_database(load(factory, strict=False))
        if db is None:
            raise Stop(EXIT_USAGE, "give --to postgresql://… or set state: url: in config.yaml")
        return db
    given = args.to.strip()
    try:
        url = expand(given, env=os.environ, dotenv=load_dotenv())
    except ValueError as exc:
        raise Stop(EXIT_USAGE, f"--to {shown_url(given)}: {exc}") from None
    problem = state_url_problem(url.replace(_password(url), "${P}") if _password(url) else url)
    if problem is not None:
        raise Stop(EXIT_USAGE, f"--to {shown_url(given)}: {problem}")
    return database_at(url)


def _password(url: str) -> str:
    try:
        return urllib.parse.urlsplit(url).password or ""
    except ValueError:
        return ""


def _trust_rows(home: Path) -> dict[str, list[tuple[Any, ...]]]:
    path = home / "trust.db"
    if not path.is_file() or path.is_symlink():
        return {}
    uri = f"file:{urllib.parse.quote(str(path))}?mode=ro&nofollow=1"
    try:
        conn = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise Stop(EXIT_FAILED, f"{path}: {exc}") from None
    try:
        found = {}
        for source, _target_table, columns in _TABLES:
            found[source] = conn.execute(f"SELECT {columns} FROM {source}").fetchall()
        return found
    except sqlite3.Error as exc:
        raise Stop(EXIT_FAILED, f"{path}: {exc}") from None
    finally:
        conn.close()


def _tokens(home: Path) -> list[tuple[str, str]]:
    folder = home / "mcp-tokens"
    found: list[tuple[str, str]] = []
    if not folder.is_dir() or folder.is_symlink():
        return found
    for path in sorted(folder.glob("*.json")):
        if path.is_symlink() or not path.is_file():
            continue
        with contextlib.suppress(OSError, ValueError):
            raw = path.read_bytes()[:_TOKEN_FILE_BYTES]
            data = json.loads(raw)
            server = data.get("server") if isinstance(data, dict) else None
            if isinstance(server, str) and server:
                found.append((server, raw.decode("utf-8")))
    return found


def migrate_home(home: Path, db: Database) -> dict[str, int]:
    """Copy *home*'s state into *db*; how many rows of each kind were added."""
    trust = _trust_rows(home)
    records = list(read_audit(home))
    tokens = _tokens(home)

    def work(conn: psycopg.Connection[Any]) -> dict[str, int]:
        added: dict[str, int] = {}
        for source, target, columns in _TABLES:
            rows = trust.get(source, [])
            marks = ", ".join(["%s"] * len(columns.split(",")))
            count = 0
            for row in rows:
                done = conn.execute(
                    f"INSERT INTO {target} ({columns}) VALUES ({marks}) ON CONFLICT DO NOTHING",
                    row,
                )
                count += max(done.rowcount, 0)
            added[source] = count
        if any(trust.values()):
            conn.execute("UPDATE revisions SET n = n + 1 WHERE name = 'trust'")
        count = 0
        for record in records:
            text = json.dumps(record, ensure_ascii=True, sort_keys=True, default=str)
            digest = hashlib.sha256(text.encode()).hexdigest()
            server = record.get("server") if isinstance(record.get("server"), str) else None
            done = conn.execute(
                "INSERT INTO audit_log (at, server, record, source_digest) "
                "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (_when(record), server, text, digest),
            )
            count += max(done.rowcount, 0)
        added["audit"] = count
        count = 0
        for server, data in tokens:
            done = conn.execute(
                "INSERT INTO oauth_tokens (server, data, updated_at) "
                "VALUES (%s, %s, extract(epoch from now())) ON CONFLICT DO NOTHING",
                (server, data),
            )
            count += max(done.rowcount, 0)
        added["oauth_tokens"] = count
        return added

    result: dict[str, int] = db.run(work, write=True)
    return result


def _when(record: Mapping[str, object]) -> float:
    stamp = record.get("time")
    if isinstance(stamp, str):
        with contextlib.suppress(ValueError):
            return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    return 0.0


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    db = _target(args, plugins)
    home = hermes_home()
    try:
        added = migrate_home(home, db)
    except StateUnavailable as exc:
        raise Stop(EXIT_FAILED, str(exc)) from None
    _say(args, db, home, added, print)
    return EXIT_OK


def _say(
    args: argparse.Namespace,
    db: Database,
    home: Path,
    added: dict[str, int],
    say: Callable[[str], None],
) -> None:
    if args.json:
        say(json.dumps({"to": db.shown, "from": str(home), "added": added}))
        return
    say(f"copied {home} into {db.shown}:")
    names = {
        "servers": "servers' identities",
        "pins": "pinned definitions",
        "changes": "changes waiting",
        "decisions": "remembered decisions",
        "audit": "audit records",
        "oauth_tokens": "OAuth token sets",
    }
    for key, label in names.items():
        say(f"  {added.get(key, 0):>6}  {label}")
    if not any(added.values()):
        say("(nothing new: the database already holds all of it)")
    sys.stdout.flush()
