"""A second, blind evaluation set for tool search (``bench_search.py``): the catalogue.

Written on 2026-12-06 by an author who never saw the ranker, its tables or the first set
(``search_catalogue.py``, ``search_requests.py``), from a brief only: at least 5,000 realistic
tools over at least 22 services, named as real MCP servers name them (``snake_case``,
``camelCase``, ``kebab-case``, server-prefixed, resource-first), near-duplicate actions on purpose,
and requests in a person's words.  It holds 5,243 tools over 45 servers.  Kept fixed: the ranker
is measured on it, never the other way round (``search_blind_requests.py`` says which half was
looked at).  Standard library only, deterministic.

``catalogue()`` -> a list of ``{"server", "tool", "description", "params"}``.
"""

from __future__ import annotations

import re

# --------------------------------------------------------------------------
# Generic action vocabulary: key -> (verb words, suffix words, plural?, description, extra params)
# Descriptions use {r} (resource), {rs} (plural), {P} (product), {inp} (" in a <parent>" or "").
# Params: "ID" expands to "<resource>_id", "PARENT" to "<parent>_id", "FIELDS" to resource fields.
# --------------------------------------------------------------------------
_CORE = {
    "create": (
        "create",
        "",
        False,
        [
            "Creates a new {r}{inp}. Returns the created {r}, including its ID.",
            "Create a {r}{inp} in {P}.",
        ],
        "PARENT FIELDS",
    ),
    "get": (
        "get",
        "",
        False,
        [
            "Retrieves a single {r} by its ID, including all of its fields.",
            "Get the details of a specific {r} in {P}.",
        ],
        "ID",
    ),
    "list": (
        "list",
        "",
        True,
        [
            "Lists {rs}{inp}. Results are paginated; pass the returned cursor to fetch the next page.",
            "List {rs}{inp} in {P}, with optional simple filters.",
        ],
        "PARENT limit cursor",
    ),
    "search": (
        "search",
        "",
        True,
        [
            "Searches {rs} by free-text keywords and filters, returning the best matches first.",
            "Full-text search over {rs} in {P}.",
        ],
        "query filter limit",
    ),
    "update": (
        "update",
        "",
        False,
        [
            "Updates an existing {r}. Only the fields you pass are changed.",
            "Modify the properties of a {r} in {P}.",
        ],
        "ID FIELDS",
    ),
    "delete": (
        "delete",
        "",
        False,
        [
            "Permanently deletes a {r}. This cannot be undone.",
            "Delete a {r} from {P}. The {r} cannot be recovered afterwards.",
        ],
        "ID",
    ),
    "export": (
        "export",
        "",
        True,
        [
            "Exports {rs} matching a filter to a CSV or JSON file for reporting.",
            "Bulk-export {rs} from {P} as CSV or JSON.",
        ],
        "filter format",
    ),
    "count": (
        "count",
        "",
        True,
        [
            "Returns how many {rs} match a filter, without returning the records themselves.",
            "Count the {rs} in {P} that match the given criteria.",
        ],
        "filter",
    ),
    "history": (
        "get",
        "history",
        False,
        [
            "Returns the audit trail of a {r}: which fields changed, who changed them and when.",
            "Get the change log (audit history) of a {r} in {P}.",
        ],
        "ID since",
    ),
    "bulk_update": (
        "bulk update",
        "",
        True,
        [
            "Applies the same field changes to many {rs} at once, given a list of IDs.",
            "Batch-update several {rs} in {P} in a single call.",
        ],
        "ids FIELDS",
    ),
    "bulk_delete": (
        "bulk delete",
        "",
        True,
        [
            "Permanently deletes many {rs} at once, given a list of IDs.",
            "Batch-delete several {rs} from {P} in one call.",
        ],
        "ids",
    ),
    "import": (
        "import",
        "",
        True,
        [
            "Imports {rs} in bulk from a CSV or JSON file at a URL.",
            "Bulk-import {rs} into {P} from an uploaded file.",
        ],
        "file_url mapping",
    ),
}

