"""A JSON text's nesting, measured before it is parsed (issue 42 item 18): the legacy sessions
index reads the same at the top of a program and deep inside a server's tool call."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_core.nesting import json_text_depth
from hermes_core.sessions.legacy import MAX_DEPTH, read_legacy_index


@pytest.mark.parametrize(
    ("text", "limit", "deeper"),
    [
        ("{}", 1, False),
        ("[[]]", 1, True),
        ('{"a": [1, {"b": 2}]}', 3, False),
        ('{"a": [1, {"b": 2}]}', 2, True),
        ('["[[[[[[", "{{{{{{"]', 1, False),  # brackets inside strings are not nesting
        ('["\\"[[[", []]', 1, True),  # an escaped quote does not end the string
        ("[" * 100_000, 64, True),  # not JSON, still measured without recursion
        ("]]]]" + "[" * 3, 3, False),
    ],
)
def test_depth_is_measured_on_the_text(text: str, limit: int, deeper: bool) -> None:
    assert (json_text_depth(text) > limit) is deeper


def _under_a_deep_stack(frames: int, call: Callable[[], Any]) -> Any:
    """*call* run beneath *frames* Python frames (as a tool call runs beneath the server's)."""
    if frames == 0:
        return call()
    return _under_a_deep_stack(frames - 1, call)


@pytest.mark.parametrize("depth", [70, 400, 900, 5000])
def test_a_deep_legacy_index_reads_the_same_whatever_the_callers_stack(
    tmp_path: Path, depth: int
) -> None:
    index = tmp_path / "sessions.json"
    nested = "[" * depth + "]" * depth
    index.write_text(
        json.dumps({"t:1": {"platform": "slack", "updated_at": 5}})[:-1] + f', "x": {nested}}}'
    )
    assert sys.getrecursionlimit() >= 1000
    at_the_top = read_legacy_index(index)
    deep = _under_a_deep_stack(sys.getrecursionlimit() - 200, lambda: read_legacy_index(index))
    assert at_the_top == deep == []  # past MAX_DEPTH: not read, wherever it is asked


def test_an_index_within_the_bound_is_read(tmp_path: Path) -> None:
    index = tmp_path / "sessions.json"
    nested = "[" * (MAX_DEPTH - 3) + "]" * (MAX_DEPTH - 3)
    entry = {"platform": "slack [", "display_name": "ops {", "updated_at": 5}
    index.write_text(json.dumps({"t:1": entry})[:-2] + f', "extra": {nested}}}}}')
    found = _under_a_deep_stack(sys.getrecursionlimit() - 200, lambda: read_legacy_index(index))
    assert [(c.session_key, c.platform, c.title) for c in found] == [("t:1", "slack [", "ops {")]
