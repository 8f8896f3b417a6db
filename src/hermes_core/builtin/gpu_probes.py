"""The built-in GPU probes behind ``gpu_class()``: sysfs/procfs, the registry, the CPU."""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.plugins.hookspecs import hookimpl
from hermes_platform.host.gpu import BUILTIN_GPU_PROBES, GpuProbe


@hookimpl
def gpu_probe() -> Iterable[GpuProbe]:
    return BUILTIN_GPU_PROBES
