"""Elicitation: a server asks the user for structured input in the middle of a tool call.

The host answers ``elicitation/create`` through an *elicitor*, the user-facing side the agent
provides (a terminal prompt, an approval button in a chat).  The host does the rest, so every
elicitor behaves the same:

* ``elicitation.enabled: false`` (per server) and a host without an elicitor advertise no
  elicitation capability, so servers do not ask at all.
* URL mode (the server shows the user an external page) is declined at once, without asking.
* Form mode: the elicitor gets an :class:`ElicitationRequest` (the server's message, the fields
  with their types, descriptions and defaults).  Its :class:`ElicitationAnswer` is checked:
  fields it leaves out take the schema's ``default`` (SEP-1034), values are checked against the
  field's type and enum, and an answer that does not fit the schema is declined, never passed on.
* No answer within ``elicitation.timeout`` seconds (default 300, the approval default) cancels
  the request; an elicitor that raises declines it.  Nothing is accepted without an answer.
* Per-server counters: ``requests``, ``accepted``, ``declined``, ``cancelled``, ``errors``.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias

from pydantic import ValidationError

from hermes_core.config.elicitation import DEFAULT_ELICITATION_TIMEOUT, ElicitationConfig
from hermes_core.sanitize import clean_text

if TYPE_CHECKING:
    from mcp.client.context import ClientRequestContext
    from mcp_types import ElicitRequestParams, ElicitResult

__all__ = [
    "ElicitationAnswer",
    "ElicitationField",
    "ElicitationHandler",
    "ElicitationRequest",
    "ElicitationSettings",
    "Elicitor",
    "check_value",
    "elicitation_settings",
    "fill_answer",
]

log = logging.getLogger("hermes_core.host.elicitation")  # its name before the move
DEFAULT_TIMEOUT = DEFAULT_ELICITATION_TIMEOUT
Action = Literal["accept", "decline", "cancel"]
FormValue: TypeAlias = str | int | float | bool | list[str]
"""A checked answer to one field of a form (what ``elicitation/create`` sends back)."""


ElicitationSettings = ElicitationConfig
"""A server's ``elicitation:`` block (the config model: ``enabled``, ``timeout``)."""


def elicitation_settings(
    server: str, cfg: ElicitationConfig | Mapping[str, object] | None
) -> ElicitationSettings:
    """*cfg* as settings (``None``: the defaults); ``ValueError`` names the server and the
    key that is wrong in a mapping (``config.yaml`` is checked when it is read)."""
    if isinstance(cfg, ElicitationConfig):
        return cfg
    try:
        return ElicitationConfig.model_validate(cfg or {})
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        loc = tuple(error["loc"]) + tuple((error.get("ctx") or {}).get("sub", ()))
        key = ".".join(str(part) for part in loc)
        reason = error["ctx"]["reason"] if error["type"] == "hermes_config" else "is not valid"
        raise ValueError(f"MCP server '{server}': elicitation.{key} {reason}") from None


@dataclass(frozen=True)
class ElicitationField:
    """One field of a form request."""

    name: str
    type: str
    """``string``, ``number``, ``integer`` or ``boolean``."""
    title: str | None = None
    description: str | None = None
    required: bool = False
    default: object = None
    """The schema's ``default``, as the server sent it (checked when it is used)."""
    choices: tuple[str, ...] = ()
    """The allowed values of an enum field (empty otherwise)."""
    multiple: bool = False
    """An enum field taking a list of its choices."""
    labels: tuple[str, ...] = ()
    """What to show for each of *choices* (titled ``oneOf``/``anyOf`` options, legacy
    ``enumNames``); empty when the choices are shown as they are."""
    format: str | None = None
    """A string's ``format``: ``email``, ``uri``, ``date`` and ``date-time`` are checked."""
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    """For a string: its length; for a multiple-choice field: how many choices."""
    max_length: int | None = None

    def label(self, choice: str) -> str:
        """What to show for *choice* (its title when the schema gives one)."""
        if len(self.labels) == len(self.choices) and choice in self.choices:
            return self.labels[self.choices.index(choice)]
        return choice


@dataclass(frozen=True)
class ElicitationRequest:
    """What the elicitor is asked to show the user."""

    server: str
    message: str
    fields: tuple[ElicitationField, ...]
    schema: Mapping[str, object] = field(repr=False)
    kind: Literal["form", "approval"] = "form"
    """``approval``: the host itself asks whether to go ahead (no fields; accept means yes),
    e.g. before a write-capable tool of an untrusted server runs."""
    remember: bool = False
    """For an approval: the answer may also be kept for the tool — accept with content
    ``{"remember": "always"}``, decline with ``{"remember": "never"}``."""
    subject: Literal["tool_call", "sampling"] = "tool_call"
    """What an approval is for: a tool call, or a server's sampling request (what the
    approvals in ``state.db`` are recorded as)."""


