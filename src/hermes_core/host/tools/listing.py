"""Reading a ``tools/list`` answer as the JSON it is, without building models the host drops.

The SDK's ``ClientSession.list_tools`` validates a listing three times over (the revision's
wire model, a dump of it, then the ``ListToolsResult`` model) and hands back pydantic ``Tool``
objects; the host only ever reads a few fields of each tool and keeps plain JSON.  So the host
reads the raw result (through :mod:`hermes_core._sdk_compat`) and :func:`checked_tool` checks
each tool once, in place:

* a tool whose fields all have their plain JSON types (``name`` a string, ``inputSchema`` an
  object, ``description``/``title`` strings, ``annotations``/``execution``/``outputSchema``
  objects of the right shape…) is kept **as the same dict**, nothing copied;
* anything else (a wrong type, icons, snake_case field names, an unknown ``taskSupport``)
  goes through the SDK's own ``Tool`` model, so exactly what the SDK accepts is accepted
  (coercions included) and a tool it refuses is skipped with its reason, as before.

A checked tool is the wire dict with camelCase keys; :func:`tool_metadata` reads what the
registry shows of it.
"""

from __future__ import annotations

from collections.abc import Mapping

from hermes_core.json_types import JsonObject

__all__ = [
    "ANNOTATION_HINTS",
    "annotations_of",
    "checked_tool",
    "execution_of",
    "tool_name",
]

#: ``ToolAnnotations``' boolean hints, as sent on the wire.
ANNOTATION_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
_ANNOTATION_KEYS = frozenset({"title", *ANNOTATION_HINTS})
_TASK_SUPPORT = frozenset({"forbidden", "optional", "required"})
# Python field names the SDK's models also accept (populate_by_name): rare, left to the model.
_BY_NAME = frozenset({"input_schema", "output_schema", "meta"})
_ANNOTATIONS_BY_NAME = frozenset(
    {"read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"}
)
_STR_OR_NONE = (str, type(None))


def _plain_shape(item: JsonObject) -> bool:
    """Whether the SDK's ``Tool`` model would take *item* exactly as it is (no coercion)."""
    if type(item.get("name")) is not str or type(item.get("inputSchema")) is not dict:
        return False
    if not _BY_NAME.isdisjoint(item):
        return False
    get = item.get
    if not isinstance(get("description"), _STR_OR_NONE):
        return False
    if not isinstance(get("title"), _STR_OR_NONE):
        return False
    output = get("outputSchema")
    if output is not None and type(output) is not dict:
        return False
    meta = get("_meta")
    if meta is not None and type(meta) is not dict:
        return False
    if get("icons") is not None:
        return False  # each icon has its own rules: the model checks them
    execution = get("execution")
    if execution is not None:
        if type(execution) is not dict or "task_support" in execution:
            return False
        support = execution.get("taskSupport")
        if support is not None and (type(support) is not str or support not in _TASK_SUPPORT):
            return False
    annotations = get("annotations")
    if annotations is not None:
        if type(annotations) is not dict or not _ANNOTATIONS_BY_NAME.isdisjoint(annotations):
            return False
        for key in _ANNOTATION_KEYS.intersection(annotations):
            value = annotations[key]
            if value is None:
                continue
            if key == "title":
                if type(value) is not str:
                    return False
            elif type(value) is not bool:
                return False
    return True


def checked_tool(item: object) -> tuple[JsonObject | None, str | None]:
    """``(tool, None)`` with *item* itself when it is plain, the SDK model's reading of it
    otherwise; ``(None, why)`` when the SDK's ``Tool`` model refuses it."""
    if type(item) is dict and _plain_shape(item):
        return item, None
    from mcp import types
    from pydantic import ValidationError

    try:
        model = types.Tool.model_validate(item)
    except ValidationError as exc:
        reason = exc.errors()[0]
        where = ".".join(str(p) for p in reason.get("loc", ()))
        return None, f"invalid {where}: {reason.get('msg')}"
    # Python mode keeps the schemas' values as sent (JSON mode would turn NaN into null).
    dumped: JsonObject = model.model_dump(by_alias=True, exclude_none=True)
    return dumped, None


def annotations_of(tool: Mapping[str, object]) -> JsonObject:
    """The tool's annotations the SDK model knows, ``None`` values left out (its dump)."""
    annotations = tool.get("annotations")
    if not annotations or not isinstance(annotations, dict):
        return {}
    return {k: v for k, v in annotations.items() if k in _ANNOTATION_KEYS and v is not None}


def execution_of(tool: Mapping[str, object]) -> JsonObject:
    """The tool's ``execution`` block as the SDK model dumps it (``taskSupport`` or nothing)."""
    execution = tool.get("execution")
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    return {"taskSupport": support} if support is not None else {}


def tool_name(tool: Mapping[str, object]) -> str:
    """The name of a checked tool (:func:`checked_tool` made sure it is a string)."""
    name = tool["name"]
    if not isinstance(name, str):
        raise TypeError(f"not a checked tool: its name is a {type(name).__name__}")
    return name
