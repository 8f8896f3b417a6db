"""Facts about the machine, all read through one replaceable host seam."""

from hermes_platform.host.caches import clear_caches
from hermes_platform.host.facts import native_arch, os_family, process_arch
from hermes_platform.host.gpu import GPU_CLASSES, classify_gpu_vendors, gpu_class
from hermes_platform.host.seam import Host, RealHost, current_host, set_host, use_host

__all__ = [
    "GPU_CLASSES",
    "Host",
    "RealHost",
    "classify_gpu_vendors",
    "clear_caches",
    "current_host",
    "gpu_class",
    "native_arch",
    "os_family",
    "process_arch",
    "set_host",
    "use_host",
]
