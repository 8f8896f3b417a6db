"""``hermes mcp resources``, ``templates``, ``prompts``, ``read`` and ``prompt``: what servers
offer besides tools, through :mod:`hermes_core.host.browse` on a started host (or the warm
host, as ``call`` does).  Every line from a server is cleaned before it is printed."""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import sys
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from hermes_core.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, PluginLoader
from hermes_core.cli.hosting import with_host
from hermes_core.cli.stop import Stop
from hermes_core.config.atomic_file import atomic_write
from hermes_core.host import browse
from hermes_core.host.calls.result_text import block_text, size_text
from hermes_core.sanitize import clean_line, clean_text

if TYPE_CHECKING:
    from hermes_core.host.surface import HostSurface

__all__ = ["run_listing", "run_prompt", "run_read"]

T = TypeVar("T")

_FAMILIES = {
    "resources": browse.Family.RESOURCES,
    "templates": browse.Family.TEMPLATES,
    "prompts": browse.Family.PROMPTS,
}
#: The longest description a listing's line shows.
_DESCRIPTION = 160


def _short(value: object, limit: int = _DESCRIPTION) -> str:
    line = clean_line(str(value or "").strip().split("\n", 1)[0])
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _on_host(
    plugins: PluginLoader,
    body: Callable[[HostSurface], Coroutine[Any, Any, T]],
    server: str | None,
    quiet: bool,
) -> T:
    return with_host(plugins(), body, only=server, quiet=quiet)


# ----------------------------------------------------------------------------- listings


def item_line(family: browse.Family, item: Mapping[str, object]) -> str:
    """One listed item as a line: a resource's URI, name and type; a template's pattern; a
    prompt's signature (``?``: optional); then its description."""
    if family is browse.Family.PROMPTS:
        arguments = item.get("arguments")
        names = [
            f"{_short(a.get('name'), 60)}{'' if a.get('required') else '?'}"
            for a in (arguments if isinstance(arguments, list) else ())
            if isinstance(a, dict)
        ]
        head = f"{_short(item.get('name'), 120)}({', '.join(names)})"
    else:
        key = "uri" if family is browse.Family.RESOURCES else "uriTemplate"
        head = _short(item.get(key), 300)
        name = _short(item.get("title") or item.get("name"), 80)
        head += f"  {name}" if name else ""
        head += f" ({_short(item['mimeType'], 80)})" if item.get("mimeType") else ""
    description = _short(item.get("description"))
    return f"  {head}: {description}" if description else f"  {head}"


