"""The words of tool search: how a tool and a request are split, and the curated tables that let a
person's words find an API's ("add" finds ``create``, "revoke" ``delete``, "bug" an issue).

A tool's name says what it does with a verb (``create_issue``, ``listRecords``); a person says it
with another ("file a bug", "show me the records").  Both sides are put into the same terms:

* **Actions.**  Each verb of :data:`ACTIONS` belongs to one or more action groups (``create``,
  ``delete``, ``list`` …).  The verbs of a tool's own name are indexed as their groups
  (:func:`name_actions`); a request's verbs, and its phrasal verbs ("get rid of", "kick off"),
  are searched as theirs (:func:`analyse`), so the tool whose action matches comes first.
* **Things.**  :data:`THINGS` names what people call the things tools act on ("bug" → issue,
  "box" → instance, "vacation" → time off): a request's word also searches for those.
* A verb that is only a verb ("remove", "find") is matched against tools' names and actions,
  never against descriptions, so "find bugs" is not taken for security *findings*.

The tables are data, not rules about any one server: they hold the everyday English of software
operations.  Standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "ACTIONS",
    "CAMEL",
    "THINGS",
    "Analysed",
    "analyse",
    "description_verb",
    "name_verb",
    "split_words",
]

CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD = re.compile(r"[^\W_]+")

_STOP_TEXT = (
    "a all an and are as at be by can could do for from how i in into is it its me my of on or our "
    "please so some that the their them these this those to us use using want we what which "
    "will with would you your he she her him his they "
    # what is left of a contraction once its apostrophe splits it ("what's", "we'll", "don't")
    "s t ll re ve d m"
)
STOP_WORDS = frozenset(_STOP_TEXT.split())

# group: the verbs (and phrasal verbs, ``head_particle``) that say it.  A verb may say several.
_ACTION_TEXT: dict[str, str] = {
    "create": "create add new make open file register generate write compose build provision "
    "insert cut declare set set_up spin_up start_new put post schedule plan log report "
    "jot_down write_up react",
    "delete": "delete remove revoke purge drop destroy erase wipe kill rm trash discard "
    "uninstall unregister evict get_rid_of take_down tear_down clear ban kick_out",
    "list": "list show display view see browse enumerate all what which find",
    "search": "search find look_for lookup look_up query filter locate grep seek",
    "get": "get fetch read show view retrieve describe inspect details look_at grab check what",
    "update": "update edit change set modify patch rename adjust alter configure tweak move "
    "reschedule replace amend correct",
    "archive": "archive hide shelve",
    "restore": "restore undelete recover bring_back get_back revert rollback roll_back undo "
    "unarchive",
    "export": "export download dump save fetch grab back_up",
    "import": "import upload load ingest put",
    "share": "share grant invite give give_access",
    "assign": "assign give hand hand_over delegate reassign allocate",
    "approve": "approve accept ok sign_off greenlight",
    "cancel": "cancel abort stop call_off terminate halt end",
    "count": "count how_many tally",
    "clone": "clone duplicate copy fork",
    "lock": "lock freeze suspend disable block lock_out",
    "unlock": "unlock unfreeze unblock enable",
    "tag": "tag label",
    "subscribe": "subscribe watch follow notify",
    "start": "start boot launch run trigger kick_off power_on spin_up begin execute exec turn_on "
    "switch_on",
    "stop": "stop shut_down shutdown halt power_off pause turn_off switch_off",
    "restart": "restart reboot bounce",
    "send": "send email mail message dm post notify ping text",
    "reply": "reply answer respond",
    "merge": "merge combine join",
    "close": "close resolve finish complete solve done",
    "silence": "silence mute snooze quiet",
    "renew": "renew extend refresh",
    "purge": "purge clear flush invalidate empty",
    "rotate": "rotate regenerate cycle",
    "scale": "scale resize grow shrink",
    "promote": "promote ship release deploy roll_out",
    "book": "book reserve",
    "fulfill": "fulfill fulfil ship dispatch deliver",
    "invite": "invite add",
    "acknowledge": "acknowledge ack",
}

#: Verb (``get_rid_of`` for a phrase) → its action groups.
ACTIONS: dict[str, frozenset[str]] = {}
for _group, _verbs in _ACTION_TEXT.items():
    for _verb in _verbs.split():
        ACTIONS[_verb] = ACTIONS.get(_verb, frozenset()) | {_group}
    ACTIONS[_group] = ACTIONS.get(_group, frozenset()) | {_group}

# Words that are verbs only: searched in tools' names and actions, never in descriptions.
_VERB_ONLY_TEXT = (
    "create add make remove delete revoke purge destroy erase wipe kill rm discard uninstall "
    "unregister evict list show display browse enumerate search find lookup locate seek get "
    "fetch retrieve grab update edit modify adjust alter tweak rename archive restore undelete "
    "recover revert undo export download import upload share grant assign give reassign approve "
    "cancel abort terminate count clone duplicate fork subscribe boot launch reboot restart "
    "reply respond merge silence mute snooze renew extend flush invalidate rotate resize"
)
_VERB_ONLY = frozenset(_VERB_ONLY_TEXT.split())

#: What people call things → what tools call them (each also searched for).
_THING_TEXT: dict[str, str] = {
    "bug": "issue defect",
    "bugs": "issue defect",
    "defect": "issue bug",
    "ticket": "issue",
    "pr": "pull_request",
    "prs": "pull_request",
    "mr": "pull_request",
    "repo": "repository",
    "repos": "repository",
    "vm": "instance machine",
    "box": "instance machine server",
    "machine": "instance server",
    "server": "instance",
    "host": "instance",
    "email": "message mail",
    "emails": "message mail",
    "mail": "message",
    "dm": "direct_message",
    "cert": "certificate",
    "certs": "certificate",
    "vacation": "time_off",
    "holiday": "time_off",
    "leave": "time_off",
    "pto": "time_off",
    "password": "secret credential",
    "credential": "secret",
    "credentials": "secret",
    "token": "key secret",
    "directory": "folder",
    "dir": "folder",
    "link": "url",
    "doc": "document file page",
    "docs": "document file page",
    "meeting": "event",
    "appointment": "event",
    "invite": "event invitation",
    "alarm": "alert",
    "client": "customer",
    "staff": "employee",
    "hire": "employee",
    "account": "user",
    "deploy": "deployment",
    "discount": "coupon",
    "promo": "coupon",
    "firewall": "security_group",
    "binary": "artifact",
    "stock": "inventory",
    "parcel": "shipment",
    "package": "shipment",
    "opening": "job_posting",
    "vacancy": "job_posting",
    "rain": "weather forecast",
    "forecast": "weather",
    "graph": "chart metric",
    "usage": "metric",
    "container": "pod",
    "db": "database",
    "sql": "query",
    "log": "logs",
    "spreadsheet": "file",
    "slides": "file",
    "runbook": "page",
    "channel": "channel",
    "2fa": "mfa",
    "two-factor": "mfa",
    "feature": "flag",
    "toggle": "flag",
    "cname": "record dns",
    "mx": "record dns",
    "txt": "record dns",
    "rule": "filter policy",
    "version": "revision",
    "versions": "revision",
    "newsletter": "message",
    "newsletters": "message",
    "react": "reaction emoji",
    "reaction": "emoji",
    "lead": "contact",
    "leads": "contact",
    "junk": "spam",
    "phishing": "spam",
    "crash": "issue error",
    "calendar": "event gcal",
    # what the reference servers and common ones are called ("my Drive": the gdrive server)
    "drive": "gdrive",
    "kubernetes": "k8s",
    "k8s": "kubernetes",
}
THINGS: dict[str, tuple[str, ...]] = {
    word: tuple(also.replace("_", " ") for also in text.split())
    for word, text in _THING_TEXT.items()
    if text != word
}

# A phrasal verb's particle may stand up to this many words after its head ("take the winter
# sale discount down").
_PARTICLE_REACH = 5
_PHRASES: dict[str, set[str]] = {}
for _verb in ACTIONS:
    if "_" in _verb:
        _head, _, _rest = _verb.partition("_")
        _PHRASES.setdefault(_head, set()).add(_rest)

# Values a request carries: a URL or host name, a path, a file name, a number, an address.
_VALUES = re.compile(
    r"[a-z][a-z0-9+.-]*://\S+|\S+@\S+\.\S+|\S*[\w-]\.[\w-]+\S*|(?<![\w#@])/\S*"
    r"|\b\d[\d.,:%]*\b",
    re.IGNORECASE,
)
# A channel (``#launch``) and a person (``@ada``) say what kind of thing a request is about.
# (``#1050`` is an order or issue number, not a channel: a mention starts with a letter)
_MENTIONS = re.compile(r"(?<!\w)([#@])[^\W\d_][\w.-]*")
_MENTIONED = {"#": "channel", "@": "user"}


def split_words(text: str) -> list[str]:
    """*text* as words: ``snake_case``, ``camelCase``, ``kebab-case`` and dots split."""
    return _WORD.findall(CAMEL.sub(" ", text))


def name_verb(words: list[str]) -> str | None:
    """The verb that says what a tool does: the first of its name's *words* that is a verb of
    :data:`ACTIONS` (``dns_delete_record`` → ``delete``), or a phrasal verb
    (``flag_turn_on`` → ``turn_on``)."""
    lowered = [word.lower() for word in words]
    for i, word in enumerate(lowered):
        for rest in sorted(_PHRASES.get(word, ()), key=len, reverse=True):
            particles = rest.split("_")
            if lowered[i + 1 : i + 1 + len(particles)] == particles:
                return f"{word}_{rest}"
        if word in ACTIONS:
            return word
    return None


def description_verb(description: str) -> str | None:
    """The first word of a tool's *description*, when it is a verb ("Renew a domain …")."""
    first = _WORD.search(description[:40])
    word = first.group().lower() if first is not None else ""
    return word if word in ACTIONS else None


