"""One test per hook (``test_hook_<name>``), plus the meta-tests that keep the reference honest."""

from __future__ import annotations

import inspect
import re
import textwrap
import types
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from hermes_core.host.transports import open_stdio
from hermes_core.plugins import PluginError, hookimpl
from hermes_core.plugins.hookspecs import HermesSpecs
from hermes_core.plugins.manager import HOOK_TYPES, HermesPluginManager
from hermes_core.plugins.types import (
    AppDeclaration,
    AppLocation,
    AuthContext,
    AuthProviderSpec,
    GpuProbe,
    LocateContext,
    LocationKind,
    MessagingAdapter,
    MessagingChannel,
    MessagingPlatform,
    Observation,
    SendReceipt,
    TransportSpec,
    VersionSource,
)
from hermes_core.testing import check_plugin
from hermes_platform import declaration
from hermes_platform.host import gpu_class
from hermes_platform.host.seam import Host
from hermes_platform.resolver.app import LOCATION_KINDS
from hermes_platform.resolver.availability import availability
from hermes_platform.resolver.versions import VERSION_KINDS

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
        match=r"'flatpak' is already provided by hermes_core\.builtin\.location_kinds",
    ):
        hermes_pm.apply()


def _version_txt(ctx: LocateContext, path: str, arg: str) -> Observation:
    target = ctx.join(ctx.parent(ctx.parent(path)), arg or "VERSION")
    try:
        text = ctx.host.read_range(target, 0, 32).decode().strip()
    except OSError:
        return Observation("absent", None, f"no {target}")
    return Observation("present", text, f"in {target}")


def test_hook_version_source(hermes_pm: HermesPluginManager, hermes_fake_host) -> None:  # type: ignore[no-untyped-def]
    source = VersionSource("version_txt", "linux", _version_txt, arg_key="file")
    hermes_pm.register_plugin(inline(version_source=lambda: [source]), "vtxt-plugin")
    hermes_pm.apply()
    assert VERSION_KINDS["version_txt"].provider == "vtxt-plugin"
    assert [s.name for s in hermes_pm.version_sources()][:4] == [
        "none",
        "plist",
        "pe_resource",
        "uninstall_registry",
    ]
    assert hermes_pm.version_sources()[-1].name == "version_txt"
    host = hermes_fake_host("linux")
    host.add_file("/opt/tool/bin/tool")
    host.add_file("/opt/tool/RELEASE", b"2.4.1\n")
    decl = declaration.parse_declaration(
        "tool",
        raw_app={
            "linux": {
                "presence": "executable",
                "location": "/opt/tool/bin/tool",
                "version": {"kind": "version_txt", "file": "RELEASE"},
            }
        },
        raw_requires={"app": True, "min_version": "2.4"},
        where="t",
    )
    result = availability(decl)
    assert (result.state, result.version) == ("available", "2.4.1")
    host.add_file("/opt/tool/RELEASE", b"2.3\n")
    assert availability(decl).state == "version_too_old"
    hermes_pm.unapply()
    assert "version_txt" not in VERSION_KINDS
    assert "plist" in VERSION_KINDS  # built-ins stay


def test_hook_version_source_builtins_come_through_the_hook(
    hermes_pm: HermesPluginManager,
) -> None:
    records = {r.name: r for r in hermes_pm.plugins()}
    assert records["hermes_core.builtin.version_sources"].contributions == {
        "version_source": [
            "none",
            "plist",
            "pe_resource",
            "uninstall_registry",
            "jetbrains_product_info",
            "flatpak",
            "snap",
        ],
    }


def test_hook_version_source_clash_with_a_builtin(hermes_pm: HermesPluginManager) -> None:
    clash = VersionSource("plist", "darwin", _version_txt)
    hermes_pm.register_plugin(inline(version_source=lambda: [clash]), "clash")
    with pytest.raises(
        PluginError,
        match=r"'plist' is already provided by hermes_core\.builtin\.version_sources",
    ):
        hermes_pm.apply()


