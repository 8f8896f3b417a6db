"""``suggest:``: which entries a piece of text calls for.

An entry matches when one of its ``keywords`` occurs in the text as whole
words (case-insensitive: ``figma`` matches "a Figma file", not "figmata"), or
when the host of a URL in the text is one of its ``hosts`` or ends with
``.<host>`` (``www.figma.com`` matches ``figma.com``; ``notfigma.com`` does not).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from hermes_core.catalog.catalog import Entry

__all__ = ["Suggestion", "suggestions"]

_URL = re.compile(r"\b(?:https?|wss?)://[^\s<>\"'`)\]]+", re.IGNORECASE)


@dataclass(frozen=True)
class Suggestion:
    entry: Entry
    why: str


def _hosts(text: str) -> list[str]:
    hosts = []
    for url in _URL.findall(text):
        try:
            host = urlsplit(url).hostname
        except ValueError:
            continue
        if host:
            hosts.append(host.lower().rstrip("."))
    return hosts


def suggestions(entries: Iterable[Entry], text: str) -> list[Suggestion]:
    """The entries *text* calls for, in catalog order, each with the reason."""
    hosts = _hosts(text)
    found: list[Suggestion] = []
    for entry in entries:
        manifest = entry.manifest
        if manifest is None:
            continue
        why = None
        for keyword in manifest.suggest.keywords:
            words = r"\s+".join(re.escape(part) for part in keyword.split())
            if re.search(rf"(?<!\w){words}(?!\w)", text, re.IGNORECASE):
                why = f"keyword '{keyword}'"
                break
        if why is None:
            for host in hosts:
                match = next(
                    (h for h in manifest.suggest.hosts if host == h or host.endswith("." + h)),
                    None,
                )
                if match is not None:
                    why = f"link to {host}"
                    break
        if why is not None:
            found.append(Suggestion(entry, why))
    return found
