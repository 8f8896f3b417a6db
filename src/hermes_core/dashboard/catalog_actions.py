"""Install a catalog entry and choose a configured server's tools from the page, through the
install service ``hermes mcp install`` runs (:mod:`hermes_core.catalog.install_service`): the
same resolve, provider and policy checks before anything is fetched, the same preconditions,
clone and bootstrap, rollback, ``.env`` (0600) and comment-keeping write, the same probe.  The
page's form answers what the terminal would ask: the Install button is the confirmation, its
fields the keys, the pre-checked tools the choice (then Configure opens)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence

from hermes_core.catalog import tool_choice
from hermes_core.catalog.catalog import load_catalog
from hermes_core.catalog.catalog_source import catalog_plan
from hermes_core.catalog.install_plan import (
    InstallPlan,
    InstallRefused,
    InstallState,
    Refusal,
)
from hermes_core.catalog.install_service import InstallService, configured_entries
from hermes_core.catalog.registry.entry import Question
from hermes_core.catalog.tool_choice import Checklist, probe_checklist
from hermes_core.config.interpolate import load_dotenv
from hermes_core.host.setup.factory import HostFactory
from hermes_core.plugins.manager import HermesPluginManager

__all__ = [
    "Checklist",
    "FormDoor",
    "InstallRefused",
    "apply_choice",
    "checklist",
    "install",
]


class FormDoor:
    """Answers the install service from the page's form: what was done is collected."""

    def __init__(self, given: Mapping[str, str]) -> None:
        self.given = given
        self.said: list[str] = []

    def confirm(self, plan: InstallPlan) -> bool:
        return True  # the Install button under what the page shows

    def answer(self, questions: Sequence[Question]) -> tuple[dict[str, str], set[str]]:
        """A field left empty keeps a value already in ``.env``, else takes the default."""
        existing = load_dotenv()
        values: dict[str, str] = {}
        answered: set[str] = set()
        for q in questions:
            answer = self.given.get(q.variable, "").strip()
            if not answer and q.variable in existing:
                answered.add(q.variable)
                continue
            answer = answer or (q.default or "")
            if q.choices and answer and answer not in q.choices:
                raise InstallRefused(
                    f"{q.variable} must be one of {', '.join(q.choices)}; nothing was installed",
                    Refusal.USAGE,
                )
            if not answer:
                if q.required:
                    raise InstallRefused(
                        f"{q.variable} is required; nothing was installed", Refusal.USAGE
                    )
                continue
            values[q.variable] = answer
            answered.add(q.variable)
        return values, answered

    @contextlib.contextmanager
    def busy(self, what: str) -> Iterator[None]:
        yield

    def progress(self, step: int, steps: int, what: str) -> None:
        return None

    def say(self, line: str) -> None:
        self.said.append(line)

    def warn(self, line: str) -> None:
        self.said.append(line)

    def choose(self, name: str, found: Checklist) -> set[str]:
        return set(found.checked)  # then the page opens Configure


def install(manager: HermesPluginManager, name: str, given: Mapping[str, str]) -> list[str]:
    """Install catalog entry *name* with the keys *given*; what was done, one line each.
    :class:`InstallRefused` when nothing was installed."""
    door = FormDoor(given)
    service = InstallService(manager, door)
    plan = catalog_plan(load_catalog(manager), name, service.configured(), manager.display_names)
    outcome = service.install(plan)
    if outcome.state is InstallState.DECLINED:  # (the form never declines)
        raise InstallRefused("nothing was installed")
    return door.said


def _configured(manager: HermesPluginManager, name: str) -> dict[str, object]:
    entry = configured_entries(HostFactory.from_manager(manager)).get(name)
    if not isinstance(entry, dict):
        raise InstallRefused(f"no server named {name!r} in config.yaml", Refusal.USAGE)
    return entry


def checklist(manager: HermesPluginManager, name: str) -> Checklist:
    """Ask server *name* for its tools (as ``hermes mcp configure``) and pre-check them."""
    entry = _configured(manager, name)
    listed = load_catalog(manager).entries.get(name)
    manifest = listed.manifest if listed is not None else None
    default = manifest.tools.default_enabled if manifest is not None else None
    return probe_checklist(manager, name, dict(entry), default)


def apply_choice(
    manager: HermesPluginManager, name: str, tools: list[str], families: list[str], picked: set[str]
) -> str:
    """Write the choice (``tools.include`` / the family switches) to config.yaml."""
    entry = _configured(manager, name)
    _updated, chosen, _switches = tool_choice.apply_choice(
        name, dict(entry), tools, families, picked
    )
    if "include" in chosen:
        picked_names = ", ".join(chosen["include"]) or "none"
        return f"'{name}': {len(chosen['include'])} tools enabled ({picked_names})"
    return f"'{name}': all tools enabled"