def test_hook_version_source_bad_os_is_reported_against_the_plugin(
    hermes_pm: HermesPluginManager,
) -> None:
    def version_source() -> Iterable[VersionSource]:
        return [VersionSource("mine", "linx", _version_txt)]

    hermes_pm.register_plugin(inline(version_source=version_source), "typo-plugin")
    with pytest.raises(PluginError) as caught:
        hermes_pm.apply()
    assert caught.value.plugin == "typo-plugin"
    assert caught.value.hook == "version_source"
    assert "version source 'mine': os 'linx' is not one of ('win32', 'darwin', 'linux')" in str(
        caught.value
    )


def test_hook_location_kind_bad_os_or_presence_is_reported_against_the_plugin(
    hermes_pm: HermesPluginManager,
) -> None:
    def location_kind() -> Iterable[LocationKind]:
        return [LocationKind("opt_folder", "Linux", "folder", "executable", _opt)]

    hermes_pm.register_plugin(inline(location_kind=location_kind), "typo-kind")
    with pytest.raises(PluginError) as caught:
        hermes_pm.apply()
    assert (caught.value.plugin, caught.value.hook) == ("typo-kind", "location_kind")
    assert caught.value.reason.startswith(
        "raised ValueError: location kind 'opt_folder': os 'Linux' is not one of "
        "('win32', 'darwin', 'linux')"
    )


def test_hook_location_kind_serving_two_oses(hermes_pm: HermesPluginManager) -> None:
    both = LocationKind(
        "opt_or_app",
        ("darwin", "linux"),
        "name",
        {"darwin": "bundle", "linux": "executable"},
        _opt,
    )
    hermes_pm.register_plugin(inline(location_kind=lambda: [both]), "two-os")
    hermes_pm.apply()
    assert LOCATION_KINDS["opt_or_app"].presence_for("darwin") == "bundle"
    assert LOCATION_KINDS["opt_or_app"].provider == "two-os"
    hermes_pm.unapply()
    assert "opt_or_app" not in LOCATION_KINDS


def _raises_on_windows(ctx: LocateContext, path: str, arg: str) -> Observation:
    if ctx.os == "win32":
        raise KeyError("HKLM")
    return Observation("absent")


def _answers_text(ctx: LocateContext, path: str, arg: str) -> Observation:
    return "1.0"  # type: ignore[return-value]


def _present_number(ctx: LocateContext, path: str, arg: str) -> Observation:
    return Observation("present", 7)  # type: ignore[arg-type]


def _exits(ctx: LocateContext, path: str, arg: str) -> Observation:
    raise SystemExit(4)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            VersionSource("reg_version", None, _raises_on_windows),
            r"hook version_source: version source 'reg_version': read\(ctx, "
            r"'C:/Program Files/Example/example\.exe', 'example'\) on a fake win32 host raised "
            r"KeyError",
        ),
        (
            VersionSource("text_version", "linux", _answers_text),
            r"version source 'text_version': read\(ctx, '/opt/example/bin/example', 'example'\) "
            r"on a fake linux host answered '1\.0', expected an Observation",
        ),
        (
            VersionSource("number_version", "darwin", _present_number),
            r"on a fake darwin host answered present with 7, expected the version as text",
        ),
        (
            VersionSource("exiting_version", "linux", _exits),
            r"version source 'exiting_version': .* on a fake linux host .*4",
        ),
    ],
    ids=["raises-on-win32", "answers-text", "present-number", "sys-exit"],
)
def test_hook_version_source_readers_are_exercised_by_check_plugin(
    source: VersionSource, message: str, hermes_declarations: None
) -> None:
    with pytest.raises(PluginError, match=message) as caught:
        check_plugin(inline(version_source=lambda: [source]), "vendor")
    assert (caught.value.plugin, caught.value.hook) == ("vendor", "version_source")