def run_listing(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp resources|templates|prompts [SERVER] [--json]``."""
    family = _FAMILIES[args.mcp_command]

    async def body(host: HostSurface) -> list[browse.Listing]:
        return await browse.list_family(host, family, args.server)

    listings = _on_host(plugins, body, args.server, args.json)
    if args.json:
        print(json.dumps([x.as_dict() for x in listings], indent=2, ensure_ascii=False))
    if not listings:
        raise Stop(EXIT_FAILED, "no server is configured (add one: `hermes mcp add`)")
    for listing in listings:
        if listing.error is not None:
            print(f"# {listing.server}: {clean_line(listing.error)}", file=sys.stderr)
            continue
        if not args.json:
            count = len(listing.items)
            print(f"{listing.server}: {count} {family.noun}" + (":" if count else ""))
            for item in listing.items:
                print(item_line(family, item))
        if listing.note:
            print(f"# {listing.server}: {clean_line(listing.note)}", file=sys.stderr)
    listed = [x for x in listings if x.error is None]
    return EXIT_OK if listed and (args.server is None or not listings[0].error) else EXIT_FAILED


# ----------------------------------------------------------------------------- read


def _blob(content: dict[str, object]) -> bytes:
    try:
        return base64.b64decode(str(content.get("blob", "")), validate=True)
    except (binascii.Error, ValueError):
        raise Stop(EXIT_FAILED, "the server sent a blob that is not valid base64") from None


def _data(content: dict[str, object]) -> bytes:
    text = content.get("text")
    if isinstance(text, str):
        return clean_text(text).encode("utf-8")
    return _blob(content)


def _save(reading: browse.Reading, target: Path) -> None:
    if len(reading.contents) != 1:
        raise Stop(
            EXIT_USAGE,
            f"{reading.uri!r} has {len(reading.contents)} contents; -o saves one "
            "(--json prints them all)",
        )
    data = _data(reading.contents[0])
    try:
        atomic_write(target, data, 0o644)
    except OSError as exc:
        raise Stop(EXIT_FAILED, f"cannot write {target}: {exc.strerror or exc}") from None
    print(f"saved {len(data)} bytes to {target}", file=sys.stderr)


def _show(reading: browse.Reading) -> None:
    """Text contents as text; binary ones as bytes to a pipe or file, refused to a terminal."""
    for content in reading.contents:
        if isinstance(content.get("text"), str):
            text = clean_text(content["text"])
            print(text, end="" if text.endswith("\n") else "\n")
            continue
        mime = clean_line(str(content.get("mimeType") or "no type"))
        if sys.stdout.isatty():
            raise Stop(
                EXIT_USAGE,
                f"{reading.uri!r} is binary ({mime}, {size_text(content.get('blob'))}): "
                "save it with -o FILE (or pipe it)",
            )
        sys.stdout.flush()
        sys.stdout.buffer.write(_blob(content))
        sys.stdout.buffer.flush()
    if not reading.contents:
        print(f"# {reading.uri}: the resource has no contents", file=sys.stderr)


def run_read(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp read URI [--server S] [-o FILE] [--json]``."""

    async def body(host: HostSurface) -> browse.Reading:
        try:
            return await browse.read_resource(host, args.uri, args.server)
        except browse.BrowseError as exc:
            raise Stop(EXIT_FAILED, clean_line(str(exc))) from None

    reading = _on_host(plugins, body, args.server, True)
    if args.json:
        data = {"server": reading.server, "uri": reading.uri, "contents": reading.contents}
        print(json.dumps(data, indent=2, ensure_ascii=False))
    elif args.output is not None:
        _save(reading, args.output)
    else:
        _show(reading)
    return EXIT_OK


# ----------------------------------------------------------------------------- prompt


def prompt_arguments(pairs: list[str]) -> dict[str, str]:
    """``key=value`` words as a prompt's arguments (text; a key given twice is refused)."""
    found: dict[str, str] = {}
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            raise Stop(EXIT_USAGE, f"{pair!r}: write key=value (a prompt's arguments are text)")
        if key in found:
            raise Stop(EXIT_USAGE, f"argument {key!r} is given twice")
        found[key] = value
    return found


def run_prompt(args: argparse.Namespace, plugins: PluginLoader) -> int:
    """``hermes mcp prompt NAME [key=value …] [--server S] [--json]``."""
    given: dict[str, str] = {}

    async def body(host: HostSurface) -> browse.Prompt:
        try:
            return await browse.get_prompt(host, args.name, given, args.server)
        except browse.BrowseError as exc:
            raise Stop(EXIT_FAILED, clean_line(str(exc))) from None

    given.update(prompt_arguments(args.pairs))
    prompt = _on_host(plugins, body, args.server, True)
    if args.json:
        data = {
            "server": prompt.server,
            "name": prompt.name,
            "description": prompt.description,
            "messages": prompt.messages,
        }
        print(json.dumps(data, indent=2, ensure_ascii=False))
        return EXIT_OK
    if prompt.description:
        print(f"# {_short(prompt.description, 300)}")
    for number, message in enumerate(prompt.messages):
        if number:
            print()
        print(f"{clean_line(str(message.get('role', '?')))}:")
        print(block_text(message.get("content")))
    if not prompt.messages:
        print("# the prompt has no messages", file=sys.stderr)
    return EXIT_OK