@dataclass(frozen=True)
class Analysed:
    """A request as search terms."""

    actions: tuple[str, ...]
    """Action groups the request's verbs say."""
    verbs: tuple[str, ...]
    """The request's verb-only words: matched in names only."""
    words: tuple[str, ...]
    """The other words (and the things they stand for): matched everywhere."""


def _phrasal(words: list[str], i: int) -> tuple[str, int] | None:
    """The phrasal verb whose head is ``words[i]`` (``get rid of``, ``take … down``) and the
    index of its last particle, if any."""
    for rest in sorted(_PHRASES.get(words[i], ()), key=len, reverse=True):
        particles = rest.split("_")
        if words[i + 1 : i + 1 + len(particles)] == particles:
            return f"{words[i]}_{rest}", i + len(particles)
        if len(particles) == 1 and particles[0] in words[i + 2 : i + 1 + _PARTICLE_REACH]:
            return f"{words[i]}_{rest}", words.index(particles[0], i + 2)
    return None


def analyse(query: str, max_words: int) -> Analysed:
    """*query* as :class:`Analysed` terms (at most *max_words* words in each part).

    Values in the request (``api.example.com``, ``/images``, ``1042``) are what a call will be
    given, not words of what the tool does: they are left out (a ``#channel`` or ``@person``
    says "channel" or "user").  The first word of a request is read as its verb when it is one
    ("file a bug", "ship order 1042"); a word that can only be a verb is one wherever it
    stands; elsewhere a word that may be a verb or not ("the open issues", "a blog post") is
    searched as a word.  A phrasal
    verb ("kick off", "take … down") is one verb, and also its compound noun ("rollout")."""
    text = _MENTIONS.sub(lambda m: " " + _MENTIONED[m.group(1)] + " ", query)
    words = [w.lower() for w in split_words(_VALUES.sub(" ", text))]
    actions: dict[str, None] = {}
    verbs: dict[str, None] = {}
    plain: dict[str, None] = {}
    content = [w for w in words if w not in STOP_WORDS or w in ACTIONS]
    first = content[0] if content else None
    used: set[int] = set()
    for i, word in enumerate(words):
        if i in used:
            continue
        phrase = _phrasal(words, i)
        if phrase is not None:
            verb, last = phrase
            actions.update(dict.fromkeys(sorted(ACTIONS[verb])))
            verbs[verb.split("_")[0]] = None
            plain[verb.replace("_", "")] = None  # roll out: a rollout; back up: a backup
            used.update((i, last))
            continue
        if word in ACTIONS and (word in _VERB_ONLY or word == first):
            actions.update(dict.fromkeys(sorted(ACTIONS[word])))
            verbs[word] = None
            plain.update(dict.fromkeys(THINGS.get(word, ())))  # "DM alice": a message
            continue
        if word not in STOP_WORDS:
            plain[word] = None
            plain.update(dict.fromkeys(THINGS.get(word, ())))
    if "list" in actions and "get" in actions:
        # "show the pull requests" lists them; "show the pull request" gets one.
        many = any(len(w) > 3 and w[-1] == "s" and w[-2] != "s" for w in plain)
        del actions["get" if many else "list"]
    if not (actions or verbs or plain) and words:
        plain = dict.fromkeys(words)  # nothing but stop words: search for them after all
    return Analysed(tuple(actions)[:max_words], tuple(verbs)[:max_words], tuple(plain)[:max_words])
