"""Nothing a plugin does wrong fails open: every failure reaches the author, named.

Real distributions loaded through entry points, the real CLI as a subprocess
(see ``support.dists``); ``check_plugin`` in process, as a plugin's own test
suite calls it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from hermes_core.plugins import PluginError, hookimpl
from hermes_core.plugins.types import AppLocation, GpuProbe, LocateContext, LocationKind
from hermes_core.testing import check_plugin
from hermes_platform.host.seam import Host
from support.dists import hermes_with, install, site_env
from support.home import clean_env

KIND = """
from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import LocationKind

def _locate(ctx, location):
{body}

@hookimpl
def location_kind():
    return [LocationKind(name="{name}", os=None, key="name", presence="executable",
                         locate={locate})]
"""

PROBE = """
from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import GpuProbe

def _read(host):
{body}

@hookimpl
def gpu_probe():
    return [GpuProbe(name="{name}", os="linux", read=_read)]
"""

# entry point: (module, source, the problem `plugins list` must report)
BROKEN = {
    "locator-raises": (
        "locator_raises",
        KIND.format(name="vendor_dir", body="    raise KeyError('VENDOR_HOME')", locate="_locate"),
        "location_kind: location kind 'vendor_dir': locate(ctx, 'example') on a fake linux "
        "host raised KeyError: 'VENDOR_HOME' (at {site}/locator_raises.py:6)",
    ),
    "locator-none": (
        "locator_none",
        KIND.format(name="none_dir", body="    ctx.join('/opt', location.value)", locate="_locate"),
        "location_kind: location kind 'none_dir': locate(ctx, 'example') on a fake linux host "
        "returned None, expected an iterable of path strings (a list; [] when there is "
        "nothing to try)",
    ),
    "locator-str": (
        "locator_str",
        KIND.format(
            name="str_dir", body="    return ctx.join('/opt', location.value)", locate="_locate"
        ),
        "location_kind: location kind 'str_dir': locate(ctx, 'example') on a fake linux host "
        "returned a str ('/opt/example'), expected an iterable of path strings (a list; [] "
        "when there is nothing to try)",
    ),
    "locator-uncallable": (
        "locator_uncallable",
        KIND.format(name="odd_dir", body="    return []", locate="'/opt/odd'"),
        "location_kind: location kind 'odd_dir': locate is a str, not callable",
    ),
    "probe-raises": (
        "probe_raises",
        PROBE.format(name="egpu", body="    return host.read_range('/sys/egpu', 0, 4).decode()"),
        "gpu_probe: GPU probe 'egpu': read(host) on a fake linux host raised "
        "FileNotFoundError: [Errno 2] No such file: '/sys/egpu' (at {site}/probe_raises.py:6)",
    ),
    "probe-not-a-class": (
        "probe_not_a_class",
        PROBE.format(name="geforce", body="    return 'GeForce RTX'"),
        "gpu_probe: GPU probe 'geforce': read(host) on a fake linux host answered "
        "'GeForce RTX', expected one of nvidia, amd, intel, apple_silicon, none, unknown or None",
    ),
}

EXITS_AT_IMPORT = "import sys\n\nsys.exit(0)\n"
EXITS_IN_HOOK = """
import sys
from hermes_core.plugins import hookimpl

@hookimpl
def declare_app():
    sys.exit(4)
"""
INTERRUPTS_IN_HOOK = """
from hermes_core.plugins import hookimpl

@hookimpl
def transport():
    raise KeyboardInterrupt
"""
SLOW_HOOK = """
import os, pathlib, time
from hermes_core.plugins import hookimpl

@hookimpl
def declare_app():
    release = pathlib.Path(os.environ["RELEASE_FILE"])
    give_up = time.monotonic() + 60  # so that a run without the notice ends (and fails)
    while not release.exists() and time.monotonic() < give_up:
        time.sleep(0.02)
    return []
