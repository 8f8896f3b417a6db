"""gpu_class(): vendor classification, the per-OS probes, merging and caching."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from hermes_platform.host import GPU_CLASSES, clear_caches, gpu_class
from hermes_platform.host import gpu as gpu_module
from hermes_platform.host.gpu import GPU_PROBES, GpuProbe, classify_gpu_vendors, merge_gpu_classes
from hermes_platform.host.seam import Host
from hermes_platform.testing import FakeHost

MakeHost = Callable[..., FakeHost]


@pytest.mark.parametrize(
    ("ids", "expected"),
    [
        (["0x8086", "0x10de"], "nvidia"),
        (["0x8086", "0x1002"], "amd"),
        (["0x8086"], "intel"),
        (["0x1af4"], "none"),
        ([], "none"),
        (["10DE"], "nvidia"),
        ([""], "unknown"),
        (["", "0x10de"], "nvidia"),
        ([" 0x1002\n"], "amd"),
    ],
)
def test_classify_gpu_vendors(ids: list[str], expected: str) -> None:
    assert classify_gpu_vendors(ids) == expected


def test_gpu_class_on_this_machine_is_in_the_vocabulary_and_stable() -> None:
    clear_caches()
    first = gpu_class()
    assert first in GPU_CLASSES
    assert gpu_class() == first
    assert gpu_class.cache_info().currsize == 1


@pytest.mark.parametrize("vendor", ["nvidia", "amd", "intel", "none", "unknown"])
@pytest.mark.parametrize("platform", ["linux", "win32"])
def test_fake_layouts_read_back(hermes_fake_host: MakeHost, platform: str, vendor: str) -> None:
    hermes_fake_host(platform).set_gpu(vendor)
    assert gpu_class() == vendor


def test_linux_cards_only_and_priority(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("linux")
    host.add_file("/sys/class/drm/card0/device/vendor", b"0x8086\n")
    host.add_file("/sys/class/drm/card1/device/vendor", b"0x1002\n")
    host.add_file("/sys/class/drm/card0-HDMI-A-1/device/vendor", b"0x10de\n")
    host.add_dir("/sys/class/drm/renderD128")
    assert gpu_class() == "amd"


def test_linux_unreadable_vendor_alone_is_unknown(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("linux")
    host.add_dir("/sys/class/drm/card0/device")
    assert gpu_class() == "unknown"


def test_windows_adapters(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("win32")
    root = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}"
    host.add_registry_key(root + "\\0000", {"MatchingDeviceId": "pci\\ven_8086&dev_9a49"})
    host.add_registry_key(root + "\\0001", {"MatchingDeviceId": "PCI\\VEN_10DE&DEV_2520"})
    host.add_registry_key(root + "\\Properties", {})
    assert gpu_class() == "nvidia"


def test_windows_basic_display_adapter_alone_is_unknown(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("win32")
    root = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}"
    host.add_registry_key(root + "\\0000", {"MatchingDeviceId": "ROOT\\BasicDisplay"})
    host.add_registry_key(root + "\\Properties", {})
    assert gpu_class() == "unknown"


def test_mac_arch_and_rosetta(hermes_fake_host: MakeHost) -> None:
    hermes_fake_host("darwin", machine="arm64")
    assert gpu_class() == "apple_silicon"
    hermes_fake_host("darwin", machine="x86_64")
    assert gpu_class() == "unknown"
    hermes_fake_host("darwin", machine="x86_64", sysctl={"sysctl.proc_translated": 1})
    assert gpu_class() == "apple_silicon"


def test_the_cache_is_cleared_when_the_host_changes(hermes_fake_host: MakeHost) -> None:
    hermes_fake_host("linux").set_gpu("intel")
    assert gpu_class() == "intel"
    hermes_fake_host("linux").set_gpu("nvidia")
    assert gpu_class() == "nvidia"


def test_gpu_class_is_read_once(hermes_fake_host: MakeHost) -> None:
    host = hermes_fake_host("linux").set_gpu("amd")
    gpu_class()
    host.reset_counts()
    gpu_class()
    assert host.io_count == 0


def _raises(host: Host) -> str | None:
    raise OSError("broken probe")


def _says_amd(host: Host) -> str | None:
    return "amd"


def test_a_raising_probe_counts_as_unknown_and_others_still_merge(
    hermes_fake_host: MakeHost,
) -> None:
    hermes_fake_host("linux").set_gpu("intel")
    GPU_PROBES.register(GpuProbe("test-raises", "linux", _raises, provider="t"))
    GPU_PROBES.register(GpuProbe("test-amd", "linux", _says_amd, provider="t"))
    try:
        assert gpu_class() == "amd"
        notes = {probe.name: note for probe, _answer, note in gpu_module.probe_results()}
        assert notes["test-raises"] == "OSError: broken probe"
    finally:
        GPU_PROBES.unregister("test-raises")
        GPU_PROBES.unregister("test-amd")
    assert gpu_class() == "intel"


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        ([None, "none"], "none"),
        ([None], "unknown"),
        (["unknown", "none"], "none"),
        (["intel", "nvidia"], "nvidia"),
        (["apple_silicon", "unknown"], "apple_silicon"),
        (["bogus"], "unknown"),
        ([], "unknown"),
    ],
)
def test_merge(answers: list[str | None], expected: str) -> None:
    assert merge_gpu_classes(answers) == expected
