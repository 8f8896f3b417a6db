"""Clean one string before a model or a terminal sees it: TAG characters, controls, invisibles.

**TAG characters.**  Unicode TAG characters (U+E0000–U+E007F) are invisible in every terminal and
chat UI, yet models read them, so a server can hide instructions in a description or a result
("ASCII smuggling").  :func:`strip_tags` removes all of them except inside a well-formed emoji tag
sequence, the subdivision flags (🏴 + tag letters/digits + CANCEL TAG: Scotland, Wales, England,
US states...).  A flag sequence is kept only when its tag part spells a Unicode subdivision id
(UTS #51 / CLDR ``unicode_subdivision_id``: two lowercase letters or three digits, then one to
four lowercase letters or digits), so a flag cannot carry a payload of more than seven
lowercase-alphanumeric tags; a lone run, an unterminated run (the 🏴 survives, its tags do not) or
a run after any other character is removed.

**Controls and invisible characters.**  :func:`clean_text` also removes what lets a server
rewrite the user's terminal or hide text from a reader: C0 controls except tab and newline
(``ESC[2J``, OSC titles, ``\\r`` overwriting a line, backspaces), DEL and C1 controls
(U+0080–U+009F, ``CSI`` on some terminals); bidi embeddings, overrides and isolates
(U+202A–U+202E, U+2066–U+2069: "Trojan Source" reordering); zero-width and invisible format
characters (U+200B, U+2060–U+2064, U+FEFF, U+180E, U+206A–U+206F).  ZERO WIDTH JOINER /
NON-JOINER (U+200D/U+200C) are kept only alone between two non-ASCII characters, where emoji
sequences and Indic or Persian writing need them; anywhere else, or in runs, they go.
:func:`clean_line` is for text shown on one line (it turns line breaks into spaces).
"""

from __future__ import annotations

import re

__all__ = [
    "ASCII_CONTROL",
    "LONG_ASCII",
    "SHORT_ASCII",
    "ascii_control",
    "clean_line",
    "clean_text",
    "has_ascii_control",
    "strip_tags",
]

_ANY_TAG = re.compile("[\U000e0000-\U000e007f]")
_TAG_LOWER = "[\U000e0061-\U000e007a]"  # TAG LATIN SMALL LETTER A..Z
_TAG_DIGIT = "[\U000e0030-\U000e0039]"  # TAG DIGIT ZERO..NINE
_TAG_ALNUM = "[\U000e0030-\U000e0039\U000e0061-\U000e007a]"
_FLAG_SEQUENCE = f"\U0001f3f4(?:{_TAG_LOWER}{{2}}|{_TAG_DIGIT}{{3}}){_TAG_ALNUM}{{1,4}}\U000e007f"
_FLAG = re.compile(_FLAG_SEQUENCE)
_TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")


def strip_tags(text: str) -> str:
    """*text* without Unicode TAG characters, keeping well-formed subdivision flags whole.

    When nothing is removed (no TAG characters, or only inside flags) the same object comes
    back.  Linear in ``len(text)``: the
    flag pattern is bounded (at most nine characters per 🏴 tried) and the rest is plain deletion.
    """
    if text.isascii() or _ANY_TAG.search(text) is None:
        return text
    parts: list[str] = []
    start = 0
    for flag in _FLAG.finditer(text):
        parts.append(_TAG_RUN.sub("", text[start : flag.start()]))
        parts.append(flag.group())
        start = flag.end()
    parts.append(_TAG_RUN.sub("", text[start:]))
    result = "".join(parts)
    # Only deletions happen, so equal length means nothing was removed (only valid flags).
    return text if len(result) == len(text) else result


_INVISIBLE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 but tab and newline, DEL, C1
    "\u180e\u200b\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
)
_ANY_INVISIBLE = re.compile(f"[{_INVISIBLE}]")
# A joiner survives only alone between two non-ASCII characters (after the rest is gone).
_STRAY_JOINER = re.compile(
    "(?<![^\x00-\x7f\u200c\u200d])[\u200c\u200d]|[\u200c\u200d](?![^\x00-\x7f\u200c\u200d])"
)
_JOINER_RUN = re.compile("[\u200c\u200d]{2,}")
ASCII_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
_ASCII_CONTROLS = tuple(chr(code) for code in (*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F))
#: Above this length one ``in`` test per control character (a ``memchr`` each, about 0.3 ns a
#: character together) beats the regex (several ns a character); below it, one regex call wins.
LONG_ASCII = 512
#: For callers that check short ASCII text themselves (one regex search, no call of ours):
#: ``len(text) < SHORT_ASCII and text.isascii() and ascii_control(text) is None`` means
#: :func:`clean_text` would return *text* unchanged.
SHORT_ASCII = LONG_ASCII
ascii_control = ASCII_CONTROL.search


def has_ascii_control(text: str) -> bool:
    """Whether the pure-ASCII *text* holds a control :func:`clean_text` removes."""
    if len(text) < LONG_ASCII:
        return ASCII_CONTROL.search(text) is not None
    return any(control in text for control in _ASCII_CONTROLS)


_NEEDS_CLEANING = re.compile(f"[{_INVISIBLE}\u200c\u200d\U000e0000-\U000e007f]")


def clean_text(text: str) -> str:
    """*text* without TAG characters (:func:`strip_tags`), controls other than tab and newline,
    bidi overrides and isolates, and zero-width characters (see the module docstring).

    When nothing is removed the same object comes back.  Linear in ``len(text)``.
    """
    if text.isascii():  # a flag the string keeps: no scan
        return _ANY_INVISIBLE.sub("", text) if has_ascii_control(text) else text
    if _NEEDS_CLEANING.search(text) is None:
        return text
    result = _ANY_INVISIBLE.sub("", strip_tags(text))
    if "\u200c" in result or "\u200d" in result:
        result = _STRAY_JOINER.sub("", _JOINER_RUN.sub("", result))
    return text if result == text else result


def clean_line(text: str) -> str:
    """:func:`clean_text` for one line of a terminal: line breaks and tabs become spaces."""
    return clean_text(text.replace("\r\n", " ").replace("\n", " ").replace("\t", " "))
