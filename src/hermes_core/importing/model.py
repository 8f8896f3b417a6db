"""The values passed between the import steps."""

from __future__ import annotations

from dataclasses import dataclass, field

from hermes_core.importing.names import EXPORT_FORMATS

__all__ = ["EXPORT_FORMATS", "ForeignServer", "InputSpec", "Skip", "SourceError", "Translated"]


class SourceError(ValueError):
    """A client's file that cannot be read: the message names the file and what is wrong."""


@dataclass(frozen=True)
class InputSpec:
    """A VS Code ``inputs`` entry: a value asked of the user when a server needs it."""

    id: str
    description: str = ""
    password: bool = False
    default: str | None = None


@dataclass(frozen=True)
class ForeignServer:
    """One server entry as another client wrote it."""

    name: str
    raw: object
    """The entry as the file holds it (checked when it is translated)."""
    file: str
    key: str
    """Where in the file, e.g. ``mcpServers.github`` or ``projects./src/app.mcpServers.db``."""
    dialect: str
    base_dir: str
    """The folder relative paths (``cwd``) are taken from."""
    inputs: tuple[InputSpec, ...] = ()
    disabled_reason: str | None = None
    """Set when the client keeps this server switched off elsewhere (imported disabled)."""
    project: bool = False
    """From a project's file (``.mcp.json``, ``.cursor/mcp.json`` …): written by whoever wrote
    the repository, so imported disabled unless the client's own record says the user
    approved it (:attr:`approved`), and never in place of a user entry of the same name."""
    approved: bool = False

    @property
    def origin(self) -> str:
        return f"{self.file}: {self.key}"


@dataclass(frozen=True)
class Skip:
    """A part of an entry that was not translated, and why."""

    key: str
    reason: str

    def __str__(self) -> str:
        return f"{self.key}: {self.reason}" if self.key else self.reason


@dataclass
class Translated:
    """A foreign entry in Hermes' form; ``entry`` is ``None`` when nothing usable is left."""

    source: ForeignServer
    name: str
    entry: dict[str, object] | None
    skipped: list[Skip] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    inputs: dict[str, InputSpec] = field(default_factory=dict)
    """``${input:id}`` references: the ``.env`` variable each one became → its input."""
    secrets: dict[str, str] = field(default_factory=dict, repr=False)
    """Variables to store in ``.env`` (literal secrets moved out of the entry)."""