@dataclass(frozen=True)
class ElicitationAnswer:
    """The user's answer; with ``accept``, *content* holds the fields the user gave."""

    action: Action
    content: Mapping[str, object] | None = field(default=None, repr=False)


Elicitor = Callable[[ElicitationRequest], Awaitable[ElicitationAnswer]]
"""The user-facing side: show the request, return the answer."""


def request_fields(schema: Mapping[str, object]) -> tuple[ElicitationField, ...]:
    """The fields of a form's ``requestedSchema`` (flat objects of primitives, per the spec)."""
    properties = schema.get("properties")
    required = schema.get("required")
    required_names = set(required) if isinstance(required, list) else set()
    fields: list[ElicitationField] = []
    for name, spec in (properties or {}).items() if isinstance(properties, Mapping) else ():
        if not isinstance(spec, Mapping):
            continue
        kind = spec.get("type")
        choices, multiple, labels = _choices(spec)
        counted = ("minItems", "maxItems") if multiple else ("minLength", "maxLength")
        fields.append(
            ElicitationField(
                name=str(name),
                type=kind if isinstance(kind, str) else "string",
                title=_text(spec.get("title")),
                description=_text(spec.get("description")),
                required=name in required_names,
                default=spec.get("default"),
                choices=choices,
                multiple=multiple,
                labels=labels,
                format=_text(spec.get("format")),
                minimum=_number(spec.get("minimum")),
                maximum=_number(spec.get("maximum")),
                min_length=_count(spec.get(counted[0])),
                max_length=_count(spec.get(counted[1])),
            )
        )
    return tuple(fields)


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _text(value: object) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None


def _choices(spec: Mapping[str, object]) -> tuple[tuple[str, ...], bool, tuple[str, ...]]:
    """``(choices, multiple, labels)``: the allowed values, whether a list of them is asked
    for, and their titles (``oneOf``/``anyOf`` with ``const``/``title``, or ``enumNames``)."""
    items = spec.get("items")
    if spec.get("type") == "array" and isinstance(items, Mapping):
        inner = _choices(items)
        return inner[0], True, inner[2]
    enum = spec.get("enum")
    if isinstance(enum, list):
        choices = tuple(str(v) for v in enum)
        names = spec.get("enumNames")
        if isinstance(names, list) and len(names) == len(choices):
            return choices, False, tuple(str(n) for n in names)
        return choices, False, ()
    for key in ("oneOf", "anyOf"):
        options = spec.get(key)
        if isinstance(options, list):
            pairs = [
                (str(o["const"]), o.get("title"))
                for o in options
                if isinstance(o, Mapping) and o.get("const") is not None
            ]
            titled = all(isinstance(t, str) and t for _, t in pairs)
            titles = tuple(str(t) for _, t in pairs) if pairs and titled else ()
            return tuple(c for c, _ in pairs), False, titles
    return (), False, ()


def fill_answer(
    fields: tuple[ElicitationField, ...], given: Mapping[str, object]
) -> dict[str, FormValue]:
    """The content to send: *given* plus defaults for what it leaves out, checked.

    ``ValueError`` says which field does not fit (a wrong type, a value outside the enum,
    a required field with neither an answer nor a default, a field the form does not have).
    """
    known = {f.name: f for f in fields}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ValueError(f"the form has no field {unknown[0]!r}")
    content: dict[str, FormValue] = {}
    for item in fields:
        if item.name in given and given[item.name] is not None:
            value = given[item.name]
        elif item.default is not None:
            value = item.default
        elif item.required:
            raise ValueError(f"the required field {item.name!r} has no value")
        else:
            continue
        content[item.name] = check_value(item, value)
    return content


