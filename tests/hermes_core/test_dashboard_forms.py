"""A tool's input schema as the dashboard's form, and the submitted form back as arguments
(no browser: the conversion alone)."""

from __future__ import annotations

import pytest

from hermes_core.dashboard.schema_form import ArgumentError, arguments, fields, form_fields
from hermes_core.dashboard.security import Secrets

SCHEMA = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "description": "what to say"},
        "times": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
        "ratio": {"type": ["number", "null"]},
        "mood": {"enum": ["quiet", "lively"]},
        "loud": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    },
    "required": ["text"],
}


def test_each_property_becomes_the_field_of_its_kind() -> None:
    kinds = {f.name: (f.kind, f.nullable, f.required) for f in fields(SCHEMA)}
    assert kinds == {
        "text": ("string", False, True),
        "times": ("integer", True, False),
        "ratio": ("number", True, False),
        "mood": ("enum", False, False),
        "loud": ("boolean", False, False),
        "tags": ("json", False, False),
        "either": ("json", False, False),
    }
    html = form_fields(SCHEMA)
    assert 'name="n:times"' in html and 'name="n:ratio"' in html and 'name="n:text"' not in html
    assert '<option value="&quot;lively&quot;">' in html


def test_the_form_comes_back_as_typed_arguments() -> None:
    form = {
        "a:text": "hi",
        "a:times": "3",
        "n:ratio": "on",
        "a:mood": '"lively"',
        "a:loud": "true",
        "a:tags": '["a", "b"]',
        "a:either": "",
    }
    assert arguments(SCHEMA, form) == {
        "text": "hi",
        "times": 3,
        "ratio": None,
        "mood": "lively",
        "loud": True,
        "tags": ["a", "b"],
    }
    assert arguments(SCHEMA, {"a:text": ""}) == {"text": ""}  # a required string may be empty
    assert arguments(SCHEMA, {"__json__": '{"text": "raw"}', "a:text": "ignored"}) == {
        "text": "raw"
    }


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"a:text": "x", "a:times": "two"}, "times: 'two' is not a valid integer"),
        ({"a:text": "x", "a:tags": "[oops"}, "tags: '[oops' is not a valid json"),
        ({"__json__": "[1]"}, "arguments JSON must be an object"),
    ],
)
def test_a_wrong_value_is_one_sentence_naming_the_field(form: dict[str, str], message: str) -> None:
    with pytest.raises(ArgumentError, match="^" + message.replace("[", r"\[")):
        arguments(SCHEMA, form)


def test_the_login_token_works_once_and_no_secret_is_in_repr() -> None:
    keys = Secrets()
    assert not keys.spend("wrong")
    assert keys.spend(keys.login)
    assert not keys.spend(keys.login)
    assert keys.login not in repr(keys) and keys.session not in repr(keys)
