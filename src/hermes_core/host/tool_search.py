"""Tool search: the registered tools ranked by BM25 against a query, over their names, titles
and descriptions.

The ranking is SQLite's FTS5 full-text index (standard library ``sqlite3``, the index held in
memory) with its ``bm25()`` function and the Porter stemmer over Unicode words: a maintained,
widely deployed BM25, with no dependency to install (docs/tool-search.md says why not
``bm25s`` or ``rank-bm25``).  What is ours is only the text each tool is indexed under:

* its registered name split into words (``mcp_dns_delete_record`` → ``mcp dns delete
  record``; ``listRecords`` → ``list Records``), weighted highest;
* its title, then its description.

A query is split into words the same way; common English words (``a``, ``the``, ``to``)
are dropped; any remaining word may match (an ``OR`` query), and BM25 orders the matches.
Over thousands of tools, a word most of them contain is left out while another word matches
(BM25 scores it about zero; scoring it is what would cost the time).
The index is built once per registry snapshot: listing or searching an unchanged registry
re-indexes nothing.  ``sqlite3`` is imported by the first search, so a host that never
searches never loads it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from hermes_core.host.registry import ToolEntry

if TYPE_CHECKING:
    import sqlite3

__all__ = ["COMMON_FROM", "MAX_QUERY_WORDS", "ToolSearchIndex", "query_words"]

#: A query keeps at most this many words (a model may paste a paragraph).
MAX_QUERY_WORDS = 32

#: From this many tools on, a search leaves out the words most tools contain (see
#: :meth:`ToolSearchIndex._telling`).
COMMON_FROM = 1000

#: Column weights of ``bm25()``: name, title, description.
_WEIGHTS = (4.0, 2.0, 1.0)

_TOKENIZER = "'porter unicode61 remove_diacritics 2'"
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD = re.compile(r"[^\W_]+")
_STOP_TEXT = (
    "a an and are as at be by for from how i in into is it me my of on or please that the "
    "this to use using want what which with"
)
_STOP_WORDS = frozenset(_STOP_TEXT.split())


def _words(text: str) -> list[str]:
    return _WORD.findall(_CAMEL.sub(" ", text))


def query_words(query: str) -> list[str]:
    """The words of *query* that are searched for (lowercased, stop words left out)."""
    words = [w.lower() for w in _words(query)]
    kept = [w for w in words if w not in _STOP_WORDS] or words
    return list(dict.fromkeys(kept))[:MAX_QUERY_WORDS]


class ToolSearchIndex:
    """An in-memory FTS5 index of one registry snapshot; rebuilt when the snapshot changes.

    Safe to use from several threads (one lock around the connection).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snapshot: tuple[ToolEntry, ...] | None = None
        self._db: sqlite3.Connection | None = None
        self._common: frozenset[str] = frozenset()

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
        words = query_words(query)
        if not words or limit <= 0 or not snapshot:
            return []
        hidden = sorted(set(hidden_servers))
        where = f" AND server NOT IN ({', '.join('?' * len(hidden))})" if hidden else ""
        sql = "SELECT rowid FROM tools WHERE tools MATCH ?" + where + " ORDER BY rank LIMIT ?"
        with self._lock:
            db = self._index(snapshot)
            match = " OR ".join('"' + w.replace('"', '""') + '"' for w in self._telling(db, words))
            rows = db.execute(sql, (match, *hidden, limit)).fetchall()
        return [snapshot[row[0]] for row in rows]

    def _telling(self, db: sqlite3.Connection, words: list[str]) -> list[str]:
        """*words* without those whose stems are in more than half the tools, when another
        word does match a tool (with :data:`COMMON_FROM` tools or more).  ``bm25()`` gives such
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
        return telling or words

    def _index(self, snapshot: tuple[ToolEntry, ...]) -> sqlite3.Connection:
        if self._db is not None and self._snapshot is snapshot:
            return self._db
        import sqlite3  # (standard library: loaded by the first search, not by MCPHost)

        if self._db is not None:
            self._db.close()
        db = sqlite3.connect(":memory:", check_same_thread=False)
        db.execute(
            "CREATE VIRTUAL TABLE tools USING fts5(name, title, description, server UNINDEXED, "
            f"tokenize = {_TOKENIZER})"
        )
        db.execute(f"CREATE VIRTUAL TABLE query USING fts5(word, tokenize = {_TOKENIZER})")
        db.execute("CREATE VIRTUAL TABLE tool_terms USING fts5vocab(tools, 'row')")
        db.execute("CREATE VIRTUAL TABLE query_terms USING fts5vocab(query, 'instance')")
        weights = ", ".join(str(w) for w in _WEIGHTS)
        db.execute("INSERT INTO tools (tools, rank) VALUES ('rank', ?)", (f"bm25({weights})",))
        db.executemany(
            "INSERT INTO tools (rowid, name, title, description, server) VALUES (?, ?, ?, ?, ?)",
            _rows(snapshot),
        )
        self._common = frozenset()
        if len(snapshot) >= COMMON_FROM:
            half = len(snapshot) / 2
            common = db.execute("SELECT term FROM tool_terms WHERE doc > ?", (half,)).fetchall()
            self._common = frozenset(str(row[0]) for row in common)
        self._db, self._snapshot = db, snapshot
        return db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
            self._db, self._snapshot = None, None


def _rows(snapshot: Sequence[ToolEntry]) -> list[tuple[int, str, str, str, str]]:
    return [
        (
            index,
            " ".join(_words(entry.name)),
            entry.title or "",
            entry.description,
            entry.server,
        )
        for index, entry in enumerate(snapshot)
    ]
