"""The ``${…}`` dialects of MCP clients, translated to Hermes' and back.

Hermes expands ``${VAR}``, ``${env:VAR}``, ``${VAR:-default}``, the context
variables (``${userHome}``, ``${workspaceFolder}``, ``${workspaceFolderBasename}``,
``${pathSeparator}``, ``${/}``) and reads ``$${`` as a literal ``${``
(:mod:`hermes_core.config.interpolate`).  Each client expands a different
subset; what a client leaves alone is literal text, and is escaped so that
Hermes leaves it alone too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from hermes_core.config.interpolate import CONTEXT_VARIABLES

__all__ = ["DIALECTS", "Untranslatable", "VariableDialect", "from_hermes", "to_hermes"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACED = re.compile(r"\$\{([^}]*)\}")
_BRACED_OR_BARE = re.compile(r"\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_HERMES = re.compile(r"\$\$\{|\$\{([^}]*)\}")


class Untranslatable(ValueError):
    """A value that has no equivalent in the other dialect; the message says why."""


@dataclass(frozen=True)
class VariableDialect:
    """Which placeholder forms a client expands (everything else is literal text)."""

    label: str
    env: bool = False
    """``${VAR}``."""
    env_default: bool = False
    """``${VAR:-default}``."""
    env_prefix: bool = False
    """``${env:VAR}``."""
    inputs: bool = False
    """``${input:id}`` (VS Code)."""
    context: bool = False
    """``${userHome}``, ``${workspaceFolder}`` … (VS Code's predefined variables)."""
    bare: bool = False
    """``$VAR`` without braces (Gemini CLI)."""

    @property
    def expands(self) -> bool:
        return self.env or self.env_prefix or self.inputs or self.context


DIALECTS: dict[str, VariableDialect] = {
    "claude-code": VariableDialect("Claude Code", env=True, env_default=True),
    "claude-desktop": VariableDialect("Claude Desktop"),
    "cursor": VariableDialect("Cursor", env_prefix=True, context=True),
    "vscode": VariableDialect("VS Code", env_prefix=True, inputs=True, context=True),
    "codex": VariableDialect("Codex"),
    "gemini": VariableDialect("Gemini CLI", env=True, bare=True),
    "windsurf": VariableDialect("Windsurf", env_prefix=True),
}


def input_variable(input_id: str) -> str:
    """The ``.env`` variable an ``${input:id}`` answer is stored in (``api-key`` → ``API_KEY``)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", input_id).upper().strip("_") or "INPUT"
    return name if _NAME.fullmatch(name) else f"INPUT_{name}"


def _escape(literal: str) -> str:
    return literal.replace("${", "$${")


def to_hermes(
    text: str, dialect: VariableDialect, on_input: Callable[[str], str] | None = None
) -> str:
    """*text* as written for *dialect*, in Hermes' form (same value once expanded).

    ``on_input(id)`` is called for each ``${input:id}`` and returns the variable
    to refer to.  Raises :class:`Untranslatable` for a form Hermes has no
    equivalent of (``${config:…}``, ``${command:…}``, ``${file:…}`` …).
    """
    if not dialect.expands and not dialect.bare:
        return _escape(text)
    pattern = _BRACED_OR_BARE if dialect.bare else _BRACED
    out: list[str] = []
    pos = 0
    for match in pattern.finditer(text):
        literal = text[pos : match.start()]
        if literal.endswith("$"):
            # Hermes reads "$${" as a literal "${": a "$" cannot stand right before a variable.
            raise Untranslatable(
                f"a '$' right before '{match.group(0)}' cannot be written for Hermes"
            )
        out.append(_escape(literal))
        pos = match.end()
        if match.lastindex == 2:  # $VAR
            out.append("${" + match.group(2) + "}")
            continue
        out.append(_placeholder(match.group(1), match.group(0), dialect, on_input))
    out.append(_escape(text[pos:]))
    return "".join(out)


def _placeholder(
    inner: str, whole: str, dialect: VariableDialect, on_input: Callable[[str], str] | None
) -> str:
    if inner in CONTEXT_VARIABLES and dialect.context:
        return whole
    if inner.startswith("env:") and dialect.env_prefix:
        return _env_reference(inner[4:].strip(), whole)
    if inner.startswith("input:") and dialect.inputs:
        input_id = inner[6:].strip()
        if not input_id:
            raise Untranslatable(f"'{whole}' names no input")
        variable = on_input(input_id) if on_input is not None else input_variable(input_id)
        return "${" + variable + "}"
    name, has_default, default = inner.partition(":-")
    if dialect.env and _NAME.fullmatch(name):
        if has_default and not dialect.env_default:
            raise Untranslatable(f"'{whole}': {dialect.label} has no ${{VAR:-default}} form")
        if has_default:
            return "${" + _env_name(name) + ":-" + default + "}"
        return _env_reference(name, whole)
    raise Untranslatable(f"'{whole}' is not a variable Hermes can expand")


def _env_name(name: str) -> str:
    # A variable named like a context variable must still be read from the environment.
    return f"env:{name}" if name in CONTEXT_VARIABLES else name


def _env_reference(name: str, whole: str) -> str:
    if not _NAME.fullmatch(name):
        raise Untranslatable(f"'{whole}' does not name an environment variable")
    return "${" + _env_name(name) + "}"


# --------------------------------------------------------------------------- export


@dataclass(frozen=True)
class Reference:
    """A Hermes value that is exactly one variable reference: ``${NAME}`` or ``${NAME:-d}``."""

    name: str
    default: str | None = None


def whole_reference(text: str) -> Reference | None:
    """The variable *text* consists of, or ``None`` when it is anything else."""
    match = _BRACED.fullmatch(text)
    if match is None:
        return None
    inner = match.group(1)
    if inner in CONTEXT_VARIABLES:
        return None
    name, has_default, default = inner.partition(":-")
    name = name.strip()
    if name.startswith("env:"):
        name = name[4:].strip()
    if not _NAME.fullmatch(name):
        return None
    return Reference(name, default if has_default else None)


def from_hermes(text: str, target: str) -> str:
    """A Hermes value written for client *target* (a name of :data:`DIALECTS`);
    :class:`Untranslatable` when the client cannot express it."""
    out: list[str] = []
    pos = 0
    for match in _HERMES.finditer(text):
        out.append(text[pos : match.start()])
        pos = match.end()
        whole = match.group(0)
        if whole == "$${":
            if target in ("codex", "claude-desktop"):  # they expand nothing: `${` is literal
                out.append("${")
                continue
            raise Untranslatable(f"a literal '${{' cannot be written for {target}")
        out.append(_export_placeholder(match.group(1), whole, target))
    out.append(text[pos:])
    return "".join(out)


def _export_placeholder(inner: str, whole: str, target: str) -> str:
    if inner in CONTEXT_VARIABLES:
        if target in ("cursor", "vscode"):
            return whole
        raise Untranslatable(f"{target} does not expand '{whole}'")
    reference = whole_reference(whole)
    if reference is None:
        raise Untranslatable(f"'{whole}' is not a variable reference")
    dialect = DIALECTS.get(target)
    if target == "claude-code":
        if reference.default is not None:
            return "${" + reference.name + ":-" + reference.default + "}"
        return "${" + reference.name + "}"
    if dialect is not None and (dialect.env or dialect.env_prefix):
        if reference.default is not None:
            raise Untranslatable(f"{target} has no default form for '{whole}'")
        prefix = "env:" if dialect.env_prefix else ""
        return "${" + prefix + reference.name + "}"
    raise Untranslatable(f"{target} does not expand variables inside text ('{whole}')")
