"""One test per hook (``test_hook_<name>``), plus the meta-tests that keep the reference honest."""

from __future__ import annotations

import inspect
import re
import textwrap
import types
from collections.abc import Iterable
from pathlib import Path

import pytest

from hermes_core.plugins import PluginError, hookimpl
from hermes_core.plugins.hookspecs import HermesSpecs
from hermes_core.plugins.manager import HOOK_TYPES, HermesPluginManager
from hermes_core.plugins.types import (
    AppDeclaration,
    AppLocation,
    AuthProviderSpec,
    GpuProbe,
    LocateContext,
    LocationKind,
    TransportSpec,
)
from hermes_core.testing import check_plugin
from hermes_platform import declaration
from hermes_platform.host import gpu_class
from hermes_platform.host.seam import Host
from hermes_platform.resolver.app import LOCATION_KINDS
from hermes_platform.resolver.availability import availability

HOOKS = [name for name, _ in inspect.getmembers(HermesSpecs, inspect.isfunction)]


def inline(**hooks: object) -> types.SimpleNamespace:
    return types.SimpleNamespace(**{name: hookimpl(fn) for name, fn in hooks.items()})  # type: ignore[arg-type]


def test_hook_declare_app(hermes_pm: HermesPluginManager, hermes_fake_host) -> None:  # type: ignore[no-untyped-def]
    def declare_app() -> Iterable[AppDeclaration]:
        return [
            AppDeclaration(
                "viewer",
                app={"linux": {"presence": "executable", "location": "/opt/viewer/viewer"}},
                requires={"app": True},
                where="viewer/plugin.yaml",
                display_name="Viewer",
            )
        ]

    hermes_pm.register_plugin(inline(declare_app=declare_app), "viewer-plugin")
    hermes_pm.apply()
    decl = declaration.lookup("viewer")
    assert decl is not None
    assert hermes_pm.display_names == {"viewer": "Viewer"}
    hermes_fake_host("linux").add_file("/opt/viewer/viewer")
    assert availability(decl).state == "available"
    hermes_pm.unapply()
    assert declaration.lookup("viewer") is None


def test_hook_declare_app_bad_declaration_names_plugin_and_key(
    hermes_pm: HermesPluginManager,
) -> None:
    def declare_app() -> Iterable[AppDeclaration]:
        return [
            AppDeclaration(
                "x", app={"linux": {"presence": "nope", "location": "/x"}}, where="x/plugin.yaml"
            )
        ]

    hermes_pm.register_plugin(inline(declare_app=declare_app), "x-plugin")
    with pytest.raises(
        PluginError,
        match=r"x/plugin\.yaml \(plugin x-plugin\): app\.linux\.presence must be one of",
    ):
        hermes_pm.apply()