def test_hook_version_source_reader_exiting_at_evaluation_is_contained(
    hermes_fake_host,  # type: ignore[no-untyped-def]
) -> None:
    from hermes_platform.resolver.versions import read_version

    VERSION_KINDS.register(VersionSource("exiting_version", None, _exits))
    try:
        host = hermes_fake_host("linux")
        observed = read_version(LocateContext("linux", host), "exiting_version", "/x", "")
        assert (observed.state, observed.detail) == ("error", "SystemExit")
    finally:
        VERSION_KINDS.unregister("exiting_version")


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
    spec = TransportSpec("unix_socket", "socket", "MCP over a Unix socket", connect=open_stdio)
    hermes_pm.register_plugin(inline(transport=lambda: [spec]), "unix")
    transports = hermes_pm.transports()
    assert list(transports) == ["stdio", "streamable_http", "sse", "unix_socket"]
    assert transports["unix_socket"] is spec


def _no_auth(context: AuthContext) -> None:
    return None


def test_hook_auth_provider(hermes_pm: HermesPluginManager) -> None:
    spec = AuthProviderSpec("vault_token", "a bearer token from Vault", create=_no_auth)
    hermes_pm.register_plugin(inline(auth_provider=lambda: [spec]), "vault")
    assert list(hermes_pm.auth_providers()) == ["headers", "oauth", "vault_token"]
    clash = AuthProviderSpec("oauth", "mine", create=_no_auth)
    hermes_pm.register_plugin(inline(auth_provider=lambda: [clash]), "clash")
    hermes_pm.strict = False
    assert hermes_pm.auth_providers()["oauth"].provider == "hermes_core"
    (record,) = [r for r in hermes_pm.plugins() if r.name == "clash"]
    assert record.problems == [
        "auth_provider: auth_provider 'oauth' is already provided by hermes_core.builtin.auth"
    ]


class _Outbox:
    def __init__(self, name: str, folder: Path) -> None:
        self.name, self.folder = name, folder

    def channels(self) -> list[MessagingChannel]:
        return [MessagingChannel("inbox", name="Inbox")]

    def send(self, chat_id: str, text: str) -> SendReceipt:
        if chat_id != "inbox":
            raise ValueError(f"no chat {chat_id!r}")
        (self.folder / f"{self.name}-{chat_id}.txt").write_text(text)
        return SendReceipt(message_id="1", detail="written")


def _outbox(name: str, settings: Mapping[str, Any]) -> MessagingAdapter:
    return _Outbox(name, Path(settings["folder"]))


def test_hook_messaging_platform(hermes_pm: HermesPluginManager, tmp_path: Path) -> None:
    from hermes_core.config.loader import parse_config_text
    from hermes_core.serve.messaging import load_messaging

    spec = MessagingPlatform("outbox", _outbox, "files in a folder")
    hermes_pm.register_plugin(inline(messaging_platform=lambda: [spec]), "outbox-plugin")
    assert hermes_pm.messaging_platforms() == {"outbox": spec}
    assert isinstance(_Outbox("x", tmp_path), MessagingAdapter)
    text = "messaging:\n  notes:\n    adapter: outbox\n    folder: ${OUTBOX}\n"
    loaded = parse_config_text(text, "config.yaml")
    messaging = load_messaging(
        loaded, hermes_pm.messaging_platforms(), env={"OUTBOX": str(tmp_path)}, dotenv={}
    )
    assert [(p, c.chat_id) for p, c in messaging.channels()] == [("notes", "inbox")]
    assert messaging.send("notes:inbox", "hello")[2].message_id == "1"
    assert (tmp_path / "notes-inbox.txt").read_text() == "hello"


def test_hook_messaging_platform_unknown_adapter_lists_the_registered_ones(
    hermes_pm: HermesPluginManager,
) -> None:
    from hermes_core.config.loader import parse_config_text
    from hermes_core.config.models import ConfigError
    from hermes_core.serve.messaging import load_messaging

    spec = MessagingPlatform("outbox", _outbox)
    hermes_pm.register_plugin(inline(messaging_platform=lambda: [spec]), "outbox-plugin")
    loaded = parse_config_text("# mine\nmessaging:\n  notes:\n    adapter: outbx\n", "c.yaml")
    with pytest.raises(ConfigError) as caught:
        load_messaging(loaded, hermes_pm.messaging_platforms(), env={}, dotenv={})
    assert str(caught.value) == (
        "c.yaml:4: messaging.notes.adapter: unknown adapter 'outbx'; registered adapters: outbox"
    )


