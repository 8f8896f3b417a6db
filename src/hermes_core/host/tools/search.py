"""Tool search: the registered tools ranked by BM25 against a query, over their names, titles,
descriptions, parameter names and the actions their names say.

The ranking is SQLite's FTS5 full-text index (standard library ``sqlite3``, the index held in
memory) with its ``bm25()`` function and the Porter stemmer over Unicode words: a maintained,
widely deployed BM25, with no dependency to install (docs/tool-search.md says why not
``bm25s`` or ``rank-bm25``).  What is ours is the text each tool is indexed under and how a
request is turned into terms (:mod:`hermes_core.host.tools.search_words`):

* its registered name split into words (``mcp_dns_delete_record`` → ``mcp dns delete
  record``; ``listRecords`` → ``list Records``), weighted highest;
* the action groups its name's verbs say (``delete`` for ``delete``, ``remove``, ``purge`` …);
* its title, then its description, then its parameters' names.

A request's verbs search the actions and the names ("remove the record" finds
``delete_record``, and is never taken for a description that mentions "removal"); its other
words, and what people call the things they name ("bug" → issue), search everything.  Any term
may match (an ``OR`` query), and BM25 with the column weights orders the matches, so the tool
whose name holds both the request's thing and its action comes first.
Over thousands of tools, a word most of them contain is left out while another word matches
(BM25 scores it about zero; scoring it is what would cost the time).
The index is built once per registry snapshot: listing or searching an unchanged registry
re-indexes nothing.  ``sqlite3`` is imported by the first search, so a host that never
searches never loads it.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Collection
from typing import TYPE_CHECKING

from hermes_core.host.tools.registry import ToolEntry
from hermes_core.host.tools.search_words import (
    ACTIONS,
    CAMEL,
    Analysed,
    analyse,
    description_verb,
    name_verb,
    split_words,
)

if TYPE_CHECKING:
    import sqlite3

__all__ = ["COMMON_FROM", "MAX_QUERY_WORDS", "ToolSearchIndex", "query_words"]

#: A query keeps at most this many words (a model may paste a paragraph).
MAX_QUERY_WORDS = 32

#: From this many tools on, a search leaves out the words most tools contain (see
#: :meth:`ToolSearchIndex._telling`).
COMMON_FROM = 1000

#: Column weights of ``bm25()``: name, actions, verb, title, description, parameters.  The
#: action groups decide between near-duplicates; the verb itself only breaks their ties.
_WEIGHTS = (4.0, 3.0, 1.0, 2.0, 1.0, 0.5)

#: A request with a verb and words ranks this many times *limit* tools, then puts those holding
#: one of its words first.
_WIDER = 20
_SAID = "SELECT rowid FROM tools WHERE tools MATCH ?"

#: At most this many of a tool's parameters are indexed (a schema may list thousands).
_MAX_PARAMETERS = 64

_TOKENIZER = "'porter unicode61 remove_diacritics 2'"


def query_words(query: str) -> list[str]:
    """The words of *query* that are searched for (lowercased, stop words left out; a verb is
    kept as itself, its action groups are searched too)."""
    found = analyse(query, MAX_QUERY_WORDS)
    return list(dict.fromkeys((*found.verbs, *found.words)))[:MAX_QUERY_WORDS]


def _quoted(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


class ToolSearchIndex:
    """An in-memory FTS5 index of the registry's tools, brought up to date with each new
    snapshot incrementally: only the tools that changed are removed and added.

    Safe to use from several threads (one lock around the connection).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snapshot: tuple[ToolEntry, ...] | None = None
        self._db: sqlite3.Connection | None = None
        self._common: frozenset[str] = frozenset()
        self._rowids: dict[ToolEntry, int] = {}
        self._entries: dict[int, ToolEntry] = {}
        self._next_rowid = 0
        self._actions: Counter[str] = Counter()  # action groups and verbs of the indexed tools

    def search(
        self,
        snapshot: tuple[ToolEntry, ...],
        query: str,
        limit: int,
        *,
        hidden_servers: Collection[str] = (),
    ) -> list[ToolEntry]:
        """The entries of *snapshot* that best match *query*, best first, at most *limit*;
        tools of *hidden_servers* (gated ones) are left out.  No word, no match: ``[]``."""
        terms = analyse(query, MAX_QUERY_WORDS)
        if not (terms.actions or terms.verbs or terms.words) or limit <= 0 or not snapshot:
            return []
        hidden = sorted(set(hidden_servers))
        where = f" AND server NOT IN ({', '.join('?' * len(hidden))})" if hidden else ""
        sql = "SELECT rowid FROM tools WHERE tools MATCH ?" + where + " ORDER BY rank LIMIT ?"
        with self._lock:
            db = self._index(snapshot)
            ranked, said = self._match(db, terms)
            wide = limit if said is None else limit * _WIDER
            rows = [row[0] for row in db.execute(sql, (ranked, *hidden, wide)).fetchall()]
            if said is not None:
                # The tools that hold one of the request's words first, in the same order.
                holding = {row[0] for row in db.execute(_SAID, (said,)).fetchall()}
                rows = [r for r in rows if r in holding] + [r for r in rows if r not in holding]
        return [self._entries[rowid] for rowid in rows[:limit]]

    def _match(self, db: sqlite3.Connection, terms: Analysed) -> tuple[str, str | None]:
        """The FTS5 query that ranks (actions in the actions column, verbs in the verb column,
        words anywhere else), and the one a tool must also match to come first: one of the
        request's words, so that a verb alone never outranks the thing asked about ("open a
        page" is not any tool that opens); ``None`` when the request is all verb or all words."""
        acting = any(self._actions[a] for a in (*terms.actions, *terms.verbs))
        words = self._telling(db, list(terms.words), acting) if terms.words else []
        said = [f"{{name title description params}} : {_quoted(w)}" for w in words]
        parts = [f"actions : {_quoted(a)}" for a in terms.actions]
        parts += [f"verb : {_quoted(v)}" for v in terms.verbs]
        ranked = " OR ".join([*parts, *said])
        return ranked, (" OR ".join(said) if said and parts else None)

    def _telling(self, db: sqlite3.Connection, words: list[str], acting: bool) -> list[str]:
        """*words* without those whose stems are in more than half the tools, when another
        word, or the request's action (*acting*), does match a tool (with :data:`COMMON_FROM`
        tools or more).  ``bm25()`` gives such
        a term an inverse document frequency of about zero: it changes no tool's order, yet
        scoring every tool it matches is most of a search's time over thousands of tools."""
        if not self._common:
            return words
        db.execute("DELETE FROM query")
        db.executemany("INSERT INTO query (rowid, word) VALUES (?, ?)", enumerate(words))
        stems: dict[int, set[str]] = {}
        for term, row in db.execute("SELECT term, doc FROM query_terms"):
            stems.setdefault(int(row), set()).add(str(term))
        every = {term for found in stems.values() for term in found}
        marks = ", ".join("?" * len(every))
        known = {
            str(row[0])
            for row in db.execute(f"SELECT term FROM tool_terms WHERE term IN ({marks})", [*every])
        }
        telling = [w for i, w in enumerate(words) if stems.get(i, set()) & known - self._common]
        return telling or ([] if acting else words)

    def _index(self, snapshot: tuple[ToolEntry, ...]) -> sqlite3.Connection:
        db = self._db
        if db is not None and self._snapshot is snapshot:
            return db
        if db is None:
            db = self._db = _new_index()
        current = dict.fromkeys(snapshot)
        gone = [rowid for entry, rowid in self._rowids.items() if entry not in current]
        added = [entry for entry in current if entry not in self._rowids]
        if gone:
            db.executemany("DELETE FROM tools WHERE rowid = ?", [(r,) for r in gone])
            for rowid in gone:
                entry = self._entries.pop(rowid)
                del self._rowids[entry]
                self._actions.subtract(_verb_terms(entry))
        rows = []
        for entry in added:
            rowid = self._next_rowid
            self._next_rowid += 1
            self._rowids[entry], self._entries[rowid] = rowid, entry
            row = _row(entry)
            rows.append((rowid, *row))
            self._actions.update((*row[1].split(), *row[2].split()))
        db.executemany(
            "INSERT INTO tools (rowid, name, actions, verb, title, description, params, server) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        self._common = frozenset()
        if len(current) >= COMMON_FROM:
            half = len(current) / 2
            common = db.execute("SELECT term FROM tool_terms WHERE doc > ?", (half,)).fetchall()
            self._common = frozenset(str(row[0]) for row in common)
        self._snapshot = snapshot
        return db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
            self._db, self._snapshot = None, None
            self._rowids, self._entries, self._actions = {}, {}, Counter()


def _new_index() -> sqlite3.Connection:
    import sqlite3  # (standard library: loaded by the first search, not by MCPHost)

    db = sqlite3.connect(":memory:", check_same_thread=False)
    db.execute(
        "CREATE VIRTUAL TABLE tools USING fts5(name, actions, verb, title, description, params, "
        f"server UNINDEXED, tokenize = {_TOKENIZER})"
    )
    db.execute(f"CREATE VIRTUAL TABLE query USING fts5(word, tokenize = {_TOKENIZER})")
    db.execute("CREATE VIRTUAL TABLE tool_terms USING fts5vocab(tools, 'row')")
    db.execute("CREATE VIRTUAL TABLE query_terms USING fts5vocab(query, 'instance')")
    weights = ", ".join(str(w) for w in _WEIGHTS)
    db.execute("INSERT INTO tools (tools, rank) VALUES ('rank', ?)", (f"bm25({weights})",))
    return db


def _verb_terms(entry: ToolEntry) -> list[str]:
    """The action groups and the verb *entry* is indexed under."""
    _, actions, verb, *_ = _row(entry)
    return [*actions.split(), *verb.split()]


def _row(entry: ToolEntry) -> tuple[str, str, str, str, str, str, str]:
    """What *entry* is indexed under.  FTS5's tokenizer splits at ``_``, ``-`` and ``.`` itself;
    only ``camelCase`` is split here."""
    verb = name_verb(split_words(entry.tool))
    if verb is None:
        verb = description_verb(entry.description)
    properties = entry.input_schema.get("properties")
    names = (
        " ".join(map(str, list(properties)[:_MAX_PARAMETERS]))
        if isinstance(properties, dict)
        else ""
    )
    return (
        CAMEL.sub(" ", entry.name),
        " ".join(sorted(ACTIONS[verb])) if verb else "",
        verb.replace("_", " ") if verb else "",
        entry.title or "",
        entry.description,
        CAMEL.sub(" ", names),
        entry.server,
    )
