"""The one install flow: ``hermes mcp install`` (a catalog entry, a registry server, a
``.mcpb`` bundle), the dashboard's Install and ``hermes mcp update`` all run these steps, in
this order, through :class:`InstallService`:

1. **resolve** — a source makes the :class:`~.install_plan.InstallPlan` (what will run, in
   full; what to ask; how to fetch it): :mod:`.catalog_source`, :mod:`.registry.registry_source`,
   :mod:`.registry.bundle_source`;
2. **provider check** — an entry that connects through a plugin's transport or signs in with a
   plugin's auth provider needs it loaded;
3. **policy check** — the administrator's policy judges the entry the install would write;
4. **confirm** — the door shows the plan and says yes or no (the terminal asks; the
   dashboard's form was the question);
5. **preconditions** — ``config.yaml`` editable for this entry, ``.env`` writable;
6. **answer** — the door gives the values asked (keys, inputs, ``user_config``);
7. **fetch** — clone and bootstrap, or unpack (progress said on the door);
8. **write** — ``.env`` (0600), the ``mcp_servers`` entry (comments kept), the install record;
   a failure in 7–8 removes the new folder and puts the previous install and ``.env`` back;
9. **probe** — the server is asked for its tools and the door chooses them; a missing runner
   or a failed probe saves the entry disabled.

Nothing is fetched before step 7; nothing is written before step 8.  Each refusal is an
:class:`~.install_plan.InstallRefused`; the result is an :class:`~.install_plan.InstallOutcome`.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from hermes_core.catalog.command_line import one_line
from hermes_core.catalog.disabled import disabled_lines
from hermes_core.catalog.install_plan import (
    InstallDoor,
    InstallOutcome,
    InstallPlan,
    InstallRefused,
    InstallState,
    Refusal,
)
from hermes_core.catalog.policy_entries import catalog_check
from hermes_core.catalog.registry.records import save_record
from hermes_core.catalog.selection import excluded_filter, prior_filter, with_tools
from hermes_core.catalog.tool_choice import (
    apply_choice,
    describe_filter,
    describe_offer,
    probe_checklist,
    write_without_probe,
)
from hermes_core.config import store
from hermes_core.config.dotenv_file import dotenv_path, update_dotenv
from hermes_core.config.interpolate import load_dotenv
from hermes_core.config.kinds import ServerKinds
from hermes_core.config.loader import validate_server
from hermes_core.config.secret_lift import VariableNames, lift_secrets
from hermes_core.host.setup.factory import HostFactory
from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.yaml_lines import plain
from hermes_platform.runners import MissingRunner

__all__ = ["InstallService", "configured_entries"]


def configured_entries(factory: HostFactory) -> dict[str, object]:
    """The raw ``mcp_servers`` mapping of ``config.yaml`` (``{}`` when there is none)."""
    loaded = factory.load_config(strict=False)
    if loaded.tree is not None and isinstance(loaded.tree.get("mcp_servers"), dict):
        return dict(plain(loaded.tree["mcp_servers"]))
    return {}


class InstallService:
    """Runs a plan's steps for *manager*'s plugins, asking *door*."""

    def __init__(self, manager: HermesPluginManager, door: InstallDoor) -> None:
        self.manager = manager
        self.door = door
        self.factory = HostFactory.from_manager(manager)
        self.factory.catalog_check = catalog_check(lambda: manager)
        self.kinds = ServerKinds.of(manager.transports(), manager.auth_providers())

    def configured(self) -> dict[str, object]:
        return configured_entries(self.factory)

    # -- the steps -------------------------------------------------------------------------

    def install(self, plan: InstallPlan) -> InstallOutcome:
        """Every step after resolve (see the module docstring)."""
        try:
            self.check_provider(plan)
            self.check_policy(plan)
            if not self.door.confirm(plan):
                return InstallOutcome(plan.name, InstallState.DECLINED)
            self.check_preconditions(plan)
            values, answered = self.door.answer(plan.questions)
            return self._fetch_and_write(plan, values, answered)
        finally:
            for cleanup in plan.cleanup:
                with contextlib.suppress(OSError):
                    cleanup()

    def check_provider(self, plan: InstallPlan) -> None:
        """A plugin's transport and auth provider the entry names must be registered here."""
        if plan.transport is not None and plan.transport not in self.manager.transports():
            listed = ", ".join(self.manager.transports()) or "none"
            raise InstallRefused(
                f"'{plan.name}' connects through the transport {one_line(plan.transport)!r}, "
                f"which no installed plugin registers (registered: {listed}); install the "
                "plugin that provides it, then try again (nothing was installed)"
            )
        wanted = plan.provider
        if wanted is None:
            return
        registered = self.manager.auth_providers()
        if wanted not in registered:
            listed = ", ".join(registered) or "none"
            raise InstallRefused(
                f"'{plan.name}' signs in with the auth provider {one_line(wanted)!r}, which no "
                f"installed plugin registers (registered: {listed}); install the plugin that "
                "provides it, then try again (nothing was installed)"
            )

    def check_policy(self, plan: InstallPlan) -> None:
        """The administrator's policy on the entry the install would write (before anything
        is fetched).  An entry that does not validate is left to the write step's error."""
        draft, _runner = plan.draft
        cfg, problems, _warnings = validate_server(plan.name, draft, kinds=self.factory.kinds)
        if cfg is None or problems:
            return
        refused = self.factory.refused(plan.name, cfg)  # ConfigError: the policy file is wrong
        if refused is not None:
            raise InstallRefused(f"{refused}; nothing was installed")

    def check_preconditions(self, plan: InstallPlan) -> None:
        """``config.yaml`` editable for this entry and ``.env`` writable, before anything on
        disk changes (``ConfigError`` naming the file)."""
        draft, _runner = plan.draft
        store.check_add(
            plan.name,
            _keep_tools(draft, plan.previous),
            replace=plan.previous is not None,
            kinds=self.kinds,
        )
        path = dotenv_path()
        folder = path.parent if path.parent.exists() else path.parent.parent
        if (path.exists() and not os.access(path, os.W_OK)) or not os.access(folder, os.W_OK):
            raise InstallRefused(
                f"{path}: cannot write the file; nothing was installed", Refusal.USAGE
            )

    def _fetch_and_write(
        self, plan: InstallPlan, values: dict[str, str], answered: set[str]
    ) -> InstallOutcome:
        name, previous = plan.name, plan.previous
        made, runner = plan.make(answered)
        folder: Path | None = None
        with contextlib.ExitStack() as undo:
            if plan.fetch is not None:
                with self.door.busy(f"installing '{name}'…"):
                    folder = undo.enter_context(plan.fetch(self.door))
            # A failure from here on puts back the previous install (the fetch) and .env.
            undo.enter_context(_restoring(dotenv_path()))
            if plan.lift_secrets:  # one rule with add, import and export
                lifted = lift_secrets(name, made, VariableNames(os.environ, load_dotenv()))
                values = {**values, **lifted}
            if values:
                update_dotenv(values)
                self.door.say(f"saved {', '.join(values)} to $HERMES_HOME/.env (mode 0600)")
            made = _keep_tools(made, previous)
            if plan.default_excluded is not None:
                include, exclude = prior_filter(previous)
                made = with_tools(made, excluded_filter(include, exclude, plan.default_excluded))
            if runner is not None:
                made = {**made, "enabled": False}
            for warning in store.add_server(
                name, made, replace=previous is not None, kinds=self.kinds
            ):
                self.door.warn(f"warning: {warning}")
        if plan.record is not None:
            save_record(plan.record)
        self.door.say(f"{'updated' if previous is not None else 'added'} mcp_servers.{name}")
        outcome = self._tools(plan, made, runner, folder)
        for line in plan.after:
            self.door.say(line)
        return outcome

    def _tools(
        self,
        plan: InstallPlan,
        made: dict[str, object],
        runner: MissingRunner | None,
        folder: Path | None,
    ) -> InstallOutcome:
        name = plan.name
        replaced = plan.previous is not None
        if runner is not None:  # as `hermes mcp add` does: disabled, exit 1
            chosen = write_without_probe(name, made, plan.default_enabled, self.kinds)
            self.door.say(describe_filter(chosen))
            for line in disabled_lines(name, runner, None):
                self.door.say(line)
            return InstallOutcome(name, InstallState.SAVED_DISABLED, replaced, folder, chosen)
        if plan.default_excluded is not None:
            include, exclude = prior_filter(made)
            chosen = {
                key: names
                for key, names in (("include", include), ("exclude", exclude))
                if names is not None
            }
            if "exclude" in chosen:
                self.door.say(
                    f"tools: all except {', '.join(chosen['exclude'])} "
                    f"(edit mcp_servers.{name}.tools.exclude to change)"
                )
            return InstallOutcome(name, InstallState.INSTALLED, replaced, folder, dict(chosen))
        if made.get("auth") == "oauth":
            self.door.say(
                f"sign in with `hermes mcp login {name}`, then choose its tools with "
                f"`hermes mcp configure {name}`"
            )
            chosen = write_without_probe(name, made, plan.default_enabled, self.kinds)
            self.door.say(describe_filter(chosen))
            return InstallOutcome(name, InstallState.INSTALLED, replaced, folder, chosen)
        return self.probe(plan, made, folder)

    def probe(
        self, plan: InstallPlan, made: dict[str, object], folder: Path | None
    ) -> InstallOutcome:
        """Ask the server for its tools and let the door choose; a failed probe saves the
        entry disabled (as ``hermes mcp add`` does)."""
        name = plan.name
        replaced = plan.previous is not None
        self.door.say(f"asking '{name}' for its tools…")
        with self.door.busy(f"starting '{name}' to list its tools…"):
            found = probe_checklist(self.manager, name, made, plan.default_enabled)
        if found.problem is not None:
            why = one_line(found.problem, 300)
            self.door.warn(f"warning: could not list the tools of '{name}': {why}")
            failed = found.failed
            chosen = write_without_probe(
                name, made, plan.default_enabled, self.kinds, enabled=not failed
            )
            self.door.say(describe_filter(chosen))
            if failed:
                for line in disabled_lines(name, None, why):
                    self.door.say(line)
                self.door.say(f"then choose its tools with `hermes mcp configure {name}`")
                return InstallOutcome(name, InstallState.SAVED_DISABLED, replaced, folder, chosen)
            self.door.say(
                f"the server is installed; when it is reachable run `hermes mcp configure {name}`"
            )
            return InstallOutcome(name, InstallState.INSTALLED, replaced, folder, chosen)
        picked = self.door.choose(name, found)
        own = [t.name for t in found.own]
        _entry, chosen, switches = apply_choice(name, made, own, found.families, picked, self.kinds)
        utilities = [
            tool for fam, members in found.families.items() if switches[fam] for tool in members
        ]
        self.door.say(describe_offer(chosen, [n for n in own if n in picked], utilities))
        off = [fam for fam, on in switches.items() if not on]
        if off:
            self.door.say(f"utility tools off: {', '.join(off)}")
        return InstallOutcome(name, InstallState.INSTALLED, replaced, folder, chosen)


def _keep_tools(made: dict[str, object], previous: dict[str, object] | None) -> dict[str, object]:
    """The entry an install writes, a previous entry's tool choice kept."""
    if previous and "tools" in previous:
        return {**made, "tools": previous["tools"]}
    return made


@contextlib.contextmanager
def _restoring(path: Path) -> Iterator[None]:
    """Put *path* (``.env``) back as it was when the block fails."""
    try:
        before: bytes | None = path.read_bytes()
    except FileNotFoundError:
        before = None
    try:
        yield
    except BaseException:
        with contextlib.suppress(OSError):
            if before is None:
                path.unlink(missing_ok=True)
            else:
                path.write_bytes(before)
        raise