def test_hook_messaging_platform_clash_names_both(hermes_pm: HermesPluginManager) -> None:
    first = MessagingPlatform("outbox", _outbox)
    second = MessagingPlatform("outbox", lambda name, settings: _Outbox(name, Path(".")))
    hermes_pm.register_plugin(inline(messaging_platform=lambda: [first]), "one")
    hermes_pm.register_plugin(inline(messaging_platform=lambda: [second]), "two")
    with pytest.raises(PluginError, match="'outbox' is already provided by one"):
        hermes_pm.messaging_platforms()


def test_a_transport_or_auth_provider_without_its_callable_is_not_registered(
    hermes_pm: HermesPluginManager,
) -> None:
    hermes_pm.strict = False
    hermes_pm.register_plugin(
        inline(
            transport=lambda: [TransportSpec("name_only", "socket")],
            auth_provider=lambda: [AuthProviderSpec("vault_token")],
        ),
        "names-only",
    )
    assert "name_only" not in hermes_pm.transports()
    assert "vault_token" not in hermes_pm.auth_providers()
    (record,) = [r for r in hermes_pm.plugins() if r.name == "names-only"]
    assert record.problems == [
        "transport: transport 'name_only' has no callable connect",
        "auth_provider: auth_provider 'vault_token' has no callable create",
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


def _example(hook: str) -> Any:
    """The one contribution of *hook*'s docstring example, run as a plugin module."""
    doc = inspect.getdoc(getattr(HermesSpecs, hook)) or ""
    match = re.search(r"```python\n(.*?)```", doc, re.DOTALL)
    assert match, f"{hook} has no python example"
    module = types.ModuleType(f"example_{hook}")
    exec(compile(textwrap.dedent(match.group(1)), f"<{hook} example>", "exec"), module.__dict__)
    (item,) = check_plugin(module, f"example-{hook}")[hook]
    return item


@pytest.mark.process
@pytest.mark.node
def test_the_transport_example_really_connects() -> None:
    import asyncio
    import json

    from hermes_core.host.host import HostServer, MCPHost
    from servers.reference import EVERYTHING, node

    spec = _example("transport")
    server = HostServer(
        "local", command=node(), args=[str(EVERYTHING), "stdio"], transport=spec.name
    )

    async def scenario() -> dict[str, str]:
        async with MCPHost([server], transports={spec.name: spec.connect}) as host:
            result = await host.call_tool("mcp_local_get_env")
            env: dict[str, str] = json.loads(result["content"][0]["text"])
            return env

    assert asyncio.run(scenario())["SERVED_BY"] == "tagged_stdio"


def test_the_auth_provider_example_really_adds_its_header() -> None:
    import httpx2

    spec = _example("auth_provider")
    url = "https://mcp.internal.example/mcp"
    auth = spec.create(AuthContext(server="internal", url=url, settings={"token": "t0k"}))
    sent = next(auth.sync_auth_flow(httpx2.Request("GET", url)))
    assert sent.headers["Authorization"] == "Bearer t0k"
    with pytest.raises(ValueError, match=r"static_bearer\.token is required"):
        spec.create(AuthContext(server="internal", url=url))


#: For every hook, the tests that install a plugin distribution contributing to it, select
#: the contribution from config.yaml / plugin.yaml, and observe it through the real CLI.
_APPS_CHECK = (
    "test_plugin_contributions.py::"
    "test_cli_hook_gpu_probe_location_kind_and_declare_app_in_apps_check"
)
END_TO_END: dict[str, list[str]] = {
    "declare_app": [_APPS_CHECK],
    "location_kind": [_APPS_CHECK],
    "gpu_probe": [_APPS_CHECK],
    "catalog_entry": [
        "test_catalog_plugin.py::test_cli_hook_catalog_entry_from_a_plugin_distribution",
    ],
    "messaging_platform": [
        "test_plugin_contributions.py::"
        "test_cli_hook_messaging_platform_sends_through_hermes_mcp_serve",
    ],
    "version_source": [
        "test_cli_version_sources.py::test_a_plugin_version_source_gates_min_version",
    ],
    "transport": [
        "test_plugin_contributions.py::test_cli_hook_transport_selected_by_its_config_key",
        "test_plugin_contributions.py::test_cli_hook_transport_selected_by_name_on_every_command",
        "test_plugin_contributions.py::test_cli_hook_transport_in_the_probe_of_mcp_add",
        "test_plugin_contributions.py::test_an_unknown_transport_is_a_config_error_listing_the_registered_ones",
    ],
    "sampling_provider": [
        "test_sampling.py::test_cli_hook_sampling_provider_past_its_timeout_is_refused",
    ],
    "call_interceptor": [
        "test_cli_interceptors.py::test_cli_hook_call_interceptor_refuses_redacts_and_is_audited",
        "test_cli_interceptors.py::test_cli_an_interceptor_with_settings_rewrites_the_arguments",
    ],
    "auth_provider": [
        "test_plugin_contributions.py::test_cli_hook_auth_provider_header_reaches_the_server",
        "test_plugin_contributions.py::test_cli_hook_auth_provider_with_server_everything_over_http",
        "test_plugin_contributions.py::test_cli_hook_auth_provider_in_the_probe_of_mcp_add",
        "test_plugin_contributions.py::test_an_unknown_auth_provider_is_a_config_error_never_a_connection_without_auth",
    ],
}


@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_is_consumed_end_to_end_through_the_cli(hook: str) -> None:
    """A hook whose contributions nothing consumes fails here: name its end-to-end tests in
    END_TO_END (each installs a plugin distribution with a ``hermes.plugins`` entry point that
    implements the hook, and drives the real ``hermes`` command)."""
    import ast

    assert END_TO_END.get(hook), f"no end-to-end CLI test for hook {hook!r} in END_TO_END"
    for test_id in END_TO_END[hook]:
        filename, function = test_id.split("::")
        path = Path(__file__).with_name(filename)
        source = path.read_text()
        assert "[hermes.plugins]" in source, f"{filename} installs no plugin distribution"
        assert re.search(rf"^\s*def {hook}\(", source, re.MULTILINE), (
            f"{filename}'s plugins do not implement {hook}"
        )
        tree = ast.parse(source)
        found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == function]
        assert found, f"{test_id} does not exist"
        body = ast.get_source_segment(source, found[0]) or ""
        assert re.search(r"\bhermes\(|run_hermes\(", body), f"{test_id} does not run the CLI"


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


