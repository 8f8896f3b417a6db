"""``gpu_class()``: which GPU vendor this machine has, read without drivers.

Sources are registration objects (:class:`GpuProbe`), one or more per OS,
kept in :data:`GPU_PROBES`.  Each probe reads the machine through the host
seam and answers a class from :data:`GPU_CLASSES`, or ``None`` when it has
nothing to say.  :func:`gpu_class` merges the answers of every probe for the
host's OS by priority: ``nvidia`` > ``amd`` > ``intel`` > ``apple_silicon``,
then ``none`` if any probe positively saw no GPU, else ``unknown``.

A probe that raises counts as ``unknown``: a failed read must never lock
out a machine that has the GPU.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from hermes_platform.host.caches import register_cache
from hermes_platform.host.facts import native_arch, os_family
from hermes_platform.host.seam import Host, current_host
from hermes_platform.registration import RegistrationTable
from hermes_platform.resolver import known_dirs

__all__ = [
    "GPU_CLASSES",
    "GPU_PROBES",
    "GpuProbe",
    "classify_gpu_vendors",
    "gpu_class",
    "merge_gpu_classes",
    "probe_results",
]

GPU_CLASSES = ("nvidia", "amd", "intel", "apple_silicon", "none", "unknown")
_VENDOR_PRIORITY = ("nvidia", "amd", "intel", "apple_silicon")
_PCI_VENDORS = {"10de": "nvidia", "1002": "amd", "8086": "intel"}
_MAX_DRM_ENTRIES = 64
_MAX_CARDS = 16
_MAX_ADAPTERS = 16


@dataclass(frozen=True)
class GpuProbe:
    """A source of the GPU vendor for one OS.

    ``read(host)`` returns one of :data:`GPU_CLASSES` or ``None`` (nothing to
    say).  It must only read through *host* — no subprocess, no driver.
    """

    name: str
    os: str
    read: Callable[[Host], str | None]
    provider: str = "hermes_platform"
    description: str = ""


def classify_gpu_vendors(ids: Sequence[str]) -> str:
    """Map PCI vendor ids (``0x10de``, ``10DE`` …) to the highest-priority class.

    A non-empty list of only blank ids is ``unknown`` (adapters seen, nothing
    readable); unrecognised vendors are ignored; nothing recognised is ``none``.
    """
    if ids and all(not str(i).strip() for i in ids):
        return "unknown"
    seen = set()
    for raw in ids:
        norm = str(raw).strip().lower()
        if norm.startswith("0x"):
            norm = norm[2:]
        vendor = _PCI_VENDORS.get(norm)
        if vendor:
            seen.add(vendor)
    for vendor in _VENDOR_PRIORITY:
        if vendor in seen:
            return vendor
    return "none"


def merge_gpu_classes(answers: Iterable[str | None]) -> str:
    """Merge probe answers: best vendor first, then ``none``, else ``unknown``."""
    got = {a for a in answers if a in GPU_CLASSES}
    for vendor in _VENDOR_PRIORITY:
        if vendor in got:
            return vendor
    return "none" if "none" in got else "unknown"


def probe_results(os_name: str | None = None) -> list[tuple[GpuProbe, str | None, str]]:
    """Each probe for the OS with its answer and a note (``"ok"`` or the error)."""
    host = current_host()
    results: list[tuple[GpuProbe, str | None, str]] = []
    wanted = os_name or os_family()
    for probe in (p for p in GPU_PROBES.values() if p.os == wanted):
        try:
            answer = probe.read(host)
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a probe must never break gpu_class()
            results.append((probe, "unknown", f"{type(exc).__name__}: {exc}"))
            continue
        if answer is not None and answer not in GPU_CLASSES:
            results.append((probe, "unknown", f"answered {answer!r}, not a GPU class"))
            continue
        results.append((probe, answer, "ok"))
    return results


@functools.lru_cache(maxsize=1)
def gpu_class() -> str:
    """``nvidia`` | ``amd`` | ``intel`` | ``apple_silicon`` | ``none`` | ``unknown``.

    Memoised for the process; :func:`hermes_platform.host.clear_caches` resets it.
    """
    return merge_gpu_classes(answer for _probe, answer, _note in probe_results())


register_cache(gpu_class.cache_clear)


# --- built-in probes ---------------------------------------------------------


def _linux_nvidia_proc(host: Host) -> str | None:
    return "nvidia" if host.exists(known_dirs.NVIDIA_PROC_VERSION) else None


def _linux_drm_sysfs(host: Host) -> str | None:
    root = known_dirs.DRM_CLASS_DIR
    try:
        entries = sorted(host.listdir(root))[:_MAX_DRM_ENTRIES]
    except OSError:
        return "unknown"
    cards = [e for e in entries if e.startswith("card") and "-" not in e][:_MAX_CARDS]
    ids = []
    for card in cards:
        try:
            raw = host.read_range(known_dirs.drm_vendor_file(card), 0, 16)
            ids.append(raw.decode("ascii", "replace").strip())
        except OSError:
            ids.append("")
    return classify_gpu_vendors(ids)


def _windows_display_adapters(host: Host) -> str | None:
    root = known_dirs.WINDOWS_DISPLAY_CLASS_KEY
    try:
        subkeys = host.registry_subkeys(root)[:_MAX_ADAPTERS]
    except OSError:
        return "unknown"
    ids = []
    for sub in subkeys:
        value = host.registry_value(f"{root}\\{sub}", "MatchingDeviceId")
        text = value.upper() if isinstance(value, str) else ""
        marker = text.find("VEN_")
        if marker >= 0:
            ids.append(text[marker + 4 : marker + 8])
        elif sub.isdigit():
            ids.append("")  # an adapter we saw but cannot read
    return classify_gpu_vendors(ids)


def _darwin_cpu_arch(host: Host) -> str | None:
    return "apple_silicon" if native_arch() == "arm64" else "unknown"


BUILTIN_GPU_PROBES = (
    GpuProbe(
        "linux-nvidia-proc",
        "linux",
        _linux_nvidia_proc,
        description="the NVIDIA kernel driver's procfs version file exists",
    ),
    GpuProbe(
        "linux-drm-sysfs",
        "linux",
        _linux_drm_sysfs,
        description="PCI vendor ids of /sys/class/drm/card*",
    ),
    GpuProbe(
        "win32-display-adapters",
        "win32",
        _windows_display_adapters,
        description="MatchingDeviceId of the display adapter class key",
    ),
    GpuProbe(
        "darwin-cpu-arch",
        "darwin",
        _darwin_cpu_arch,
        description="Apple silicon when the native CPU is arm64",
    ),
)

GPU_PROBES: RegistrationTable[GpuProbe] = RegistrationTable(
    "GPU probe", GpuProbe, BUILTIN_GPU_PROBES
)
GPU_PROBES.add_listener(gpu_class.cache_clear)
