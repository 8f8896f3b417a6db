"""``hermes mcp audit [--since WHEN] [--server NAME] [--json]``: the audit log of tool calls.

Reads ``$HERMES_HOME/logs/audit.jsonl`` and its rotated files, oldest first — or, with
``state:`` in ``config.yaml``, the audit log in the state database (every replica's calls).
``--since`` takes an age (``30m``, ``2h``, ``7d``, ``45s``) or an ISO date/time (UTC when it
has no zone).  Everything shown comes from what other processes wrote, so it is cleaned of
control and invisible characters first.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Mapping
from datetime import UTC, datetime

from hermes_core.cli.common import EXIT_FAILED, EXIT_USAGE, PluginLoader
from hermes_core.cli.loading import factory_for, load
from hermes_core.cli.stop import Stop
from hermes_core.home import hermes_home
from hermes_core.host.calls.audit import read_audit
from hermes_core.host.calls.audit_pg import read_audit_rows
from hermes_core.pgstate import StateUnavailable
from hermes_core.sanitize import clean_line

__all__ = ["parse_since", "run"]

_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_since(text: str, now: float | None = None) -> float:
    """The epoch seconds *text* names: an age before *now* or an ISO date/time."""
    now = time.time() if now is None else now
    match = _AGE.match(text)
    if match:
        return now - float(match.group(1)) * _UNITS[match.group(2)]
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"--since {text!r}: give an age (30m, 2h, 7d) or a date/time (2026-12-01T09:00)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _when(record: Mapping[str, object]) -> float | None:
    stamp = record.get("time")
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _shown(value: object) -> str:
    return clean_line(str(value)) if value is not None else "-"


def _decisions(record: Mapping[str, object]) -> str:
    decisions = record.get("decisions")
    if not isinstance(decisions, list) or not decisions:
        return ""
    words = []
    for item in decisions:
        if isinstance(item, dict):
            words.append(f"{_shown(item.get('interceptor'))}:{_shown(item.get('verdict'))}")
    return " ".join(words)


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    since = None
    if args.since:
        try:
            since = parse_since(args.since)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_USAGE
    factory = factory_for(plugins())
    try:
        db = factory.state_database(load(factory, strict=False))
    except Stop as stop:
        return stop.code
    try:
        records = (
            list(read_audit_rows(db, since=since, server=args.server))
            if db is not None
            else read_audit(hermes_home())
        )
    except StateUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    chosen = []
    for record in records:
        if args.server and record.get("server") != args.server:
            continue
        if since is not None:
            when = _when(record)
            if when is None or when < since:
                continue
        chosen.append(record)
    if args.json:
        for record in chosen:
            print(json.dumps(record, ensure_ascii=True))
        return 0
    if not chosen:
        of_server = f" of server {args.server!r}" if args.server else ""
        since_when = f" since {args.since}" if since is not None else ""
        print(f"no tool calls{of_server} in the audit log{since_when}")
        return 0
    for record in chosen:
        duration = record.get("duration_ms")
        took = f"{duration:.0f} ms" if isinstance(duration, int | float) else "-"
        approved = record.get("approved_by")
        parts = [
            _shown(record.get("time")),
            _shown(record.get("server")),
            _shown(record.get("tool")),
            _shown(record.get("outcome")),
            took,
        ]
        if approved:
            parts.append(f"approved by {_shown(approved)}")
        if decided := _decisions(record):
            parts.append(decided)
        arguments = record.get("arguments")
        if isinstance(arguments, dict) and arguments:
            parts.append("args: " + ", ".join(_shown(k) for k in arguments))
        print("  ".join(parts))
    return 0