def check_value(item: ElicitationField, value: object) -> FormValue:
    """*value* if it fits *item* (type, choices, ``format``, ``minimum``/``maximum``,
    ``minLength``/``maxLength``); ``ValueError`` says what does not."""

    def wrong(what: str) -> ValueError:
        return ValueError(f"field {item.name!r} must be {what} (got {type(value).__name__})")

    if item.multiple:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise wrong("a list of text")
        outside = [v for v in value if item.choices and v not in item.choices]
        if outside:
            raise ValueError(f"field {item.name!r}: {outside[0]!r} is not one of its choices")
        _check_length(item, len(value), "choices")
        return list(value)
    if item.type == "boolean":
        if not isinstance(value, bool):
            raise wrong("true or false")
    elif item.type == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise wrong("a whole number")
    elif item.type == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise wrong("a number")
    elif not isinstance(value, str):
        raise wrong("text")
    if item.choices and str(value) not in item.choices:
        raise ValueError(f"field {item.name!r}: {value!r} is not one of its choices")
    if isinstance(value, str):
        _check_length(item, len(value), "characters")
        if item.format in _FORMATS and not _FORMATS[item.format](value):
            raise ValueError(f"field {item.name!r} must be {_FORMAT_WORDS[item.format]}")
    elif not isinstance(value, bool):
        if item.minimum is not None and value < item.minimum:
            raise ValueError(f"field {item.name!r} must be at least {item.minimum:g}")
        if item.maximum is not None and value > item.maximum:
            raise ValueError(f"field {item.name!r} must be at most {item.maximum:g}")
    return value


def _check_length(item: ElicitationField, size: int, unit: str) -> None:
    if item.min_length is not None and size < item.min_length:
        raise ValueError(f"field {item.name!r} needs at least {item.min_length} {unit}")
    if item.max_length is not None and size > item.max_length:
        raise ValueError(f"field {item.name!r} takes at most {item.max_length} {unit}")


_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s.]+")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})")


def _is_date(text: str) -> bool:
    if not _DATE.fullmatch(text):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _is_date_time(text: str) -> bool:
    if not _DATE_TIME.fullmatch(text):
        return False
    try:
        datetime.datetime.fromisoformat(text.replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


_FORMATS: dict[str, Callable[[str], bool]] = {
    "email": lambda text: bool(_EMAIL.fullmatch(text)),
    "uri": lambda text: bool(_URI.fullmatch(text)),
    "date": _is_date,
    "date-time": _is_date_time,
}
_FORMAT_WORDS = {
    "email": "an email address (name@example.com)",
    "uri": "a URI (https://example.com/…)",
    "date": "a date (YYYY-MM-DD)",
    "date-time": "a date and time with its time zone (YYYY-MM-DDTHH:MM:SSZ)",
}


@dataclass
class ElicitationCounters:
    requests: int = 0
    accepted: int = 0
    declined: int = 0
    cancelled: int = 0
    errors: int = 0


class ElicitationHandler:
    """The SDK's ``elicitation_callback`` for one server (see the module docstring)."""

    def __init__(self, server: str, elicitor: Elicitor, settings: ElicitationSettings) -> None:
        self.server = server
        self.elicitor = elicitor
        self.settings = settings
        self.counters = ElicitationCounters()

    def __repr__(self) -> str:
        return f"ElicitationHandler({self.server!r})"

    async def __call__(
        self, context: ClientRequestContext, params: ElicitRequestParams
    ) -> ElicitResult:
        from mcp import types

        self.counters.requests += 1
        action, content = await self._answer(params)
        if action == "accept":
            self.counters.accepted += 1
        elif action == "cancel":
            self.counters.cancelled += 1
        else:
            self.counters.declined += 1
        return types.ElicitResult(action=action, content=None if content is None else {**content})

    async def _answer(
        self, params: ElicitRequestParams
    ) -> tuple[Action, dict[str, FormValue] | None]:
        if getattr(params, "mode", "form") == "url":
            log.info("MCP server '%s': a URL elicitation was declined", self.server)
            return "decline", None
        schema = getattr(params, "requested_schema", None) or {}
        fields = request_fields(schema)
        request = ElicitationRequest(
            server=self.server,
            message=clean_text(params.message or "")
            or f"MCP server '{self.server}' asks for your input",
            fields=fields,
            schema=schema,
        )
        try:
            answer = await asyncio.wait_for(self.elicitor(request), self.settings.timeout)
        except TimeoutError:
            self.counters.errors += 1
            log.warning(
                "MCP server '%s': no answer to its question within %g s (cancelled)",
                self.server,
                self.settings.timeout,
            )
            return "cancel", None
        except Exception as exc:  # noqa: BLE001 - fail closed: a broken elicitor declines
            self.counters.errors += 1
            log.warning("MCP server '%s': asking the user failed: %s", self.server, exc)
            return "decline", None
        if answer.action != "accept":
            return ("cancel" if answer.action == "cancel" else "decline"), None
        try:
            return "accept", fill_answer(fields, answer.content or {})
        except ValueError as exc:
            self.counters.errors += 1
            log.warning("MCP server '%s': the answer was not sent: %s", self.server, exc)
            return "decline", None
