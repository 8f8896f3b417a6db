"""The proxy's hot path writes the usual result's JSON itself: the same JSON the SDK's model
would dump, and any other shape still goes through the model (validated)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hermes_core.serve.proxy.server import call_result, plain_result_json


def _text(*texts: str, is_error: bool = False) -> dict[str, Any]:
    content = [{"type": "text", "text": t} for t in texts]
    return {"content": content, "isError": is_error, "resultType": "complete"}


@pytest.mark.parametrize(
    "result",
    [
        _text("Echo: ping"),
        _text(),
        _text('quotes " and \\ and \n\t controls \x01 \x7f', "two"),
        _text("failed", is_error=True),
    ],
)
def test_the_usual_result_is_written_as_the_model_dumps_it(result: dict[str, Any]) -> None:
    expected = call_result(result).model_dump_json(by_alias=True, exclude_none=True)
    written = plain_result_json(result)
    assert written is not None and json.loads(written) == json.loads(expected)


@pytest.mark.parametrize(
    "result",
    [
        _text("héllo"),  # non-ASCII text (a lone surrogate must meet the model's checks)
        _text("a\ud800b"),
        {**_text("x"), "structuredContent": {"a": 1}},
        {**_text("x"), "_meta": {"k": "v"}},
        {"content": [{"type": "text", "text": "x", "annotations": {}}], "isError": False},
        {"content": [{"type": "image", "data": "", "mimeType": "image/png"}], "isError": False},
        {"content": [{"type": "text", "text": 3}], "isError": False, "resultType": "complete"},
        {"content": "x", "isError": False, "resultType": "complete"},
        {"content": [], "isError": "no", "resultType": "complete"},
        {"error": "not connected", "state": "not_connected"},
    ],
)
def test_any_other_shape_takes_the_models_way(result: dict[str, Any]) -> None:
    assert plain_result_json(result) is None
