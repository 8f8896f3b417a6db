"""How deep a JSON text nests, found without parsing it.

``json.loads`` recurses once per level of nesting, so whether a deep document parses depends on
how deep the caller's own stack already is: the same file can read at the top of a script and
fail with ``RecursionError`` inside a server's tool call.  Checking the text first, in a loop,
makes the answer the same wherever it is asked.  Standard library only.
"""

from __future__ import annotations

import re

__all__ = ["json_deeper_than"]

# A JSON string (escapes included), or one bracket: strings are skipped so that a bracket inside
# one is not counted.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)


def json_deeper_than(text: str, limit: int) -> bool:
    """Whether the arrays and objects of the JSON *text* nest more than *limit* levels deep.

    Linear in the text and without recursion; text that is not JSON is measured all the same
    (the parser that follows says what is wrong with it)."""
    depth = 0
    for match in _TOKEN.finditer(text):
        char = match.group()[0]
        if char in "[{":
            depth += 1
            if depth > limit:
                return True
        elif char in "]}":
            depth = max(depth - 1, 0)
    return False
