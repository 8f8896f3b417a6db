"""A second, blind evaluation set for tool search (``bench_search.py``): the catalogue.

Written on 2026-12-06 by an author who never saw the ranker, its tables or the first set
(``search_catalogue.py``, ``search_requests.py``), from a brief only: at least 5,000 realistic
tools over at least 22 services, named as real MCP servers name them (``snake_case``,
``camelCase``, ``kebab-case``, server-prefixed, resource-first), near-duplicate actions on purpose,
and requests in a person's words.  It holds 5,243 tools over 45 servers.  Kept fixed: the ranker
is measured on it, never the other way round (``search_blind_requests.py`` says which half was
looked at).  Standard library only, deterministic.

``catalogue()`` -> a list of ``{"server", "tool", "description", "params"}``, generated from the
services (``search_blind_services_a.py``, ``search_blind_services_b.py``) and the actions their
tools are made of (``search_blind_actions.py``).
"""

from __future__ import annotations

import re

from search_blind_actions import CORE, EXTRA
from search_blind_services_a import SERVERS as SERVERS_A
from search_blind_services_b import SERVERS as SERVERS_B

MODES = {
    "full": "create get list search update delete export count history bulk_update bulk_delete import",
    "std": "create get list search update delete export count history",
    "crud": "create get list update delete export count history",
    "ro": "get list search export count",
    "min": "get list",
    "none": "",
}


def _plural(w: str) -> str:
    irr = {
        "person": "people",
        "index": "indexes",
        "status": "statuses",
        "data": "data",
        "analysis": "analyses",
        "metadata": "metadata",
        "info": "info",
    }
    if w in irr:
        return irr[w]
    if w.endswith("y") and w[-2:-1] not in ("a", "e", "i", "o", "u"):
        return w[:-1] + "ies"
    if w.endswith(("s", "x", "sh", "ch", "z")):
        return w + "es"
    return w + "s"


_ARTICLE = re.compile(r"(\b)a ((?:[aeio]|u(?!s)|hour)\w*)")


def _camel(words):
    return words[0][:1].lower() + words[0][1:] + "".join(w[:1].upper() + w[1:] for w in words[1:])


def _fmt(style: str, server: str, words: list[str]) -> str:
    if style == "camel":
        return _camel(words)
    if style == "kebab":
        return "-".join(words)
    if style == "prefix":
        return server + "_" + "_".join(words)
    return "_".join(words)  # snake and resfirst


def _pname(style: str, name: str) -> str:
    return _camel(name.split("_")) if style == "camel" else name


class _Server:
    def __init__(self, server, product, style, resources, customs="", variant=None):
        self.server, self.product, self.style = server, product, style
        self.resources, self.customs = resources, customs
        self.variant = (sum(map(ord, server)) % 2) if variant is None else variant


def _parse_resource(line: str):
    toks = line.split()
    head = toks[0]
    name, parent = ([*head.split("@"), ""])[:2]
    spec = {
        "name": name,
        "parent": parent,
        "mode": "full",
        "plus": [],
        "minus": [],
        "fields": ["name", "description"],
        "verbs": {},
    }
    for t in toks[1:]:
        if t[0] == "!":
            spec["mode"] = t[1:]
        elif t[0] == "+":
            spec["plus"] += t[1:].split(",")
        elif t[0] == "-":
            spec["minus"] += t[1:].split(",")
        elif t[0] == "~":
            spec["fields"] = t[1:].split(",")
        elif t[0] == "%":
            for kv in t[1:].split(","):
                k, v = kv.split("=")
                spec["verbs"][k] = v.replace("_", " ")
    return spec


def _expand_params(style, pstr, r, p, rid, fields):
    out = {}
    for tok in pstr.split():
        if tok == "ID":
            out[rid] = f"ID of the {r}"
        elif tok == "PARENT":
            if p:
                out[p.replace(" ", "_") + "_id"] = f"ID of the {p} the {r} belongs to"
        elif tok == "FIELDS":
            for f in fields:
                out[f] = f"{f.replace('_', ' ').capitalize()} of the {r}"
        else:
            out[tok] = _PARAM_DOCS.get(tok, tok.replace("_", " ").capitalize())
    return {_pname(style, k): v for k, v in out.items()}


_PARAM_DOCS = {
    "limit": "Maximum number of results to return (default 50)",
    "cursor": "Pagination cursor from a previous response",
    "query": "Free-text search query",
    "filter": "Filter expression, e.g. status=open",
    "format": "Output format: csv or json",
    "since": "Only return changes after this ISO-8601 timestamp",
    "ids": "List of IDs to operate on",
    "file_url": "URL of the CSV or JSON file to import",
    "mapping": "Optional column-to-field mapping",
    "email": "Email address of the person",
    "role": "Role to grant",
    "assignee": "User ID or email of the assignee",
    "send_at": "ISO-8601 time at which to send or run",
    "replicas": "Desired number of replicas / instances",
    "revision": "Revision number to roll back to (defaults to the previous one)",
    "duration": "How long, e.g. 2h or 30m",
    "end": "ISO-8601 time when the mute ends (omit for indefinite)",
    "destination_id": "ID of the destination folder/project/parent",
    "amount": "Amount in the smallest currency unit (omit for full amount)",
    "reason": "Optional reason",
}


def _gen_server(s: _Server, out: list, seen: set):
    def add(tool, desc, params):
        key = (s.server, tool)
        if key in seen:
            raise ValueError(f"duplicate tool {key}")
        seen.add(key)
        out.append({"server": s.server, "tool": tool, "description": desc, "params": params})

    for line in re.split(r"[;\n]", s.resources):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        spec = _parse_resource(line)
        rwords = spec["name"].split("_")
        r = " ".join(rwords)
        rs = " ".join([*rwords[:-1], _plural(rwords[-1])])
        p = spec["parent"].replace("_", " ")
        inp = f" in a {p}" if p else ""
        rid = spec["name"] + "_id"
        actions = [a for a in MODES[spec["mode"]].split() + spec["plus"] if a not in spec["minus"]]
        for a in actions:
            if a in CORE:
                verb, suffix, plural, descs, pstr = CORE[a]
                desc = descs[s.variant]
            else:
                verb, suffix, plural, desc, pstr = EXTRA[a]
            verb = spec["verbs"].get(a, verb)
            vw, sw = verb.split(), suffix.split()
            if s.style == "resfirst":
                words = rwords + vw + sw
            else:
                words = vw + ([*rwords[:-1], _plural(rwords[-1])] if plural else rwords) + sw
            text = desc.format(
                r=r,
                rs=rs,
                P=s.product,
                inp=inp,
                p=p or "list",
                top=f" to a {p}" if p else "",
                fromp=f" from a {p}" if p else "",
            )
            text = _ARTICLE.sub(r"\1an \2", text[0].upper() + text[1:])
            add(
                _fmt(s.style, s.server, words),
                text,
                _expand_params(s.style, pstr, r, p, rid, spec["fields"]),
            )

    for line in s.customs.strip().splitlines():
        line = line.strip()
        if not line:
            continue
        parts = line.split("|")
        name, desc = parts[0], parts[1]
        params = {}
        if len(parts) > 2 and parts[2]:
            for kv in parts[2].split(";"):
                k, _, v = kv.partition("=")
                params[_pname(s.style, k.strip())] = v.strip() or k.strip().replace("_", " ")
        add(name, desc, params)


def catalogue() -> list[dict]:
    out: list[dict] = []
    seen: set = set()
    for s in (_Server(*fields) for fields in (*SERVERS_A, *SERVERS_B)):
        _gen_server(s, out, seen)
    return out
