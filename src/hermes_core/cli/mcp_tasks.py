"""``hermes mcp tasks [--server NAME] [--json]``: the tasks Hermes's calls started here.

Every ``hermes mcp call`` (and every embedding host told to) records the tasks of its
task-augmented calls in ``$HERMES_HOME/cache/tasks.json``; this lists them, newest first, with
the status each had when the host last looked.  The record is what this machine saw, never the
server's word: a task that ended after its host went away still shows its last status.
"""

from __future__ import annotations

import argparse
import json
import time

from hermes_core.cli.common import EXIT_OK, PluginLoader
from hermes_core.cli.foreign_text import say
from hermes_core.home import hermes_home
from hermes_core.host.server_notifications import shown_text
from hermes_core.host.tasks.record import TASKS_RECORD, read_task_records

__all__ = ["run"]


def run(args: argparse.Namespace, plugins: PluginLoader) -> int:
    records = [
        r
        for r in reversed(read_task_records(hermes_home() / TASKS_RECORD))
        if args.server is None or r.server == args.server
    ]
    if args.json:
        print(json.dumps([r.as_json() for r in records], indent=2, ensure_ascii=False))
        return EXIT_OK
    if not records:
        where = f" for server {args.server!r}" if args.server else ""
        say(f"no tasks recorded{where} (a call of a task tool records its task here)")
        return EXIT_OK
    for record in records:
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(record.started))
        message = shown_text(record.message, 120) if record.message else ""
        say(
            f"{record.status.value:<15} {started}  {shown_text(record.server, 64)}/"
            f"{shown_text(record.tool, 64)}  {shown_text(record.task_id, 128)}"
            + (f"  {message}" if message else "")
        )
    return EXIT_OK