_EXTRA = {
    "archive": (
        "archive",
        "",
        False,
        "Archives the {r}. Archived {rs} are hidden from default views but keep all their data and can be unarchived later.",
        "ID",
    ),
    "unarchive": (
        "unarchive",
        "",
        False,
        "Unarchives a previously archived {r}, making it active and visible again.",
        "ID",
    ),
    "restore": (
        "restore",
        "",
        False,
        "Restores a deleted {r} from the trash so it is available again.",
        "ID",
    ),
    "enable": ("enable", "", False, "Enables the {r} so it takes effect again.", "ID"),
    "disable": (
        "disable",
        "",
        False,
        "Disables the {r} without deleting it; its configuration is kept and it can be re-enabled.",
        "ID",
    ),
    "start": ("start", "", False, "Starts the {r}.", "ID"),
    "stop": (
        "stop",
        "",
        False,
        "Stops the {r}. It can be started again later; nothing is deleted.",
        "ID",
    ),
    "restart": (
        "restart",
        "",
        False,
        "Restarts the {r}, for example to pick up new configuration or recover from a bad state.",
        "ID",
    ),
    "reboot": (
        "reboot",
        "",
        False,
        "Reboots the {r}. Like pressing the reset button: disks and data are kept.",
        "ID",
    ),
    "terminate": (
        "terminate",
        "",
        False,
        "Terminates the {r}: it is shut down and permanently deleted together with its local storage.",
        "ID",
    ),
    "invite": (
        "invite",
        "",
        False,
        "Invites someone by email to become a {r}. They receive a link to accept the invitation.",
        "PARENT email role",
    ),
    "revoke": (
        "revoke",
        "",
        False,
        "Revokes the {r} immediately so it can no longer be used.",
        "ID",
    ),
    "rotate": (
        "rotate",
        "",
        False,
        "Rotates the {r}: generates a new version and retires the old one.",
        "ID",
    ),
    "assign": (
        "assign",
        "",
        False,
        "Assigns the {r} to a user or team, making them responsible for it.",
        "ID assignee",
    ),
    "approve": ("approve", "", False, "Approves the pending {r}.", "ID comment"),
    "reject": (
        "reject",
        "",
        False,
        "Rejects (declines) the pending {r}, optionally with a reason.",
        "ID reason",
    ),
    "merge": ("merge", "", False, "Merges the {r} into its target.", "ID merge_method"),
    "mergedup": (
        "merge",
        "",
        True,
        "Merges two or more duplicate {rs} into one. The duplicates are closed and linked to the surviving {r}.",
        "target_id source_ids",
    ),
    "close": ("close", "", False, "Closes the {r}. Closed {rs} can be reopened.", "ID"),
    "reopen": ("reopen", "", False, "Reopens a previously closed {r}.", "ID"),
    "upload": (
        "upload",
        "",
        False,
        "Uploads a local file as a new {r}{inp}.",
        "PARENT file_path name",
    ),
    "download": (
        "download",
        "",
        False,
        "Downloads the binary contents of the {r}.",
        "ID destination",
    ),
    "publish": ("publish", "", False, "Publishes the {r} so it becomes publicly visible.", "ID"),
    "unpublish": (
        "unpublish",
        "",
        False,
        "Unpublishes the {r}, hiding it from the public without deleting it.",
        "ID",
    ),
    "schedule": (
        "schedule",
        "",
        False,
        "Schedules the {r} to be sent or run at a specified future time.",
        "ID send_at",
    ),
    "cancel": ("cancel", "", False, "Cancels the {r}.", "ID reason"),
    "unsubscribe": (
        "unsubscribe",
        "",
        False,
        "Unsubscribes the {r} from future mailings. The record is kept but no more email is sent to it.",
        "ID",
    ),
    "tag": ("tag", "", False, "Adds one or more tags to the {r}.", "ID tags"),
    "label": ("label", "", False, "Adds one or more existing labels to the {r}.", "ID labels"),
    "move": (
        "move",
        "",
        False,
        "Moves the {r} to another location, such as a different folder, project or parent.",
        "ID destination_id",
    ),
    "copy": (
        "copy",
        "",
        False,
        "Creates a copy of the {r}, optionally in another location.",
        "ID destination_id name",
    ),
    "duplicate": (
        "duplicate",
        "",
        False,
        "Duplicates the {r}, creating an identical copy next to it.",
        "ID new_name",
    ),
    "clone": (
        "clone",
        "",
        False,
        "Clones the {r}, creating a new one with the same settings.",
        "ID new_name",
    ),
    "fork": (
        "fork",
        "",
        False,
        "Forks the {r} into another account or organization.",
        "ID destination_owner",
    ),
    "share": (
        "share",
        "",
        False,
        "Shares the {r} with a user, group or email address with a given role (viewer, commenter, editor).",
        "ID email role",
    ),
    "lock": (
        "lock",
        "",
        False,
        "Locks the {r} so it can no longer be changed (for conversations: no new comments).",
        "ID reason",
    ),
    "unlock": ("unlock", "", False, "Unlocks the {r}.", "ID"),
    "pause": ("pause", "", False, "Pauses the {r}. It can be resumed later.", "ID"),
    "resume": ("resume", "", False, "Resumes a paused {r}.", "ID"),
    "scale": ("scale", "", False, "Changes the size or replica count of the {r}.", "ID replicas"),
    "rollback": (
        "rollback",
        "",
        False,
        "Rolls the {r} back to a previous revision.",
        "ID revision",
    ),
    "acknowledge": (
        "acknowledge",
        "",
        False,
        "Acknowledges the {r}, signalling that someone is working on it and stopping further escalation.",
        "ID",
    ),
    "resolve": ("resolve", "", False, "Marks the {r} as resolved.", "ID resolution"),
    "snooze": (
        "snooze",
        "",
        False,
        "Snoozes the {r} for a period; it re-triggers when the snooze ends.",
        "ID duration",
    ),
    "mute": (
        "mute",
        "",
        False,
        "Mutes the {r} so it stops sending notifications, optionally until a given time.",
        "ID end",
    ),
    "unmute": ("unmute", "", False, "Unmutes the {r}, re-enabling its notifications.", "ID"),
    "sync": (
        "sync",
        "",
        False,
        "Synchronizes the {r} with its source, applying any differences.",
        "ID prune dry_run",
    ),
    "trigger": ("trigger", "", False, "Triggers a new run of the {r}.", "ID parameters"),
    "rerun": (
        "rerun",
        "",
        False,
        "Re-runs the {r}, optionally only its failed jobs.",
        "ID failed_only",
    ),
    "abort": ("abort", "", False, "Aborts the {r} while it is running.", "ID"),
    "send": ("send", "", False, "Sends the {r}.", "ID"),
    "post": ("post", "", False, "Posts a new {r}{inp}.", "PARENT text"),
    "test": ("test", "", False, "Sends a test event to the {r} to check that it works.", "ID"),
    "verify": ("verify", "", False, "Starts or re-checks verification of the {r}.", "ID"),
    "suspend": (
        "suspend",
        "",
        False,
        "Suspends the {r}. A suspended {r} is temporarily blocked but can be unsuspended.",
        "ID",
    ),
    "unsuspend": ("unsuspend", "", False, "Lifts the suspension on the {r}.", "ID"),
    "activate": ("activate", "", False, "Activates the {r}.", "ID"),
    "deactivate": ("deactivate", "", False, "Deactivates the {r}.", "ID"),
    "reset_password": (
        "reset",
        "password",
        False,
        "Resets the {r}'s password and emails them a link to choose a new one.",
        "ID send_email",
    ),
    "expire_password": (
        "expire",
        "password",
        False,
        "Expires the {r}'s current password, forcing a change at next sign-in.",
        "ID",
    ),
    "pin": ("pin", "", False, "Pins the {r} to the top of its {p}.", "ID"),
    "unpin": ("unpin", "", False, "Unpins the {r}.", "ID"),
    "star": ("star", "", False, "Stars the {r} for the current user.", "ID"),
    "watch": ("watch", "", False, "Starts watching the {r} to get notified about changes.", "ID"),
    "unwatch": ("unwatch", "", False, "Stops watching the {r}.", "ID"),
    "transition": (
        "transition",
        "",
        False,
        "Transitions the {r} to another workflow status (for example To Do, In Progress, Done).",
        "ID status",
    ),
    "void": (
        "void",
        "",
        False,
        "Voids the {r}. It stays on record but is marked void and can no longer be paid or signed.",
        "ID",
    ),
    "finalize": (
        "finalize",
        "",
        False,
        "Finalizes a draft {r} so it can be paid; it can no longer be edited.",
        "ID",
    ),
    "capture": (
        "capture",
        "",
        False,
        "Captures funds previously authorized on the {r}.",
        "ID amount",
    ),
    "confirm": (
        "confirm",
        "",
        False,
        "Confirms the {r}, attempting the payment.",
        "ID payment_method",
    ),
    "ban": (
        "ban",
        "",
        False,
        "Bans the {r} from the {p}; they cannot rejoin until unbanned.",
        "ID reason",
    ),
    "unban": ("unban", "", False, "Lifts a ban on the {r}.", "ID"),
    "kick": (
        "kick",
        "",
        False,
        "Removes the {r} from the {p}. They can rejoin with a new invite.",
        "ID reason",
    ),
    "timeout": (
        "timeout",
        "",
        False,
        "Temporarily prevents the {r} from sending messages or joining voice.",
        "ID duration",
    ),
    "attach": ("attach", "", False, "Attaches the {r} to a target resource.", "ID target_id"),
    "detach": ("detach", "", False, "Detaches the {r} from the resource it is attached to.", "ID"),
    "release": ("release", "", False, "Marks the {r} as released (shipped).", "ID release_date"),
    "rename": ("rename", "", False, "Renames the {r}.", "ID new_name"),
    "join": ("join", "", False, "Joins the {r} as the current user.", "ID"),
    "leave": ("leave", "", False, "Leaves the {r} as the current user.", "ID"),
    "add": ("add", "", False, "Adds a {r}{top}.", "PARENT name"),
    "remove": ("remove", "", False, "Removes a {r}{fromp}.", "PARENT name"),
    "launch": (
        "launch",
        "",
        False,
        "Launches a new {r} from an image with the given type, subnet and key pair.",
        "image_id instance_type subnet_id key_name count",
    ),
    "complete": ("complete", "", False, "Marks the {r} as complete.", "ID"),
    "refresh": (
        "refresh",
        "",
        False,
        "Refreshes the {r}, recomputing its contents.",
        "ID concurrently",
    ),
    "cordon": (
        "cordon",
        "",
        False,
        "Marks the {r} unschedulable so no new workloads are placed on it.",
        "ID",
    ),
    "uncordon": ("uncordon", "", False, "Marks the {r} schedulable again.", "ID"),
    "drain": (
        "drain",
        "",
        False,
        "Safely evicts all workloads from the {r} (and cordons it) before maintenance.",
        "ID grace_period",
    ),
    "renew": ("renew", "", False, "Renews the {r}, extending its lifetime.", "ID increment"),
    "dismiss": ("dismiss", "", False, "Dismisses the {r}.", "ID message"),
    "submit": ("submit", "", False, "Submits the {r}.", "ID"),
    "request_review": (
        "request",
        "review",
        False,
        "Requests a review of the {r} from specific users or teams.",
        "ID reviewers",
    ),
    "mark_read": ("mark", "as read", False, "Marks the {r} as read.", "ID"),
    "mark_unread": ("mark", "as unread", False, "Marks the {r} as unread.", "ID"),
    "mark_spam": (
        "mark",
        "as spam",
        False,
        "Reports the {r} as spam and moves it to the spam folder.",
        "ID",
    ),
    "trash": (
        "trash",
        "",
        False,
        "Moves the {r} to the trash. Trashed items are deleted for good after 30 days.",
        "ID",
    ),
    "untrash": ("untrash", "", False, "Takes the {r} out of the trash.", "ID"),
    "install": ("install", "", False, "Installs the {r}.", "name version"),
    "uninstall": ("uninstall", "", False, "Uninstalls the {r}.", "ID"),
    "purchase": ("purchase", "", False, "Purchases (provisions) a new {r}.", "number"),
    "deregister": (
        "deregister",
        "",
        False,
        "Deregisters the {r} so it can no longer be used to launch anything.",
        "ID",
    ),
    "allocate": ("allocate", "", False, "Allocates a new {r} to the account.", "domain"),
    "associate": (
        "associate",
        "",
        False,
        "Associates the {r} with a target resource.",
        "ID target_id",
    ),
    "disassociate": ("disassociate", "", False, "Disassociates the {r} from its target.", "ID"),
    "escalate": (
        "escalate",
        "",
        False,
        "Escalates the {r} to the next level of its escalation policy.",
        "ID level",
    ),
    "reassign": (
        "reassign",
        "",
        False,
        "Reassigns the {r} to a different user or escalation policy.",
        "ID assignee",
    ),
    "expire": ("expire", "", False, "Expires the {r} immediately.", "ID"),
    "solve": ("solve", "", False, "Marks the {r} as solved.", "ID"),
    "protect": (
        "protect",
        "",
        False,
        "Adds protection rules to the {r} (required reviews, status checks, no force-push).",
        "ID rules",
    ),
    "apply": (
        "apply",
        "",
        False,
        "Applies the {r} and returns the resulting changes.",
        "ID target_id",
    ),
    "deploy": ("deploy", "", False, "Deploys the {r} to production.", "ID"),
    "bookmark": ("bookmark", "", False, "Bookmarks the {r} for the current user.", "ID"),
    "end": ("end", "", False, "Ends the {r} for all participants.", "ID"),
    "resend": (
        "resend",
        "",
        False,
        "Resends the {r} to recipients who have not completed it yet.",
        "ID",
    ),
    "run": ("run", "", False, "Runs the {r}.", "ID variables"),
    "discard": ("discard", "", False, "Discards the {r} so it is not applied.", "ID comment"),
    "enroll": ("enroll", "", False, "Enrolls a new {r}.", "PARENT type"),
}

