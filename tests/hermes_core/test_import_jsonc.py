"""Client configs with comments are read in linear time (issue 27, item 14).

A 200 KB Cursor ``mcp.json`` with one ``//`` comment took 15 s through the pure-Python json5
parser (400 KB: 81 s), so a hostile file within the 64 MiB cap could hold an import for hours.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hermes_core.importing.jsonc import JsoncError, loads_jsonc, strip_jsonc
from hermes_core.importing.model import SourceError
from hermes_core.importing.sources import SOURCES, read_servers


def _big_config(servers: int) -> str:
    """A Cursor config with one comment at the top and *servers* entries (about 110 bytes each)."""
    rows = ",\n".join(
        f'    "s{i}": {{"command": "npx", "args": ["-y", "pkg-{i}"], "env": {{"K": "v{i}"}}}}'
        for i in range(servers)
    )
    return '{\n  // my servers\n  "mcpServers": {\n' + rows + ",\n  },\n}\n"


def _seconds(text: str) -> float:
    start = time.perf_counter()
    loads_jsonc(text)
    return time.perf_counter() - start


def test_a_large_commented_file_is_read_in_linear_time() -> None:
    small = _big_config(2_500)  # about 200 KB: 15 s with json5
    large = _big_config(20_000)  # 8 times larger
    assert len(small) > 180_000
    assert len(loads_jsonc(small)["mcpServers"]) == 2_500
    best_small = min(_seconds(small) for _ in range(3))
    best_large = min(_seconds(large) for _ in range(3))
    assert best_small < 1.0, best_small
    # Linear: 8 times the input costs about 8 times the time (quadratic would be 64 times).
    assert best_large < max(best_small, 0.005) * 24, (best_small, best_large)


def test_a_hostile_run_of_quotes_and_escapes_stays_linear() -> None:
    # Unterminated strings full of escaped quotes made regex-based strippers restart at every
    # quote; the scanner looks at each character once.
    for body in ('"\\"' * 200_000, "/" * 400_000, "," * 400_000, "/*" + " " * 400_000):
        start = time.perf_counter()
        with pytest.raises(JsoncError):
            loads_jsonc(body)
        assert time.perf_counter() - start < 2.0, body[:10]


def test_comments_and_trailing_commas_but_not_inside_strings() -> None:
    text = (
        "{\n"
        '  "url": "http://example.com/a//b", // a comment\n'
        '  "text": "a,] /* not a comment */ ,}",\n'
        "  /* block\n     comment */\n"
        '  "list": [1, 2, /* c */ ],\n'
        '  "escaped": "quote \\" // still a string",\n'
        "}\n"
    )
    assert loads_jsonc(text) == {
        "url": "http://example.com/a//b",
        "text": "a,] /* not a comment */ ,}",
        "list": [1, 2],
        "escaped": 'quote " // still a string',
    }
    # Line breaks are kept, so the parser's line numbers are the file's.
    assert strip_jsonc(text).count("\n") == text.count("\n")


def test_errors_name_the_line() -> None:
    with pytest.raises(JsoncError) as caught:
        loads_jsonc('{\n  // fine\n  "a": 1,\n  "b" 2,\n}\n')
    assert caught.value.line == 4
    with pytest.raises(JsoncError, match="never closed") as unclosed:
        loads_jsonc('{\n\n  /* open\n  "a": 1}')
    assert unclosed.value.line == 3
    # Still strict JSON otherwise: a double comma is not a trailing comma.
    with pytest.raises(JsoncError):
        loads_jsonc("[1,,]")


def test_the_import_reports_the_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "mcp.json"
    bad.write_text('{\n  // servers\n  "mcpServers": {"a": {"command": x}}\n}\n')
    with pytest.raises(SourceError, match=r"mcp\.json:3: not valid JSON with comments"):
        read_servers(SOURCES["cursor"], paths=[bad])
    good = tmp_path / "good.json"
    good.write_text(_big_config(3))
    servers, _ = read_servers(SOURCES["cursor"], paths=[good])
    assert [s.name for s in servers] == ["s0", "s1", "s2"]


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(_json)
def test_plain_json_reads_the_same(value: object) -> None:
    for text in (json.dumps(value), json.dumps(value, indent=2)):
        assert loads_jsonc(text) == value


def test_reading_a_large_commented_cursor_config_takes_well_under_a_second(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(_big_config(2_500))  # 200 KB, one comment: 15 s through json5
    start = time.perf_counter()
    servers, _ = read_servers(SOURCES["cursor"], paths=[config])
    assert time.perf_counter() - start < 2.0
    assert len(servers) == 2_500


def test_a_comma_after_an_opening_bracket_is_not_a_trailing_comma() -> None:
    for text in ("{,}", "[,]", '{"a": ,}', "[1,,]"):
        with pytest.raises(JsoncError):
            loads_jsonc(text)