@pytest.mark.process
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


def test_hook_declare_app_from_plugin_yaml_fails_closed_on_an_unknown_key() -> None:
    from hermes_core.plugin_yaml import PluginFileError
    from hermes_core.plugins import declarations_from_yaml

    text = (
        "name: x\napp:\n  linux: {presence: executable, location: /opt/x}\nrequire: {app: true}\n"
    )
    with pytest.raises(PluginFileError) as caught:
        declarations_from_yaml(text, "x/plugin.yaml")
    assert str(caught.value) == (
        "x/plugin.yaml:4: the file has unknown keys ['require']; did you mean 'requires'? "
        "(valid keys: ['app', 'display_name', 'name', 'requires'])"
    )


def test_hook_catalog_entry(hermes_pm: HermesPluginManager) -> None:
    from hermes_core.catalog.catalog import load_catalog
    from hermes_core.plugins.types import CatalogManifest

    text = (
        "manifest_version: 1\nname: notes\ndescription: Notes from Acme\n"
        "transport: {command: notes-mcp}\n"
    )
    hermes_pm.register_plugin(
        inline(catalog_entry=lambda: [CatalogManifest("notes", text, "acme/catalog.yaml")]), "acme"
    )
    found = load_catalog(hermes_pm)
    assert found.entries["notes"].origin == "acme"
    assert found.entries["memory"].origin.endswith("(built-in)")  # built-ins: the same hook
    # A broken manifest names the plugin, the file and the line (strict mode raises).
    broken = text.replace("transport: {command: notes-mcp}", "transport: {comand: notes-mcp}")
    hermes_pm.register_plugin(
        inline(
            catalog_entry=lambda: [
                CatalogManifest("other", broken.replace("notes", "other"), "x/catalog.yaml")
            ]
        ),
        "x-plugin",
    )
    with pytest.raises(
        PluginError, match=r"x/catalog\.yaml:4: transport\.comand: is not a manifest"
    ):
        load_catalog(hermes_pm)