"""


@pytest.fixture(scope="module")
def broken_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("broken-site")
    for entry, (module, source, _problem) in BROKEN.items():
        install(folder, f"{entry}-hermes", module, entry, source)
    return folder


# The example vendor's app (`acme-studio`, installed next to this interpreter) on PATH, so that
# `apps check` has one offerable server and exits 0 when nothing else goes wrong.
WITH_APP = os.pathsep.join((os.path.dirname(sys.executable), os.environ.get("PATH", "")))


def _expected(entry: str, site: Path) -> str:
    return BROKEN[entry][2].format(site=site)


@pytest.mark.process
@pytest.mark.cli
def test_plugins_list_shows_misbehaving_locators_and_probes_as_degraded(broken_site: Path) -> None:
    result = hermes_with(broken_site, "plugins", "list", "--json")
    assert result.returncode == 3, result.stderr
    records = {r["name"]: r for r in json.loads(result.stdout)}
    for entry in BROKEN:
        record = records[entry]
        expected = _expected(entry, broken_site)
        assert (record["status"], record["distribution"]) == ("degraded", f"{entry}-hermes")
        assert record["problems"] == [expected]
        assert record["reason"] == expected
    # Reported, not dropped: the warning says the contribution stays registered.
    assert "locate(ctx, 'example') on a fake linux host returned None" in result.stderr
    assert "It stays registered. Disable the plugin with HERMES_DISABLE_PLUGINS=" in result.stderr
    builtin = [r for r in records.values() if r["builtin"]]

    assert builtin and all(r["status"] == "loaded" for r in builtin)

    human = hermes_with(broken_site, "plugins", "list")
    assert "locator-none  (locator-none-hermes 1.0)  degraded (1 problem)" in human.stdout
    assert f"    ! {_expected('locator-none', broken_site)}" in human.stdout


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.parametrize("entry", sorted(BROKEN))
def test_strict_mode_exits_3_naming_plugin_distribution_and_hook(
    tmp_path: Path, entry: str
) -> None:
    module, source, _problem = BROKEN[entry]
    install(tmp_path, f"{entry}-hermes", module, entry, source)
    result = hermes_with(tmp_path, "apps", "check", HERMES_STRICT_PLUGINS="1")
    assert result.returncode == 3, result.stdout + result.stderr
    hook, reason = _expected(entry, tmp_path).split(": ", 1)
    assert result.stderr == (
        f"error: plugin {entry!r} (from {entry}-hermes 1.0), hook {hook}: {reason}\n"
    )


def _inline(**hooks: object) -> types.SimpleNamespace:
    return types.SimpleNamespace(**{name: hookimpl(fn) for name, fn in hooks.items()})  # type: ignore[arg-type]


def _raises_on_windows(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
    if ctx.os == "win32":
        raise ValueError("no registry here")
    return [ctx.join("/opt", location.value)]


def _yields_a_number(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
    yield ctx.join("/opt", location.value)
    yield 3  # type: ignore[misc]


def _answers_nvidia_gpu(host: Host) -> str | None:
    return "NVIDIA GPU"


def _kind(name: str, locate: Callable[..., object], os: str | None = None) -> LocationKind:
    return LocationKind(name, os, "name", "executable", locate)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("hooks", "message"),
    [
        (
            {"location_kind": lambda: [_kind("reg_dir", _raises_on_windows)]},
            r"hook location_kind: location kind 'reg_dir': locate\(ctx, 'example'\) on a fake "
            r"win32 host raised ValueError: no registry here \(at .*test_plugin_failures\.py:\d+\)",
        ),
        (
            {"location_kind": lambda: [_kind("num_dir", _yields_a_number, "darwin")]},
            r"on a fake darwin host yielded a int \(3\), expected an iterable of path strings",
        ),
        (
            {"gpu_probe": lambda: [GpuProbe("says-nvidia", "win32", _answers_nvidia_gpu)]},
            r"hook gpu_probe: GPU probe 'says-nvidia': read\(host\) on a fake win32 host "
            r"answered 'NVIDIA GPU', expected one of nvidia, amd",
        ),
        (
            {"gpu_probe": lambda: [GpuProbe("uncallable", "linux", None)]},  # type: ignore[arg-type]
            r"GPU probe 'uncallable': read is a NoneType, not callable",
        ),
        (
            {"location_kind": lambda: _kind("lone", _raises_on_windows)},
            r"hook location_kind: returned a LocationKind, expected an iterable of "
            r"LocationKind \(a list\)",
        ),
    ],
    ids=[
        "locator-raises-on-win32",
        "locator-yields-int",
        "probe-answer",
        "probe-uncallable",
        "one-kind-no-list",
    ],
)
def test_check_plugin_runs_every_locator_and_probe_on_the_fake_hosts(
    hooks: dict[str, object], message: str, hermes_declarations: None
) -> None:
    with pytest.raises(PluginError, match=message) as caught:
        check_plugin(_inline(**hooks), "vendor")
    assert caught.value.plugin == "vendor"


def test_check_plugin_tries_the_locations_the_plugin_declares(hermes_declarations: None) -> None:
    from hermes_core.plugins.types import AppDeclaration

    def picky(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
        if location.value.endswith("-beta"):
            raise ValueError(f"no channel support for {location.value!r}")
        return [ctx.join("/opt", location.value)]

    def declare_app() -> list[AppDeclaration]:
        block = {"presence": "executable", "location": [{"kind": "pkg", "name": "x-beta"}]}
        return [AppDeclaration("x", app={"linux": block}, where="x/plugin.yaml")]

    plugin = _inline(location_kind=lambda: [_kind("pkg", picky, "linux")], declare_app=declare_app)
    with pytest.raises(PluginError, match=r"locate\(ctx, 'x-beta'\) on a fake linux host raised"):
        check_plugin(plugin, "vendor")


def test_a_good_plugin_passes_check_plugin(hermes_declarations: None) -> None:
    def locate(ctx: LocateContext, location: AppLocation) -> Iterable[str]:
        return [ctx.join("/opt", location.value)]

    contributed = check_plugin(_inline(location_kind=lambda: [_kind("good", locate)]), "vendor")
    assert [k.name for k in contributed["location_kind"]] == ["good"]


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_sys_exit_at_import_is_contained_and_reported(tmp_path: Path) -> None:
    install(tmp_path, "exits-hermes", "exits_plugin", "exits", EXITS_AT_IMPORT)
    listing = hermes_with(tmp_path, "plugins", "list", "--json")
    assert listing.returncode == 3, listing.stderr
    (record,) = [r for r in json.loads(listing.stdout) if r["name"] == "exits"]
    assert record["status"] == "failed"
    assert (
        record["reason"]
        == f"failed to import: called sys.exit(0) (at {tmp_path}/exits_plugin.py:3)"
    )
    # Every other command still runs and says what it has to say.
    check = hermes_with(tmp_path, "apps", "check", PATH=WITH_APP)
    assert check.returncode == 0, check.stderr
    assert check.stdout.startswith("host: ")
    assert "plugin 'exits' (from exits-hermes 1.0): failed to import: called sys.exit(0)" in (
        check.stderr
    )
    strict = hermes_with(tmp_path, "apps", "check", HERMES_STRICT_PLUGINS="1")
    assert strict.returncode == 3
    assert "called sys.exit(0)" in strict.stderr


@pytest.mark.process
@pytest.mark.cli
def test_sys_exit_and_keyboard_interrupt_in_a_hook_are_contained(tmp_path: Path) -> None:
    install(tmp_path, "exits-hermes", "exits_in_hook", "exits", EXITS_IN_HOOK)
    install(tmp_path, "interrupts-hermes", "interrupts_in_hook", "interrupts", INTERRUPTS_IN_HOOK)
    result = hermes_with(tmp_path, "plugins", "list", "--json")
    assert result.returncode == 3, result.stderr
    records = {r["name"]: r for r in json.loads(result.stdout)}
    assert records["exits"]["status"] == "degraded"
    assert records["exits"]["problems"] == [
        f"declare_app: called sys.exit(4) (at {tmp_path}/exits_in_hook.py:7)"
    ]
    assert records["interrupts"]["problems"] == [
        "transport: raised KeyboardInterrupt (Ctrl-C, or the plugin raised it) "
        f"(at {tmp_path}/interrupts_in_hook.py:6)"
    ]
    check = hermes_with(tmp_path, "apps", "check", PATH=WITH_APP)
    assert check.returncode == 0 and check.stdout.startswith("host: "), check.stderr


@pytest.mark.process
@pytest.mark.cli
def test_a_hook_still_running_is_named_on_stderr(tmp_path: Path) -> None:
    install(tmp_path, "slow-hermes", "slow_plugin", "slow", SLOW_HOOK)
    release = tmp_path / "release"
    env = site_env(
        tmp_path,
        RELEASE_FILE=str(release),
        HERMES_PLUGIN_WAIT_NOTICE="0.2",
        PATH=WITH_APP,
    )
    child = subprocess.Popen(
        [sys.executable, "-m", "hermes_core", "apps", "check"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**clean_env(os.environ), **env},
    )
    try:
        assert child.stderr is not None
        line = child.stderr.readline()  # blocks until the notice: the hook waits for us
        assert line == (
            "hermes: waiting for plugin slow, hook declare_app "
            "(HERMES_DISABLE_PLUGINS=slow skips it)\n"
        )
        release.write_text("go")
        out, err = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, err
    assert out.startswith("host: ")
    assert "waiting for" not in err  # named once
