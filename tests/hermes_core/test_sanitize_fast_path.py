"""The scan of ``sanitize_value`` (a walk that skips ASCII strings) against the slow way.

The reference below walks every string and asks :func:`clean_text` of each (TAG characters,
controls, invisible characters); the fast path is held to it: the same result, and the same
object back whenever nothing changes.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_core.sanitize import clean_text, sanitize_value
from hermes_core.sanitize.text import _ANY_INVISIBLE
from hermes_core.sanitize.values import _rebuild

BLACK_FLAG = "\U0001f3f4"


def _slow_contains(root: Any) -> bool:
    """The straightforward decision: walk everything, ask clean_text of every string."""
    seen: set[int] = set()
    stack: list[Any] = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if clean_text(item) is not item:
                return True
        elif isinstance(item, dict | list | tuple) and id(item) not in seen:
            seen.add(id(item))
            stack.extend([*item.keys(), *item.values()] if isinstance(item, dict) else item)
    return False


def old_sanitize_value(obj: Any) -> Any:
    if isinstance(obj, str):
        return clean_text(obj)
    if not isinstance(obj, dict | list | tuple):
        return obj
    if not _slow_contains(obj):
        return obj
    return _rebuild(obj)


# Characters that matter: ASCII, other non-ASCII text, TAG letters/digits/CANCEL, the black flag.
_PIECES = st.sampled_from(
    ["a", "Z", "0", " ", '"', "\\", "\n", "\x1f", "\x1b", "\x85", "\u202e", "é", "日"]
    + ["\u200b", "\u200d", BLACK_FLAG, "\U000e007f"]
    + [chr(0xE0000 + ord(c)) for c in "gbsctx19 A"]
)
_TEXT = st.lists(_PIECES, max_size=12).map("".join) | st.text(max_size=8)
_SCALARS = _TEXT | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none()
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(_TEXT, inner, max_size=4)
    ),
    max_leaves=24,
)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_the_fast_scan_gives_the_old_result(value: Any) -> None:
    expected = old_sanitize_value(value)
    got = sanitize_value(value)
    assert got == expected
    assert (got is value) == (expected is value)
    assert type(got) is type(expected)


def test_an_ascii_result_comes_back_as_the_same_object() -> None:
    big = {"content": [{"type": "text", "text": "x" * 200_000}], "isError": False}
    assert sanitize_value(big) is big


def test_a_tag_deep_inside_a_large_result_is_still_found() -> None:
    hidden = "ok" + "".join(chr(0xE0000 + ord(c)) for c in "run rm -rf")
    value = {"rows": [{"id": i, "name": f"row {i}"} for i in range(2_000)] + [{"note": hidden}]}
    cleaned = sanitize_value(value)
    assert cleaned["rows"][-1] == {"note": "ok"}
    assert cleaned["rows"][:-1] == value["rows"][:-1]
    assert value["rows"][-1]["note"] == hidden  # the input is left as it was


def test_shared_and_self_referencing_values_behave_as_before() -> None:
    shared = ["é"]
    value: dict[str, Any] = {"a": shared, "b": shared}
    assert sanitize_value(value) is value
    loop: list[Any] = ["clean"]
    loop.append(loop)
    assert sanitize_value(loop) is loop  # no TAG anywhere: the walk ends, nothing is copied


# Long ASCII text takes another search (one ``in`` per control character instead of the
# regex); it must find every control the regex finds, wherever it sits, and only those.
_ASCII_CHARS = st.sampled_from([chr(c) for c in range(0x80)])
Insert = tuple[float, str]  # (where, as a fraction of the length; the character)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=600, max_value=3_000),
    st.lists(st.tuples(st.floats(0, 1), _ASCII_CHARS), max_size=3),
)
def test_long_ascii_text_is_held_to_the_regex(
    length: int, inserts: list[tuple[float, str]]
) -> None:
    text = ("The quick brown fox\tjumps over the lazy dog.\n" * 80)[:length]
    for where, char in inserts:
        at = int(where * len(text))
        text = text[:at] + char + text[at:]
    # The reference: the regex of every character clean_text removes, over the whole text.
    expected = _ANY_INVISIBLE.sub("", text)
    assert clean_text(text) == expected
    value = {"content": [{"type": "text", "text": text}], "isError": False}
    got = sanitize_value(value)
    assert got["content"][0]["text"] == expected
    assert (got is value) == (expected == text)


def test_every_ascii_control_is_found_in_long_text_at_either_end() -> None:
    body = "x" * 1_000
    for code in [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F]:
        for text in (chr(code) + body, body + chr(code), body[:500] + chr(code) + body[500:]):
            assert clean_text(text) == body
            assert sanitize_value([text]) == [body]
    for kept in ("\t", "\n"):
        text = body + kept
        assert clean_text(text) is text


# -- results: the usual text-only result is rendered directly ---------------------------------
_TEXTS = st.one_of(
    st.text(max_size=40),  # any character: controls, TAG characters, zero-width, bidi
    st.text(alphabet=st.characters(max_codepoint=0x7F), min_size=500, max_size=700),
    st.sampled_from(["Echo: ping", "", "a\x1bb", "x\U000e0041y", "a\u200bb", "rtl\u202e"]),
)


@st.composite
def _results(draw: st.DrawFn) -> Any:
    from mcp_types import CallToolResult, ImageContent, TextContent

    content: list[Any] = []
    for text in draw(st.lists(_TEXTS, max_size=4)):
        extra: dict[str, Any] = {}
        if draw(st.integers(0, 9)) == 0:
            extra["annotations"] = {"audience": ["user"], "priority": 0.5}
        if draw(st.integers(0, 9)) == 0:
            extra["_meta"] = {draw(st.sampled_from(["k", "mcp/x", "a\u200bb"])): text}
        content.append(TextContent(type="text", text=text, **extra))
    if draw(st.integers(0, 9)) == 0:
        content.append(ImageContent(type="image", data="aGk=", mimeType="image/png"))
    fields: dict[str, Any] = {"content": content, "isError": draw(st.booleans())}
    if draw(st.integers(0, 9)) == 0:
        fields["structuredContent"] = {"answer": draw(_TEXTS)}
    if draw(st.integers(0, 9)) == 0:
        fields["_meta"] = {"note": draw(_TEXTS)}
    if draw(st.integers(0, 9)) == 0:
        fields["resultType"] = draw(st.sampled_from(["complete", "other", "x\u200by"]))
    if draw(st.integers(0, 9)) == 0:
        fields["unknownField"] = draw(_TEXTS)
    return CallToolResult.model_validate(fields)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(_results())
def test_a_text_result_rendered_directly_equals_the_general_render(result: Any) -> None:
    from hermes_core.host.calls.render import plain_text_result as _plain_text_result
    from hermes_core.host.calls.render import render_any_result as _render_any_result
    from hermes_core.host.calls.render import render_result as _render_result

    general = _render_any_result(result)
    assert _render_result(result) == general
    direct = _plain_text_result(result)
    if direct is not None:  # only ever the same as the general way, never different
        assert direct == general
        assert list(direct) == list(general)  # the same keys, in the same order


def test_the_usual_result_is_rendered_directly() -> None:
    from mcp_types import CallToolResult, TextContent

    from hermes_core.host.calls.render import plain_text_result as _plain_text_result

    plain = CallToolResult(content=[TextContent(type="text", text="Echo: ping")])
    assert _plain_text_result(plain) == {
        "content": [{"type": "text", "text": "Echo: ping"}],
        "isError": False,
        "resultType": "complete",
    }
    tagged = CallToolResult(content=[TextContent(type="text", text="hi\U000e0041")])
    assert _plain_text_result(tagged) is None  # cleaned by the general way