def _opt(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
    return [ctx.join("/opt", location.value)]


def test_hook_location_kind(hermes_pm: HermesPluginManager, hermes_fake_host) -> None:  # type: ignore[no-untyped-def]
    kind = LocationKind("opt_folder", "linux", "folder", "executable", _opt)
    hermes_pm.register_plugin(inline(location_kind=lambda: [kind]), "opt-plugin")
    hermes_pm.apply()
    assert LOCATION_KINDS["opt_folder"].provider == "opt-plugin"
    hermes_fake_host("linux").add_file("/opt/tool")
    decl = declaration.parse_declaration(
        "tool",
        raw_app={
            "linux": {
                "presence": "executable",
                "location": [{"kind": "opt_folder", "folder": "tool"}],
            }
        },
        raw_requires={"app": True},
        where="t",
    )
    assert availability(decl).path == "/opt/tool"
    hermes_pm.unapply()
    assert "opt_folder" not in LOCATION_KINDS


def test_hook_location_kind_clash_with_a_builtin(hermes_pm: HermesPluginManager) -> None:
    clash = LocationKind("flatpak", "linux", "app_id", "executable", _opt)
    hermes_pm.register_plugin(inline(location_kind=lambda: [clash]), "clash")
    with pytest.raises(
        PluginError,
        match=r"'flatpak' is already provided by hermes_core\.plugins\.builtin\.location_kinds",
    ):
        hermes_pm.apply()


def _says_nvidia(host: Host) -> str | None:
    return "nvidia"


def test_hook_gpu_probe(hermes_pm: HermesPluginManager, hermes_fake_host) -> None:  # type: ignore[no-untyped-def]
    hermes_fake_host("linux").set_gpu("intel")
    assert gpu_class() == "intel"
    probe = GpuProbe("test-egpu", "linux", _says_nvidia)
    hermes_pm.register_plugin(inline(gpu_probe=lambda: [probe]), "egpu")
    hermes_pm.apply()
    assert gpu_class() == "nvidia"
    hermes_pm.unapply()
    assert gpu_class() == "intel"


def test_hook_transport(hermes_pm: HermesPluginManager) -> None:
    spec = TransportSpec("unix_socket", "socket", "MCP over a Unix socket")
    hermes_pm.register_plugin(inline(transport=lambda: [spec]), "unix")
    transports = hermes_pm.transports()
    assert list(transports) == ["stdio", "streamable_http", "sse", "unix_socket"]
    assert transports["unix_socket"] is spec


def test_hook_auth_provider(hermes_pm: HermesPluginManager) -> None:
    spec = AuthProviderSpec("vault_token", "a bearer token from Vault")
    hermes_pm.register_plugin(inline(auth_provider=lambda: [spec]), "vault")
    assert list(hermes_pm.auth_providers()) == ["headers", "oauth", "vault_token"]
    clash = AuthProviderSpec("oauth", "mine")
    hermes_pm.register_plugin(inline(auth_provider=lambda: [clash]), "clash")
    hermes_pm.strict = False
    assert hermes_pm.auth_providers()["oauth"].provider == "hermes_core"
    (record,) = [r for r in hermes_pm.plugins() if r.name == "clash"]
    assert record.problems == [
        "auth_provider: auth_provider 'oauth' is already provided by "
        "hermes_core.plugins.builtin.auth"
    ]


def test_a_hook_returning_a_wrong_type_is_skipped_and_reported(
    hermes_pm: HermesPluginManager,
) -> None:
    hermes_pm.strict = False
    hermes_pm.register_plugin(inline(transport=lambda: [object()]), "odd")
    assert "odd" not in str(list(hermes_pm.transports()))
    (record,) = [r for r in hermes_pm.plugins() if r.name == "odd"]
    assert record.problems == ["transport: returned a object, expected TransportSpec"]


def test_a_typo_in_a_hook_name_is_rejected_at_registration(hermes_pm: HermesPluginManager) -> None:
    hermes_pm.strict = False
    assert not hermes_pm.register_plugin(inline(location_kinds=lambda: []), "typo")
    (record,) = [r for r in hermes_pm.plugins() if r.name == "typo"]
    assert record.status == "failed" and "location_kinds" in record.reason


# --- meta-tests -----------------------------------------------------------------------


def test_every_hook_has_a_type_and_a_reference_docstring() -> None:
    assert sorted(HOOKS) == sorted(HOOK_TYPES)
    for name in HOOKS:
        doc = inspect.getdoc(getattr(HermesSpecs, name)) or ""
        for section in ("When:", "Cost:", "Example:", "Returns:", "Errors:", "versionadded"):
            assert section in doc, f"{name} docstring lacks {section}"


def test_every_hook_has_a_test_hook_function() -> None:
    text = "\n".join(p.read_text() for p in Path(__file__).parents[1].rglob("test_*.py"))
    for name in HOOKS:
        assert re.search(rf"def test_hook_{name}\b", text), f"no test_hook_{name}"


@pytest.mark.parametrize("hook", HOOKS)
def test_every_docstring_example_runs(hook: str, hermes_declarations: None) -> None:
    doc = inspect.getdoc(getattr(HermesSpecs, hook)) or ""
    match = re.search(r"```python\n(.*?)```", doc, re.DOTALL)
    assert match, f"{hook} has no python example"
    module = types.ModuleType(f"example_{hook}")
    exec(compile(textwrap.dedent(match.group(1)), f"<{hook} example>", "exec"), module.__dict__)
    contributed = check_plugin(module, f"example-{hook}")
    assert len(contributed[hook]) == 1


def test_hook_declare_app_from_plugin_yaml_keeps_line_numbers(
    hermes_pm: HermesPluginManager,
) -> None:
    from hermes_core.plugins import declarations_from_yaml

    text = (
        "# shipped inside the package\n"
        "name: x\n"
        "app:\n"
        "  linux:\n"
        "    presence: executable\n"
        "    location:\n"
        "      - {kind: snap, name: ../bad}\n"
    )
    decls = declarations_from_yaml(text, "x/plugin.yaml")
    hermes_pm.register_plugin(inline(declare_app=lambda: decls), "x-plugin")
    with pytest.raises(PluginError) as caught:
        hermes_pm.apply()
    assert caught.value.reason == (
        "x/plugin.yaml:7 (plugin x-plugin): app.linux.location[0].name must be a bare name"
    )


def test_hook_transport_connect_is_what_the_host_uses(hermes_pm: HermesPluginManager) -> None:
    import asyncio
    import sys
    from contextlib import asynccontextmanager

    from hermes_core.host.host import HostServer, MCPHost
    from hermes_core.host.transports import open_stdio

    opened: list[str] = []

    @asynccontextmanager
    async def recording(spec, errlog):  # type: ignore[no-untyped-def]
        opened.append(spec.name)
        async with open_stdio(spec, errlog) as streams:
            yield streams

    spec = TransportSpec("recorded_stdio", "command", "stdio, recorded", connect=recording)
    hermes_pm.register_plugin(inline(transport=lambda: [spec]), "recorder")
    openers = {n: t.connect for n, t in hermes_pm.transports().items() if t.connect}
    assert set(openers) == {"stdio", "streamable_http", "sse", "recorded_stdio"}
    hostile = str(Path(__file__).parents[1] / "servers" / "hostile_server.py")
    server = HostServer(
        "via-plugin", command=sys.executable, args=[hostile], transport="recorded_stdio"
    )

    async def scenario() -> str:
        async with MCPHost([server], transports=openers) as host:
            result = await host.call_tool("mcp_via_plugin_echo", {"text": "hooked"})
            return str(result["content"][0]["text"])

    assert asyncio.run(scenario()) == "hooked"
    assert opened == ["via-plugin"]
