"""The type of one connection to the state database, named where both the pool and the schema
read it (psycopg is imported only by the type checker here)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import psycopg
    from psycopg.rows import TupleRow

__all__ = ["Connection"]

Connection: TypeAlias = "psycopg.Connection[TupleRow]"
"""A connection of the pool: rows come back as tuples (psycopg's default row factory)."""