_MODES = {
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
        actions = [a for a in _MODES[spec["mode"]].split() + spec["plus"] if a not in spec["minus"]]
        for a in actions:
            if a in _CORE:
                verb, suffix, plural, descs, pstr = _CORE[a]
                desc = descs[s.variant]
            else:
                verb, suffix, plural, desc, pstr = _EXTRA[a]
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


# --------------------------------------------------------------------------
# Servers. Resource lines: name[@parent] [!mode] [+extra,..] [-drop,..] [~fields,..] [%action=verb,..]
# Custom lines: tool|description|param=doc;param=doc
# --------------------------------------------------------------------------
_SERVERS = [
    _Server(
        "jira",
        "Jira",
        "camel",
        """
        issue@project +archive,assign,transition,clone,move,watch,unwatch,label ~summary,issue_type,priority,assignee,description
        issue_comment@issue !crud ~body,visibility; issue_attachment@issue !min +upload,download,delete
        issue_link@issue !crud ~link_type,inward_issue,outward_issue
        epic@project !std +close,reopen ~name,summary
        sprint@board !std +start,close ~name,goal,start_date,end_date; board@project !crud
        project !full +archive,restore ~key,name,lead,project_type; component@project !std ~name,lead
        version@project !std +release,archive ~name,release_date
        worklog@issue !crud ~time_spent,started,comment; filter !std +share ~name,jql
        dashboard !std +share,copy; workflow !std +publish; workflow_scheme !crud; custom_field !std
        screen !crud; priority !crud; resolution !crud; issue_type !crud; user !ro +deactivate
        group !crud; permission_scheme !crud; notification_scheme !crud; issue_security_level !min
    """,
        """
        getCurrentUser|Returns the Jira user that the API token belongs to.|
        getIssueTransitions|Lists the workflow transitions currently available for an issue.|issue_id
        rankIssues|Reorders issues in the backlog, placing them before or after another issue.|issue_ids;rank_before
        moveIssuesToSprint|Moves one or more issues into a sprint.|sprint_id;issue_ids
        getBoardBacklog|Returns the issues in a board's backlog that are not in any sprint.|board_id
        getSprintReport|Returns completed, incomplete and removed issues for a sprint.|sprint_id
        getVelocityReport|Returns committed vs completed story points for the last sprints of a board.|board_id
    """,
    ),
    _Server(
        "github",
        "GitHub",
        "snake",
        """
        repository !full +archive,unarchive,fork,star,rename ~name,description,private
        branch@repository !min +create,delete,rename,protect
        pull_request@repository !std +merge,close,reopen,request_review,lock ~title,head,base,body,draft
        pull_request_review@pull_request !min +create,submit,dismiss ~event,body
        pull_request_comment@pull_request !crud ~body,path,line
        issue@repository !full +close,reopen,lock,unlock,assign,label ~title,body,labels,assignees
        issue_comment@issue !crud ~body; label@repository !crud ~name,color
        milestone@repository !crud +close ~title,due_on
        release@repository !std +publish ~tag_name,name,body; tag@repository !min +create,delete
        commit@repository !ro; file@repository !min +update,delete; gist !std +fork,star
        webhook@repository !crud +test; deploy_key@repository !min +create,delete
        collaborator@repository !min +invite,remove; team !crud; team_member@team !min +add,remove
        workflow@repository !min +enable,disable,trigger
        workflow_run@repository !min +cancel,rerun,delete
        actions_secret@repository !min +create,update,delete; environment@repository !crud
        discussion@repository !std +lock,close; project_board !crud
        code_scanning_alert@repository !ro +dismiss; dependabot_alert@repository !ro +dismiss
    """,
        """
        get_me|Get details of the authenticated GitHub user.|
        search_code|Search for code across GitHub repositories using GitHub code search syntax.|query;per_page
        compare_commits|Compares two commits, branches or tags and returns the commits and diff between them.|base;head
        download_workflow_run_logs|Downloads the log archive for a GitHub Actions workflow run.|workflow_run_id
        get_pull_request_diff|Returns the unified diff of a pull request.|pull_request_id
        list_pull_request_files|Lists the files changed in a pull request.|pull_request_id
        get_pull_request_status|Returns the combined CI status checks for the head commit of a pull request.|pull_request_id
        update_pull_request_branch|Updates the pull request branch with the latest changes from the base branch.|pull_request_id
    """,
    ),
    _Server(
        "slack",
        "Slack",
        "prefix",
        """
        channel !std +archive,unarchive,rename,join,leave ~name,is_private,topic
        message@channel !min +post,update,delete,pin,unpin,search; thread_reply@message !min +post
        reaction@message !min +add,remove; user !ro; user_group !crud +enable,disable
        reminder !crud +complete ~text,time,user; bookmark@channel !crud
        file !min +upload,delete,share; canvas !std; scheduled_message@channel !min +delete
        workflow !min
    """,
        """
        slack_send_direct_message|Sends a direct message (DM) to a single user, opening a DM conversation if needed.|user_id;text
        slack_schedule_message|Schedules a message to be posted to a channel at a future time.|channel_id;text;post_at
        slack_set_channel_topic|Sets the topic shown at the top of a channel.|channel_id;topic
        slack_invite_to_channel|Invites one or more workspace members to a channel.|channel_id;user_ids
        slack_remove_from_channel|Removes a member from a channel.|channel_id;user_id
        slack_list_channel_members|Lists the members of a channel.|channel_id
        slack_set_status|Sets the current user's status text and emoji, optionally with an expiry time.|status_text;status_emoji;expiration
        slack_get_user_presence|Returns whether a user is currently active or away.|user_id
        slack_snooze_notifications|Turns on Do Not Disturb for the current user for a number of minutes.|num_minutes
        slack_end_snooze|Ends Do Not Disturb for the current user early.|
        slack_get_permalink|Returns a permanent link to a specific message.|channel_id;message_ts
        slack_add_custom_emoji|Uploads a custom emoji image to the workspace.|name;image_url
        slack_list_custom_emoji|Lists the workspace's custom emoji.|
    """,
    ),
    _Server(
        "discord",
        "Discord",
        "kebab",
        """
        guild !min +leave; channel@guild !crud; message@channel !min +delete,search
        thread@channel !crud +archive,lock,join,leave; role@guild !crud
        member@guild !ro +kick,ban,unban,timeout; invite@channel !min +create,delete ~max_age,max_uses
        webhook@channel !crud; scheduled_event@guild !std; emoji@guild !crud; sticker@guild !crud
        audit_log@guild !min; auto_moderation_rule@guild !crud +enable,disable; stage_instance !crud
    """,
        """
        send-message|Sends a message to a Discord channel.|channel_id;content;embeds
        edit-message|Edits a message previously sent by the bot.|channel_id;message_id;content
        bulk-delete-messages|Deletes up to 100 recent messages from a channel in one call.|channel_id;message_ids
        add-member-role|Gives a role to a guild member.|guild_id;user_id;role_id
        remove-member-role|Takes a role away from a guild member.|guild_id;user_id;role_id
    """,
    ),
    _Server(
        "gmail",
        "Gmail",
        "prefix",
        """
        message !ro +trash,untrash,delete,mark_read,mark_unread,mark_spam,archive; draft !crud +send ~to,subject,body
        label !crud; thread !min +trash,untrash,archive; filter !crud ~criteria,action
        attachment@message !min +download; forwarding_address !crud; send_as_alias !crud +verify
        delegate !min +add,remove
    """,
        """
        gmail_send_message|Sends an email from the user's Gmail account to one or more recipients.|to;cc;subject;body;attachments
        gmail_reply_to_message|Sends a reply in the same thread as an existing message.|message_id;body;reply_all
        gmail_forward_message|Forwards a message to other recipients.|message_id;to
        gmail_get_vacation_responder|Returns the current auto-reply (vacation responder) settings.|
        gmail_set_vacation_responder|Turns the auto-reply (vacation responder / out-of-office message) on or off and sets its text and dates.|enabled;subject;body;start;end
        gmail_update_signature|Updates the email signature used for outgoing mail.|signature
        gmail_get_profile|Returns the Gmail address and mailbox totals of the user.|
    """,
    ),
    _Server(
        "sendgrid",
        "SendGrid",
        "snake",
        """
        template !std +duplicate; template_version@template !crud +activate
        contact !full +unsubscribe ~email,first_name,last_name,list_ids; contact_list !crud
        segment !crud; sender_identity !crud +verify
        campaign !std +schedule,send,duplicate ~subject,sender_id,list_ids,html; api_key !crud
        ip_pool !crud; unsubscribe_group !crud; domain_authentication !crud +verify
        event_webhook !crud +test
    """,
        """
        send_email|Sends a transactional email through SendGrid to one or more recipients.|to;from;subject;html;text
        send_template_email|Sends an email rendered from a dynamic template with the given data.|template_id;to;dynamic_data
        get_email_stats|Returns delivery, open, click and bounce statistics for a date range.|start_date;end_date
        list_bounces|Lists email addresses that hard-bounced.|start_time;end_time
        delete_bounce|Removes an address from the bounce list so mail is delivered to it again.|email
        list_spam_reports|Lists recipients who marked your email as spam.|
        validate_email_address|Checks whether an email address is valid and deliverable.|email
    """,
    ),
    _Server(
        "twilio",
        "Twilio",
        "camel",
        """
        message !ro +delete; call !ro; phone_number !min +purchase,update; messaging_service !crud
        recording !min +delete,download; conference !ro; conference_participant@conference !min +kick
        verify_service !crud; sip_domain !crud; subaccount !crud +suspend; usage_record !min
    """,
        """
        sendSms|Sends an SMS text message from one of your Twilio numbers to a phone number.|to;from;body
        sendWhatsappMessage|Sends a WhatsApp message via an approved Twilio sender.|to;from;body
        makeCall|Places an outbound voice call to a phone number and plays TwiML or a spoken message.|to;from;twiml
        hangupCall|Ends an in-progress call.|call_sid
        releasePhoneNumber|Releases a phone number you own back to Twilio; you stop being billed for it.|phone_number_sid
        searchAvailablePhoneNumbers|Finds phone numbers available to buy, by country, area code or pattern.|country;area_code;contains
        startVerification|Sends a one-time verification code by SMS, voice or email.|service_sid;to;channel
        checkVerification|Checks a one-time code the user entered.|service_sid;to;code
        lookupPhoneNumber|Returns carrier and caller-name information for a phone number.|phone_number
    """,
    ),
    _Server(
        "gcal",
        "Google Calendar",
        "snake",
        """
        event@calendar !full +move ~summary,start,end,attendees,location; calendar !std
        event_attachment@event !min +add,remove; calendar_list_entry !crud; setting !min; color !min
    """,
        """
        respond_to_event|Sets the current user's RSVP (accept, decline, tentative) for an event invitation.|event_id;response
        query_free_busy|Returns busy time intervals for a set of calendars over a time range.|calendar_ids;time_min;time_max
        find_meeting_times|Suggests time slots when all of the given attendees are free for a meeting of a given length.|attendees;duration_minutes;window_start;window_end
        add_attendee|Adds a guest to an existing event and sends them an invitation.|event_id;email
        remove_attendee|Removes a guest from an event.|event_id;email
        list_event_instances|Lists the individual occurrences of a recurring event.|event_id
        share_calendar|Shares a calendar with a person or group with a role: see free/busy, read, edit or manage.|calendar_id;email;role
        unshare_calendar|Removes a person's access to a calendar.|calendar_id;email
        list_calendar_sharing|Lists who a calendar is shared with and their roles.|calendar_id
        set_working_hours|Sets the working hours shown to others when they schedule meetings with you.|days;start;end
    """,
    ),
    _Server(
        "gdrive",
        "Google Drive",
        "kebab",
        """
        file !full +upload,download,copy,move,share,trash,untrash,star,rename,lock
        folder !std +share,move,trash,rename; permission@file !crud ~role,type,email
        comment@file !crud +resolve ~content; reply@comment !crud; revision@file !ro +download
        shared_drive !crud; shortcut !crud
    """,
        """
        restore-revision|Reverts a file to an earlier revision, making that version the current one.|file_id;revision_id
        convert-file|Exports a Google Docs, Sheets or Slides file to another format such as PDF or DOCX.|file_id;mime_type
        get-storage-quota|Returns how much Drive storage is used and how much is left.|
        empty-trash|Permanently deletes every file in the trash.|
        transfer-ownership|Transfers ownership of a file to another user.|file_id;new_owner_email
    """,
    ),
    _Server(
        "s3",
        "Amazon S3",
        "resfirst",
        """
        bucket !std; object@bucket !std +upload,download,copy,move,tag -create,update
        bucket_policy@bucket !min +update,delete
        lifecycle_rule@bucket !crud ~prefix,expiration_days,transition_storage_class
        cors_rule@bucket !crud; replication_rule@bucket !crud; access_point !crud
        inventory_configuration@bucket !crud; multipart_upload@bucket !min +abort,complete
        object_lock_configuration@bucket !min +update; storage_lens_dashboard !crud
        batch_job !crud +cancel
    """,
        """
        presigned_url_create|Generates a time-limited pre-signed URL that lets anyone download (or upload) a specific object without AWS credentials.|bucket;key;expires_in;method
        bucket_versioning_enable|Turns on versioning for a bucket so overwritten and deleted objects are kept.|bucket
        bucket_versioning_suspend|Suspends versioning for a bucket.|bucket
        bucket_public_access_block|Blocks all public access to a bucket.|bucket
        bucket_size_get|Returns total size in bytes and object count for a bucket.|bucket
    """,
    ),
    _Server(
        "cloudflare",
        "Cloudflare",
        "resfirst",
        """
        zone !std; dns_record@zone !full ~type,name,content,ttl,proxied; page_rule@zone !crud
        firewall_rule@zone !crud ~expression,action,description; worker !std +deploy
        worker_route@zone !crud; kv_namespace !crud; ssl_certificate@zone !min +delete
        custom_hostname@zone !crud; load_balancer@zone !crud; load_balancer_pool !crud
        health_check@zone !crud; rate_limit_rule@zone !crud; access_application !crud
        access_policy@access_application !crud; tunnel !crud; r2_bucket !crud; pages_project !crud
        pages_deployment@pages_project !min +rollback,delete
    """,
        """
        cache_purge|Purges cached content for a zone: everything, or only specific URLs, hostnames, tags or prefixes.|zone_id;purge_everything;files;tags
        zone_development_mode_enable|Turns on Development Mode, temporarily bypassing the cache so changes at the origin are visible immediately.|zone_id
        zone_development_mode_disable|Turns off Development Mode for a zone.|zone_id
        zone_analytics_get|Returns requests, bandwidth, threats and cache ratio for a zone over a time range.|zone_id;since;until
        zone_security_level_set|Sets the security level (off, low, medium, high, under_attack) for a zone.|zone_id;level
    """,
    ),
    _Server(
        "fastly",
        "Fastly",
        "kebab",
        """
        service !std +clone; service_version@service !min +create,activate,deactivate,clone,lock
        backend@service !crud ~address,port,use_ssl; domain@service !crud; vcl_snippet@service !crud
        dictionary@service !crud; dictionary_item@dictionary !crud; tls_certificate !crud
        tls_subscription !crud; logging_endpoint@service !crud; healthcheck@service !crud
        condition@service !crud; header@service !crud
    """,
        """
        purge-url|Purges a single URL from the Fastly cache.|url;soft
        purge-all|Purges all cached content for a service.|service_id
        purge-surrogate-key|Purges all cached objects tagged with a surrogate key.|service_id;key;soft
        get-service-stats|Returns request, bandwidth and hit-ratio stats for a service.|service_id;from;to
        check-edge-caching|Shows how a URL is cached across Fastly POPs.|url
    """,
    ),
    _Server(
        "kubernetes",
        "Kubernetes",
        "snake",
        """
        pod@namespace !ro +delete %get=describe
        deployment@namespace !std +scale,restart,rollback,pause,resume %get=describe
        service@namespace !crud %get=describe; namespace !crud %get=describe
        config_map@namespace !crud; secret@namespace !crud; ingress@namespace !crud
        node !ro +cordon,uncordon,drain %get=describe; stateful_set@namespace !crud +scale,restart
        daemon_set@namespace !crud +restart; job@namespace !crud
        cron_job@namespace !crud +suspend,resume,trigger; persistent_volume_claim@namespace !crud
        persistent_volume !ro +delete; horizontal_pod_autoscaler@namespace !crud
        service_account@namespace !crud; role_binding@namespace !crud; cluster_role !crud
        network_policy@namespace !crud; event@namespace !min; custom_resource_definition !ro
        storage_class !crud
    """,
        """
        get_pod_logs|Fetches logs from a container in a pod, optionally only the last N lines or the previous crashed container.|namespace;pod;container;tail_lines;previous
        exec_in_pod|Runs a command inside a running container and returns its output.|namespace;pod;command
        port_forward|Forwards a local port to a port on a pod.|namespace;pod;local_port;remote_port
        apply_manifest|Creates or updates resources from a YAML manifest (kubectl apply).|manifest;namespace
        get_rollout_status|Shows the progress of a deployment rollout.|namespace;deployment
        top_pods|Shows CPU and memory usage of pods.|namespace
        top_nodes|Shows CPU and memory usage of nodes.|
        switch_context|Switches the active kubeconfig context to another cluster.|context
    """,
    ),
    _Server(
        "ec2",
        "Amazon EC2",
        "camel",
        """
        instance !std +launch,start,stop,reboot,terminate -create,delete
        volume !std +attach,detach ~size_gb,volume_type,availability_zone
        snapshot !std +copy ~volume_id,description; security_group !std ~name,description,vpc_id
        key_pair !crud -update; image !std +copy,deregister
        elastic_ip !min +allocate,associate,disassociate; launch_template !std
        auto_scaling_group !std +scale; vpc !std; subnet@vpc !std; route_table@vpc !crud
        internet_gateway !crud +attach,detach; nat_gateway !crud
        network_interface !crud +attach,detach; placement_group !crud
        spot_instance_request !crud +cancel; reserved_instance !ro
    """,
        """
        authorizeSecurityGroupIngress|Adds an inbound rule to a security group allowing traffic on a port range from a CIDR block or another group.|group_id;protocol;port;cidr
        revokeSecurityGroupIngress|Removes an inbound rule from a security group.|group_id;protocol;port;cidr
        getConsoleOutput|Returns the serial console output of an instance, useful for debugging boot problems.|instance_id
        modifyInstanceType|Changes the instance type (size) of a stopped instance.|instance_id;instance_type
        releaseAddress|Releases an Elastic IP address back to AWS.|allocation_id
    """,
    ),
    _Server(
        "postgres",
        "PostgreSQL",
        "snake",
        """
        database !crud %get=describe; schema@database !crud
        table@schema !std +rename -search %get=describe; column@table !crud; index@table !crud
        view@schema !crud; materialized_view@schema !crud +refresh; role !crud
        extension@database !min +install,uninstall; function@schema !crud
        trigger@table !crud +enable,disable; sequence@schema !crud; backup !crud
        replication_slot !crud; publication !crud; subscription !crud; connection !ro; slow_query !ro
        tablespace !crud
    """,
        """
        run_query|Executes a SQL statement against the database and returns the resulting rows.|sql;database;params
        explain_query|Returns the query plan (EXPLAIN ANALYZE) for a SQL statement.|sql
        grant_privileges|Grants privileges (SELECT, INSERT, ...) on tables or schemas to a role.|role;privileges;on
        revoke_privileges|Revokes privileges on tables or schemas from a role.|role;privileges;on
        terminate_connection|Terminates a backend connection by its process ID (pg_terminate_backend).|pid
        cancel_query|Cancels the query currently running in a backend without closing its connection.|pid
        restore_backup|Restores a database from a backup into a new or existing database.|backup_id;target_database
        vacuum_table|Runs VACUUM (optionally ANALYZE or FULL) on a table to reclaim space and update statistics.|table;analyze;full
        get_table_size|Returns the on-disk size of a table including indexes.|table
        list_locks|Lists locks currently held or awaited.|
    """,
    ),
    _Server(
        "mongodb",
        "MongoDB Atlas",
        "kebab",
        """
        database !crud; collection@database !std +rename
        document@collection !std %create=insert ~document; index@collection !crud; database_user !crud
        cluster !std +pause,resume,scale; ip_access_list_entry !crud ~cidr_block,comment
        backup_snapshot@cluster !crud; restore_job@cluster !crud +cancel; search_index@collection !crud
        alert_configuration !crud +enable,disable; project !crud; api_key !crud
    """,
        """
        aggregate|Runs an aggregation pipeline on a collection and returns the results.|database;collection;pipeline
        run-command|Runs an arbitrary database command.|database;command
        get-collection-stats|Returns document count, storage size and index sizes of a collection.|database;collection
    """,
    ),
    _Server(
        "stripe",
        "Stripe",
        "snake",
        """
        customer !full ~email,name,description; payment_intent !std +confirm,capture,cancel
        charge !ro +capture; refund !crud +cancel -delete ~charge,payment_intent,amount,reason
        invoice !std +finalize,void,send; invoice_item !crud; subscription !std +cancel,pause,resume
        subscription_item@subscription !crud; price !std +archive -delete; product !std +archive
        coupon !crud; promotion_code !crud; payout !ro +create,cancel; dispute !ro +update,close
        payment_link !crud +deactivate ~price,quantity; tax_rate !crud; webhook_endpoint !crud
        balance_transaction !ro; checkout_session !crud +expire; setup_intent !crud +confirm,cancel
        payment_method !ro +attach,detach; credit_note !crud +void; quote !crud +finalize,cancel
    """,
        """
        get_balance|Retrieves the current Stripe account balance, split into available and pending funds.|
        create_usage_record|Reports metered usage for a subscription item.|subscription_item_id;quantity;timestamp
    """,
    ),
    _Server(
        "hubspot",
        "HubSpot",
        "prefix",
        """
        contact !full +mergedup ~email,firstname,lastname,company,lifecyclestage; company !full
        deal !full ~dealname,amount,pipeline,dealstage; pipeline !crud; pipeline_stage@pipeline !crud
        note !std ~body,associated_record_id; task !std +complete ~subject,due_date,owner; meeting !std
        call !std; owner !ro; contact_list !crud; form !crud; form_submission@form !min; product !crud
        quote !crud; line_item !crud; property !crud; workflow !crud +enable,disable
        marketing_email !crud
    """,
        """
        hubspot_move_deal_stage|Moves a deal to a different stage of its pipeline, e.g. from Proposal to Closed Won.|deal_id;stage_id
        hubspot_associate_records|Creates an association between two CRM records, e.g. a contact and a company.|from_object;from_id;to_object;to_id
        hubspot_add_contact_to_list|Adds contacts to a static contact list.|list_id;contact_ids
    """,
    ),
    _Server(
        "okta",
        "Okta",
        "camel",
        """
        user !full +activate,deactivate,suspend,unsuspend,unlock,reset_password,expire_password ~email,first_name,last_name,login
        group !std; group_rule !crud +activate,deactivate; application !std +activate,deactivate
        authorization_server !crud +activate,deactivate
        authorization_policy@authorization_server !crud; factor@user !min +enroll,delete
        identity_provider !crud +activate,deactivate; policy !crud +activate,deactivate
        network_zone !crud +activate,deactivate; api_token !min +revoke; trusted_origin !crud
        event_hook !crud +verify; inline_hook !crud; brand !crud; domain !crud +verify
    """,
        """
        addUserToGroup|Adds a user to a group.|group_id;user_id
        removeUserFromGroup|Removes a user from a group.|group_id;user_id
        assignUserToApplication|Assigns an application to a user so it appears on their dashboard and they can sign in to it.|app_id;user_id
        unassignUserFromApplication|Removes a user's assignment to an application.|app_id;user_id
        revokeUserSessions|Signs a user out of all active sessions on all devices and apps.|user_id;oauth_tokens
        resetUserFactors|Resets all MFA factors of a user so they must enroll again.|user_id
        getSystemLogs|Queries the Okta System Log for audit events such as sign-ins and admin actions.|since;filter
        listUserGroups|Lists the groups a user belongs to.|user_id
        listGroupMembers|Lists the users in a group.|group_id
    """,
    ),
    _Server(
        "vault",
        "HashiCorp Vault",
        "kebab",
        """
        policy !crud %create=write,get=read; token !min +create,revoke,renew; token_role !crud
        lease !min +revoke,renew; transit_key !crud +rotate; auth_method !min +enable,disable
        secrets_engine !min +enable,disable; approle_role !crud; database_connection !crud
        database_role !crud; pki_role !crud; audit_device !min +enable,disable; namespace !crud
        entity !crud; entity_alias@entity !crud; group !crud
    """,
        """
        read-secret|Reads a secret (all of its key/value pairs) at a path in the KV secrets engine.|path;version
        write-secret|Creates or updates a secret at a path in the KV secrets engine, creating a new version.|path;data
        list-secrets|Lists secret names under a path.|path
        delete-secret|Soft-deletes the latest version of a secret; it can be undeleted.|path
        undelete-secret|Restores soft-deleted versions of a secret.|path;versions
        destroy-secret-versions|Permanently destroys specific versions of a secret; they can never be recovered.|path;versions
        encrypt-data|Encrypts plaintext with a named transit key.|key;plaintext
        decrypt-data|Decrypts ciphertext with a named transit key.|key;ciphertext
        generate-database-credentials|Generates a short-lived database username and password from a database role.|role
        issue-certificate|Issues a new TLS certificate from a PKI role.|role;common_name;ttl
        revoke-certificate|Revokes a certificate by serial number.|serial_number
        get-seal-status|Returns whether Vault is sealed and its unseal progress.|
    """,
    ),
    _Server(
        "datadog",
        "Datadog",
        "snake",
        """
        monitor !full +mute,unmute,clone ~name,type,query,message,thresholds; dashboard !std +clone
        downtime !crud +cancel -delete ~scope,start,end,message; slo !std
        synthetic_test !std +pause,resume,trigger; notebook !crud; metric !ro +update; event !ro
        log_pipeline !crud; log_index !crud; log_archive !crud; service_definition !crud; api_key !crud
        application_key !crud; role !crud; user !std +disable; team !crud
        security_monitoring_rule !crud; security_signal !ro; host !ro +mute,unmute
    """,
        """
        query_metrics|Queries timeseries metric data, e.g. avg:system.cpu.user{host:web-1}, over a time range.|query;from;to
        search_logs|Searches log events by query and time range.|query;from;to;limit
        aggregate_logs|Computes counts or metrics over logs grouped by facets.|query;group_by;compute
        submit_metric|Submits custom metric data points.|metric;points;tags
        post_event|Posts an event to the Datadog event stream, e.g. a deploy marker.|title;text;tags
        list_active_alerts|Lists monitors that are currently in Alert or Warn state.|tags
    """,
    ),
    _Server(
        "pagerduty",
        "PagerDuty",
        "resfirst",
        """
        incident !std +acknowledge,resolve,snooze,reassign,escalate,mergedup -delete ~title,service_id,urgency,body
        incident_note@incident !min +create; service !std +enable,disable; escalation_policy !crud
        schedule !crud; schedule_override@schedule !crud ~start,end,user_id; maintenance_window !crud
        team !crud; user !crud; alert@incident !ro +resolve; business_service !crud; priority !min
        response_play !crud; event_orchestration !crud; status_page_post !crud; extension !crud
        addon !crud; vendor !min
    """,
        """
        oncall_list|Lists who is on call right now (or in a time window) for given schedules or escalation policies.|schedule_ids;escalation_policy_ids;since;until
        event_send|Sends a trigger, acknowledge or resolve event to a service integration via the Events API v2.|routing_key;event_action;summary;severity
        incident_responder_request|Requests additional responders (users or escalation policies) to join an incident.|incident_id;responders;message
    """,
    ),
    _Server(
        "confluence",
        "Confluence",
        "camel",
        """
        page@space !full +move,copy,archive,restore,watch ~title,body,parent_page_id
        space !std +archive; page_comment@page !crud +resolve ~body; inline_comment@page !crud +resolve
        attachment@page !min +upload,download,delete; page_label@page !min +add,remove
        blog_post@space !std; template@space !crud; page_version@page !min
        page_restriction@page !min +add,remove; space_permission@space !min +add,remove
        whiteboard@space !crud; content_property@page !crud; user !ro; group !min
    """,
        """
        restorePageVersion|Reverts a page to an earlier version, making that version current.|page_id;version_number
        getPageChildren|Lists the child pages of a page.|page_id
        exportPageAsPdf|Exports a page to a PDF file.|page_id
    """,
    ),
    _Server(
        "sheets",
        "Google Sheets",
        "prefix",
        """
        spreadsheet !std +copy; sheet@spreadsheet !crud +duplicate,rename; chart@sheet !crud
        named_range@spreadsheet !crud; filter_view@sheet !crud; pivot_table@sheet !crud
        conditional_format_rule@sheet !crud; protected_range@sheet !crud
        data_validation_rule@sheet !crud; developer_metadata@spreadsheet !crud
    """,
        """
        sheets_read_range|Reads cell values from a range in A1 notation, e.g. 'Budget!A1:D20'.|spreadsheet_id;range
        sheets_write_range|Writes values to a range, overwriting the existing cells.|spreadsheet_id;range;values
        sheets_append_rows|Appends rows after the last row of data in a sheet.|spreadsheet_id;range;values
        sheets_clear_range|Clears the values in a range but keeps its formatting.|spreadsheet_id;range
        sheets_sort_range|Sorts the rows of a range by one or more columns.|spreadsheet_id;range;sort_specs
        sheets_format_cells|Applies formatting (bold, colours, number format) to a range.|spreadsheet_id;range;format
        sheets_delete_rows|Deletes rows from a sheet by index.|spreadsheet_id;sheet_id;start_index;end_index
        sheets_find_replace|Finds and replaces text across a sheet or the whole spreadsheet.|spreadsheet_id;find;replacement
        sheets_merge_cells|Merges the cells in a range into one.|spreadsheet_id;range
        sheets_batch_get_ranges|Reads several ranges in one call.|spreadsheet_id;ranges
    """,
    ),
    _Server(
        "jenkins",
        "Jenkins",
        "kebab",
        """
        job !std +enable,disable,copy; build@job !ro +abort,delete; node !crud; credential !crud
        plugin !min +install,uninstall; view !crud; folder !crud; queue_item !ro +cancel; user !ro
    """,
        """
        trigger-build|Queues a new build of a job, optionally with build parameters.|job_name;parameters
        get-build-log|Returns the console output (log) of a build.|job_name;build_number
        get-last-build|Returns the most recent build of a job and its result.|job_name
        replay-build|Re-runs a Pipeline build with the same (or an edited) script.|job_name;build_number;script
        take-node-offline|Marks a build agent offline so no new builds are scheduled on it.|node_name;reason
        bring-node-online|Brings an offline build agent back online.|node_name
        get-test-report|Returns the test results recorded for a build.|job_name;build_number
        safe-restart|Restarts the Jenkins controller once running builds finish.|
    """,
    ),
    _Server(
        "argocd",
        "Argo CD",
        "snake",
        """
        application !std +sync,rollback,refresh; project !crud; repository !crud; cluster !crud
        application_set !crud; repository_credential !crud; certificate !crud; account !ro
    """,
        """
        get_application_manifests|Renders the manifests Argo CD would apply for an application.|application
        get_application_diff|Shows the differences between the live state and git for an application.|application
        terminate_operation|Terminates the sync operation currently running on an application.|application
        get_application_resource_tree|Returns the tree of Kubernetes resources managed by an application.|application
    """,
    ),
    _Server(
        "launchdarkly",
        "LaunchDarkly",
        "resfirst",
        """
        flag !std +archive,clone ~key,name,kind,variations; segment !crud; environment !crud
        project !crud; experiment !crud +start,stop; metric !crud; flag_trigger@flag !crud
        approval_request@flag !ro +approve,reject,create; release_pipeline !crud; team !crud
        member !crud; webhook !crud; relay_proxy_config !crud; context_kind !crud
        scheduled_change@flag !crud; code_reference !ro; audit_log_entry !ro
    """,
        """
        flag_turn_on|Turns targeting on for a feature flag in an environment so its rules are served.|project_key;flag_key;environment_key
        flag_turn_off|Turns targeting off for a feature flag in an environment; everyone gets the off variation.|project_key;flag_key;environment_key
        flag_rollout_set|Sets a percentage rollout for a flag in an environment, e.g. 25% true / 75% false.|flag_key;environment_key;weights
        flag_target_add|Adds individual users or contexts to a flag's target list for a variation.|flag_key;environment_key;variation;context_keys
        flag_evaluate|Evaluates a flag for a given context and returns the variation it would receive.|flag_key;environment_key;context
        flag_status_get|Returns whether a flag is launched, inactive or new in each environment.|flag_key
    """,
    ),
    _Server(
        "amplitude",
        "Amplitude",
        "kebab",
        """
        cohort !crud; chart !crud; dashboard !crud; annotation !crud ~date,label,details
        event_type !ro +update; user_property !ro; event_category !crud
    """,
        """
        get-funnel|Computes a conversion funnel across a sequence of events over a date range.|events;start;end;group_by
        get-retention|Computes N-day retention: how many users come back after a starting event.|start_event;return_event;start;end
        get-segmentation|Computes event totals or uniques over time, optionally segmented by a property.|event;start;end;metric;group_by
        get-active-users|Returns daily, weekly or monthly active user counts.|start;end;interval
        get-revenue-ltv|Returns revenue and lifetime value for new-user cohorts.|start;end
        get-user-activity|Returns the event stream of a single user.|user_id;limit
        search-users|Finds a user by user ID, device ID or Amplitude ID.|user
        track-event|Sends an event to Amplitude for a user (HTTP ingestion).|user_id;event_type;event_properties
        delete-user-data|Requests deletion of all data for the given users (GDPR).|user_ids
        get-session-length|Returns the distribution of session lengths.|start;end
        export-raw-events|Exports raw event data for a time range as a zip of JSON files.|start;end
    """,
    ),
    _Server(
        "zendesk",
        "Zendesk",
        "snake",
        """
        ticket !full +assign,solve,mergedup ~subject,description,requester_email,priority,type
        ticket_comment@ticket !min; macro !crud +apply; view !crud; trigger !crud; automation !crud
        sla_policy !crud; organization !std; user !std +suspend; group !crud; satisfaction_rating !ro
        help_center_article !std +publish,unpublish; help_center_section !crud; ticket_field !crud
        ticket_form !crud; brand !crud; custom_status !crud
    """,
        """
        reply_to_ticket|Adds a public reply to a ticket; the requester is emailed the reply.|ticket_id;body
        add_internal_note|Adds a private internal note to a ticket, visible only to agents.|ticket_id;body
    """,
    ),
    _Server(
        "bamboohr",
        "BambooHR",
        "camel",
        """
        employee !full ~first_name,last_name,job_title,department,hire_date
        time_off_request !std +approve,reject,cancel ~employee_id,time_off_type,start,end,note
        time_off_policy !crud; job_opening !std +close; applicant@job_opening !std
        performance_review !crud; department !crud; location !crud; benefit_plan !crud
        training_record@employee !crud; employee_document@employee !min +upload,download,delete
        onboarding_task@employee !crud +complete; goal@employee !crud
        compensation_record@employee !crud; emergency_contact@employee !crud; asset@employee !crud
    """,
        """
        terminateEmployee|Records an employee's termination (last day, reason) and ends their employment.|employee_id;termination_date;reason
        getTimeOffBalance|Returns remaining vacation/PTO and sick days for an employee as of a date.|employee_id;as_of
        getWhosOut|Lists employees who are out of office on approved time off in a date range.|start;end
        getCompanyDirectory|Returns the company employee directory.|
        getOrgChart|Returns the reporting structure below a manager.|employee_id
        getHeadcountReport|Returns headcount by department and location over time.|start;end
    """,
    ),
    _Server(
        "shopify",
        "Shopify",
        "prefix",
        """
        order !full +cancel,close,reopen; refund@order !min +create ~amount,line_items,reason,notify
        product !full +publish,unpublish,duplicate ~title,body_html,vendor,product_type
        product_variant@product !crud; customer !full
        fulfillment@order !min +create,cancel ~tracking_number,tracking_company
        discount_code@price_rule !crud ~code; price_rule !crud; collection !crud
        draft_order !crud +complete; gift_card !std +disable; abandoned_checkout !ro; location !ro
        inventory_item !ro +update; metafield !crud; theme !crud +publish; webhook !crud; page !crud
        blog_article !crud
    """,
        """
        shopify_adjust_inventory|Adjusts the available quantity of an inventory item at a location by a relative amount (e.g. +20 or -3).|inventory_item_id;location_id;delta
        shopify_set_inventory|Sets the available quantity of an inventory item at a location to an absolute number.|inventory_item_id;location_id;quantity
        shopify_calculate_refund|Calculates the refundable amounts for an order without creating a refund.|order_id;line_items
    """,
    ),
    _Server(
        "weather",
        "Weather",
        "kebab",
        """
        station !ro; observation@station !min; saved_location !crud
    """,
        """
        get-forecast|Get the daily weather forecast (high/low, chance of precipitation, conditions) for a location for the next 7 days.|location;days;units
        get-hourly-forecast|Get an hour-by-hour forecast for the next 48 hours.|location;hours
        get-current-conditions|Get current observed weather (temperature, humidity, wind, conditions) for a location.|location;units
        get-alerts|Get active severe weather alerts and warnings (storms, floods, heat) issued for a location or area.|location
        get-historical-weather|Get observed weather for a location on a past date.|location;date
        get-air-quality|Get the air quality index and pollutant levels for a location.|location
        get-uv-index|Get the UV index forecast for a location.|location
        get-pollen-forecast|Get pollen levels by type for the coming days.|location
        get-marine-forecast|Get wave height, swell and sea temperature for a coastal location.|location
        get-sunrise-sunset|Get sunrise, sunset and daylight length for a location and date.|location;date
        get-precipitation-radar|Get a radar image URL of current precipitation around a location.|location;zoom
        get-minute-precipitation|Get a minute-by-minute rain forecast for the next hour.|location
        get-climate-normals|Get long-term average temperature and rainfall for each month.|location
        get-tide-predictions|Get high and low tide times for a coastal station.|station_id;date
    """,
    ),
    _Server(
        "maps",
        "Maps",
        "snake",
        """
        saved_place !crud; custom_map !crud
    """,
        """
        geocode|Converts an address or place name into latitude/longitude coordinates.|address
        reverse_geocode|Converts latitude/longitude coordinates into the nearest street address.|lat;lng
        get_directions|Returns a route with turn-by-turn directions between an origin and a destination by car, foot, bike or transit.|origin;destination;mode;departure_time
        get_distance_matrix|Returns travel distance and time for every pair of several origins and destinations.|origins;destinations;mode
        search_places|Text search for places, e.g. 'pizza in Chicago' or 'Louvre'.|query;location
        search_nearby|Finds places of a given type within a radius of a coordinate.|lat;lng;radius;type
        get_place_details|Returns details of a place: address, opening hours, phone number, rating and reviews.|place_id
        autocomplete_place|Returns place suggestions as the user types.|input;location
        get_timezone|Returns the time zone and current UTC offset for a coordinate.|lat;lng
        get_elevation|Returns the elevation above sea level of a coordinate.|lat;lng
        snap_to_roads|Snaps a GPS trace to the most likely roads travelled.|path
        get_static_map|Renders a static map image URL centred on a location with optional markers.|center;zoom;markers
        validate_address|Validates and standardizes a postal address.|address
        get_isochrone|Returns the area reachable from a point within a given travel time.|lat;lng;minutes;mode
    """,
    ),
    _Server(
        "snyk",
        "Snyk",
        "camel",
        """
        project !std; organization !crud; target !ro +delete; license_policy !crud
        security_policy !crud; integration !crud; service_account !crud; webhook !crud
        container_image !ro
    """,
        """
        listFindings|Lists the vulnerability and license findings detected in a project, with severity and fix availability.|project_id;severity
        getFinding|Returns the details of one vulnerability finding: affected package, CVE, paths and remediation.|project_id;finding_id
        ignoreFinding|Ignores a vulnerability finding in a project for a period or permanently, with a reason; it no longer fails tests.|project_id;finding_id;reason;expires
        testProject|Runs a new security scan (test) on a project and returns the vulnerabilities found.|project_id
        createFixPullRequest|Opens a pull request in the source repository that upgrades dependencies to fix vulnerabilities.|project_id;finding_ids
        exportSbom|Generates a software bill of materials (SBOM) for a project in CycloneDX or SPDX format.|project_id;format
        getVulnerabilityReport|Returns counts of open vulnerabilities by severity across the organization over time.|org_id;from;to
        importProject|Imports a repository from an integration (GitHub, GitLab, ...) so it is monitored.|integration_id;target
    """,
    ),
    _Server(
        "testrail",
        "TestRail",
        "snake",
        """
        test_case@section !full %create=add; section@suite !crud %create=add
        suite@project !crud %create=add; project !crud %create=add
        test_run@project !std +close %create=add; test_plan@project !std +close %create=add
        test_result@test_run !min +add ~status,comment,elapsed,defects
        bug@project !full +close,reopen,assign %create=add ~title,steps_to_reproduce,severity,test_id
        milestone@project !crud %create=add; configuration !crud %create=add
        shared_step@project !crud %create=add; test@test_run !ro; user !ro; report !min
    """,
        """
        run_report|Runs a saved report template and returns the rendered report.|report_id
    """,
    ),
    _Server(
        "sentry",
        "Sentry",
        "snake",
        """
        issue@project !std +resolve,assign,mergedup,bookmark -create ~status,assigned_to
        event@issue !ro; project !std ~name,platform,team; release@project !std +deploy
        alert_rule@project !crud +enable,disable; metric_alert_rule@project !crud; team !crud
        member !crud +invite; client_key@project !crud +rotate; replay@project !ro +delete
        cron_monitor@project !crud +mute,unmute; dashboard !crud; integration !min +install,uninstall
        ownership_rule@project !crud; source_map@release !min +upload,delete
    """,
        """
        ignore_issue|Ignores (archives) an error issue until it happens again N times or for a period.|issue_id;until_escalating;ignore_count
        get_issue_latest_event|Returns the most recent event (stack trace, tags, breadcrumbs) of an error issue.|issue_id
        get_project_stats|Returns error counts over time for a project.|project_slug;stat;since
    """,
    ),
    _Server(
        "quickbooks",
        "QuickBooks Online",
        "camel",
        """
        invoice !std +send,void ~customer_ref,line_items,due_date
        bill !std +void ~vendor_ref,line_items,due_date; bill_payment !crud; vendor !std +deactivate
        customer !std +deactivate; expense !std ~account_ref,amount,payee,txn_date; journal_entry !std
        account !std +deactivate; estimate !std +send; purchase_order !std +send; payment !std +void
        sales_receipt !std +void; credit_memo !std; deposit !crud; transfer !crud; tax_code !ro
        class !crud; item !std +deactivate; employee !crud; time_activity !crud
    """,
        """
        getProfitAndLossReport|Returns the profit and loss (income statement) report for a period.|start_date;end_date;accounting_method
        getBalanceSheetReport|Returns the balance sheet as of a date.|as_of
        getCashFlowReport|Returns the statement of cash flows for a period.|start_date;end_date
        getAgedReceivablesReport|Returns unpaid customer invoices grouped by how overdue they are.|as_of
        getAgedPayablesReport|Returns unpaid vendor bills grouped by how overdue they are.|as_of
        getCompanyInfo|Returns the company's name, address and fiscal year settings.|
        reconcileAccount|Marks bank transactions as reconciled against a statement.|account_id;statement_date;ending_balance
    """,
    ),
    _Server(
        "docusign",
        "DocuSign",
        "snake",
        """
        envelope !std +send,void,resend ~email_subject,documents,recipients,status
        envelope_recipient@envelope !crud; envelope_document@envelope !min +add,download,delete
        template !std +share; signing_group !crud; brand !crud; user !std +close; group !crud
        power_form !crud; bulk_send_list !crud; folder !min +move; connect_configuration !crud
    """,
        """
        create_signing_link|Creates an embedded signing URL so a recipient can sign an envelope inside your app.|envelope_id;recipient_email;return_url
        get_envelope_audit_events|Returns the certificate-of-completion audit events of an envelope.|envelope_id
        download_completed_documents|Downloads the signed, combined PDF of a completed envelope.|envelope_id
    """,
    ),
    _Server(
        "zoom",
        "Zoom",
        "kebab",
        """
        meeting !std +end ~topic,start_time,duration,settings
        meeting_registrant@meeting !min +approve,reject,add; webinar !std +end
        webinar_panelist@webinar !min +add,remove; cloud_recording !ro +delete,download,restore,share
        user !std +activate,deactivate ~email,first_name,last_name,type; zoom_room !std
        meeting_poll@meeting !crud; meeting_template !min; phone_user !ro; phone_call_log !ro
        group !crud; tracking_field !crud; im_channel !crud
    """,
        """
        get-meeting-participants|Lists the people who joined a past meeting, with join and leave times.|meeting_id
        get-meeting-invitation|Returns the invitation text (join link, dial-in numbers) of a meeting.|meeting_id
        get-daily-usage-report|Returns daily counts of meetings, participants and minutes.|year;month
    """,
    ),
    _Server(
        "figma",
        "Figma",
        "camel",
        """
        file !ro; file_comment@file !crud +resolve; file_version@file !min; component !ro
        component_set !ro; style !ro; project !min; team_project@team !min; variable@file !crud
        dev_resource@file !crud; webhook !crud; library_analytics !min
    """,
        """
        exportImages|Renders frames or nodes of a Figma file as PNG, JPG, SVG or PDF images.|file_key;node_ids;format;scale
        getFileNodes|Returns the document tree of specific nodes in a Figma file.|file_key;node_ids
        getImageFills|Returns download URLs for all images used as fills in a file.|file_key
        getMe|Returns the authenticated Figma user.|
    """,
    ),
    _Server(
        "homeassistant",
        "Home Assistant",
        "snake",
        """
        entity !ro; automation !crud +trigger,enable,disable; scene !crud +activate; script !crud +run
        area !crud; device !ro +update; zone !crud; helper !crud; dashboard !crud
        blueprint !min +import
    """,
        """
        light_turn_on|Turns on a light, optionally setting brightness and colour.|entity_id;brightness;color
        light_turn_off|Turns off a light.|entity_id
        switch_toggle|Toggles a smart switch or plug on/off.|entity_id
        climate_set_temperature|Sets the target temperature of a thermostat.|entity_id;temperature
        lock_lock|Locks a smart door lock.|entity_id
        lock_unlock|Unlocks a smart door lock.|entity_id
        cover_open|Opens a cover such as a garage door or blinds.|entity_id
        cover_close|Closes a cover such as a garage door or blinds.|entity_id
        media_player_play|Starts playback on a media player.|entity_id;media_content_id
        vacuum_start|Starts a robot vacuum cleaning run.|entity_id
        get_entity_history|Returns the state history of an entity over a time window.|entity_id;start;end
    """,
    ),
    _Server(
        "terraform",
        "Terraform Cloud",
        "resfirst",
        """
        workspace !std +lock,unlock ~name,terraform_version,working_directory,auto_apply
        run@workspace !ro +create,apply,cancel,discard; variable@workspace !crud
        variable_set !crud +apply; state_version@workspace !ro +rollback; policy_set !crud
        policy !crud; module !std +publish; provider !min +publish; team !crud
        team_access@workspace !crud; agent_pool !crud; ssh_key !crud
        notification_configuration@workspace !crud +test; project !crud; oauth_client !crud
    """,
        """
        run_plan_get|Returns the plan output (resources to add, change, destroy) of a run.|run_id
        run_apply_log_get|Returns the log of the apply phase of a run.|run_id
        workspace_destroy_run_create|Queues a destroy run that deletes every resource managed by a workspace.|workspace_id;message
    """,
    ),
    _Server(
        "contentful",
        "Contentful",
        "kebab",
        """
        entry@space !std +publish,unpublish,archive,unarchive ~content_type,fields,locale
        asset@space !std +publish,unpublish,archive,unarchive,upload
        content_type@space !crud +publish,unpublish; space !crud; environment@space !crud +clone
        locale@space !crud; webhook@space !crud; role@space !crud; api_key@space !crud; tag@space !crud
        scheduled_action@space !crud +cancel; release@space !crud +publish; comment@entry !crud
        task@entry !crud +complete
    """,
        """
        get-entry-references|Returns all entries and assets linked from an entry.|entry_id;depth
        get-entry-snapshots|Lists the published snapshots (versions) of an entry.|entry_id
    """,
    ),
    _Server(
        "dockerhub",
        "Docker Hub",
        "snake",
        """
        repository !std ~namespace,name,description,is_private; tag@repository !ro +delete
        webhook@repository !crud; access_token !crud +revoke; organization !min
        team@organization !crud; team_member@team !min +add,remove; autobuild@repository !crud +trigger
    """,
        """
        get_image_vulnerabilities|Returns the vulnerability scan results of an image tag.|repository;tag
        get_pull_stats|Returns the number of pulls of a repository over time.|repository
    """,
    ),
    _Server(
        "redis",
        "Redis",
        "kebab",
        """
        acl_user !crud; module !min +install; stream !min +create,delete
        consumer_group@stream !min +create,delete
    """,
        """
        get-key|Returns the value stored at a key.|key
        set-key|Sets a key to a value, optionally with an expiry in seconds.|key;value;ex
        delete-keys|Deletes one or more keys.|keys
        expire-key|Sets a time-to-live on a key so it is removed automatically.|key;seconds
        scan-keys|Iterates over keys matching a glob pattern.|pattern;count
        get-ttl|Returns the remaining time to live of a key.|key
        increment-key|Increments the integer value of a key.|key;by
        hash-get-all|Returns all fields and values of a hash.|key
        hash-set|Sets fields in a hash.|key;fields
        list-push|Pushes values onto a list.|key;values;left
        list-range|Returns a range of elements from a list.|key;start;stop
        publish-message|Publishes a message to a pub/sub channel.|channel;message
        flush-database|Removes all keys from the current database.|async
        get-info|Returns server information and statistics (memory, clients, keyspace).|section
        get-slowlog|Returns the slow query log.|count
        get-memory-usage|Returns how many bytes a key and its value use.|key
    """,
    ),
]


def catalogue() -> list[dict]:
    out: list[dict] = []
    seen: set = set()
    for s in _SERVERS:
        _gen_server(s, out, seen)
    return out


# --------------------------------------------------------------------------
# Requests: (what a person types, server, the one correct tool)
# --------------------------------------------------------------------------