def test_hook_catalog_entry_clash_names_both(hermes_pm: HermesPluginManager) -> None:
    from hermes_core.plugins.types import CatalogManifest

    clash = CatalogManifest("memory", "manifest_version: 1\n", "mine/catalog.yaml")
    hermes_pm.register_plugin(inline(catalog_entry=lambda: [clash]), "mine")
    with pytest.raises(
        PluginError, match=r"catalog_entry 'memory' is already provided by .*builtin\.catalog"
    ):
        hermes_pm.catalog_manifests()


def test_both_packages_ship_py_typed_and_the_callables_have_protocols() -> None:
    import importlib.resources
    import typing

    from hermes_core.plugins import types as plugin_types

    for package in ("hermes_core", "hermes_platform"):
        assert importlib.resources.files(package).joinpath("py.typed").is_file(), package
    hints = typing.get_type_hints(TransportSpec, vars(plugin_types))
    assert hints["connect"] == plugin_types.Connect | None
    hints = typing.get_type_hints(AuthProviderSpec, vars(plugin_types))
    assert hints["create"] == plugin_types.CreateAuth | None
    for protocol in (plugin_types.Connect, plugin_types.CreateAuth, plugin_types.ServerSpec):
        assert getattr(protocol, "_is_protocol", False), protocol
        assert protocol.__doc__


@pytest.mark.process
def test_hook_sampling_provider(hermes_pm: HermesPluginManager) -> None:
    import asyncio
    import json
    import sys

    from hermes_core.host.host import HostServer, MCPHost
    from hermes_core.plugins.types import SamplingProvider
    from hermes_core.sampling.backend import Completion, CompletionRequest, ModelInfo
    from hermes_core.sampling.settings import SamplingSettings

    async def shout(request: CompletionRequest) -> Completion:
        text = "".join(getattr(p, "text", "") for p in request.messages[-1].parts)
        return Completion(text=text.upper(), model="shout-1")

    spec = SamplingProvider(
        "shouter", models=lambda: [ModelInfo("shout-1", aliases=("shout",))], complete=shout
    )
    hermes_pm.register_plugin(inline(sampling_provider=lambda: [spec]), "shouter-plugin")
    providers = hermes_pm.sampling_providers()
    assert list(providers) == ["shouter"]
    script = str(Path(__file__).parents[1] / "servers" / "sampling_server.py")
    server = HostServer(
        "s",
        command=sys.executable,
        args=[script],
        sampling=SamplingSettings(backend="shouter", model="shout"),
    )

    async def scenario() -> dict[str, object]:
        async with MCPHost([server], sampling_providers=providers) as host:
            result = await host.call_tool("mcp_s_ask", {"prompt": "hello"})
            answer: dict[str, object] = json.loads(result["content"][0]["text"])
            return answer

    answer = asyncio.run(scenario())
    assert answer["text"] == "HELLO" and answer["model"] == "shout-1"


def test_hook_sampling_provider_clash_names_both(hermes_pm: HermesPluginManager) -> None:
    from hermes_core.plugins.types import SamplingProvider
    from hermes_core.sampling.backend import Completion, CompletionRequest

    async def nothing(request: CompletionRequest) -> Completion:
        return Completion()

    def spec() -> SamplingProvider:
        return SamplingProvider("same", models=lambda: [], complete=nothing)

    hermes_pm.register_plugin(inline(sampling_provider=lambda: [spec()]), "first")
    hermes_pm.register_plugin(inline(sampling_provider=lambda: [spec()]), "second")
    with pytest.raises(PluginError, match=r"sampling_provider 'same' is already provided by first"):
        hermes_pm.sampling_providers()
