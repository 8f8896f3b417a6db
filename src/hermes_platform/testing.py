"""A fake host for tests: evaluate win32, darwin and linux declarations anywhere.

:class:`FakeHost` implements the :class:`~hermes_platform.host.seam.Host`
protocol over an in-memory tree, environment and registry, and counts every
call so tests can assert how much I/O a decision did::

    from hermes_platform.host import use_host
    from hermes_platform.testing import FakeHost

    host = FakeHost("win32", env={"ProgramFiles": "C:/Program Files"})
    host.add_file("C:/Program Files/Vendor/vendor.exe")
    with use_host(host):
        ...  # availability(decl) now sees that tree

Paths are compared case-insensitively for win32 (``\\`` and ``/`` alike).
"""

from __future__ import annotations

import plistlib
import struct
from collections import Counter
from collections.abc import Iterable, Mapping

from hermes_platform.resolver import known_dirs

__all__ = ["FakeHost", "pe_with_version"]


def _version_info(ms: int, ls: int) -> bytes:
    key = "VS_VERSION_INFO\0".encode("utf-16-le")
    header_len = 6 + len(key)
    pad = (-header_len) % 4
    fixed = struct.pack("<13I", 0xFEEF04BD, 0x00010000, ms, ls, ms, ls, 0x3F, 0, 0x4, 0x1, 0, 0, 0)
    body = key + b"\0" * pad + fixed
    return struct.pack("<HHH", 6 + len(body), len(fixed), 0) + body


def pe_with_version(major: int, minor: int, build: int = 0, revision: int = 0) -> bytes:
    """A minimal PE32+ executable whose VS_FIXEDFILEINFO file version is the one given."""
    info = _version_info((major << 16) | minor, (build << 16) | revision)
    rva = 0x1000
    # Resource tree: root -> type 16 -> id 1 -> language 0x409 -> data entry -> data.
    root = struct.pack("<IIHHHH", 0, 0, 0, 0, 0, 1) + struct.pack("<II", 16, 0x80000000 | 24)
    level2 = struct.pack("<IIHHHH", 0, 0, 0, 0, 0, 1) + struct.pack("<II", 1, 0x80000000 | 48)
    level3 = struct.pack("<IIHHHH", 0, 0, 0, 0, 0, 1) + struct.pack("<II", 0x409, 72)
    data_entry = struct.pack("<IIII", rva + 88, len(info), 0, 0)
    rsrc = root + level2 + level3 + data_entry + info
    rsrc += b"\0" * ((-len(rsrc)) % 512)
    dos = b"MZ" + b"\0" * 58 + struct.pack("<I", 0x40)
    coff = struct.pack("<HHIIIHH", 0x8664, 1, 0, 0, 0, 240, 0x22)
    optional = bytearray(240)
    struct.pack_into("<H", optional, 0, 0x20B)
    struct.pack_into("<I", optional, 108, 16)
    struct.pack_into("<II", optional, 112 + 2 * 8, rva, len(rsrc))
    section = struct.pack(
        "<8sIIIIIIHHI", b".rsrc", len(rsrc), rva, len(rsrc), 0x200, 0, 0, 0, 0, 0x40000040
    )
    headers = dos + b"PE\0\0" + coff + bytes(optional) + section
    return headers + b"\0" * (0x200 - len(headers)) + rsrc


class FakeHost:
    """An in-memory machine; every method call is counted in :attr:`calls`."""

    def __init__(
        self,
        platform: str = "linux",
        *,
        env: Mapping[str, str] | None = None,
        home: str | None = None,
        machine: str = "x86_64",
        sysctl: Mapping[str, int] | None = None,
        live_pids: Iterable[int] = (),
    ) -> None:
        self._platform = platform
        self._machine = machine
        self._home = (
            home if home is not None else ("C:/Users/user" if platform == "win32" else "/home/user")
        )
        self._env = dict(env or {})
        self._files: dict[str, tuple[str, bytes, bool]] = {}
        self._dirs: dict[str, str] = {}
        self._registry: dict[str, tuple[str, dict[str, object]]] = {}
        self._sysctl = dict(sysctl or {})
        self._pids = set(live_pids)
        self.calls: Counter[str] = Counter()
        self.unreadable: set[str] = set()

    # -- building the fake --------------------------------------------------
    def _key(self, path: str) -> str:
        text = path.replace("\\", "/") if self._platform == "win32" else path
        while "//" in text[1:]:
            text = text[0] + text[1:].replace("//", "/")
        if len(text) > 1:
            text = text.rstrip("/")
        return text.lower() if self._platform == "win32" else text

    def _display(self, path: str) -> str:
        return path.replace("\\", "/") if self._platform == "win32" else path

    def _parent(self, key: str) -> str | None:
        if "/" not in key or key == "/":
            return None
        parent = key.rsplit("/", 1)[0]
        return parent or "/"

    def add_dir(self, path: str) -> FakeHost:
        """Create a directory and its parents."""
        key: str | None = self._key(path)
        shown = self._display(path).rstrip("/") or "/"
        while key is not None and key not in self._dirs:
            self._dirs[key] = shown
            key = self._parent(key)
            shown = shown.rsplit("/", 1)[0] or "/"
        return self

    def add_file(self, path: str, data: bytes = b"", *, executable: bool = True) -> FakeHost:
        """Create a regular file (executable by default) and its parent folders."""
        key = self._key(path)
        shown = self._display(path)
        self._files[key] = (shown, bytes(data), executable)
        parent = self._parent(key)
        if parent is not None:
            self.add_dir(shown.rsplit("/", 1)[0] or "/")
        return self

    def add_bundle(
        self, path: str, version: str | None = None, *, plist: bytes | None = None
    ) -> FakeHost:
        """Create a macOS ``.app`` bundle with a ``Contents/Info.plist``."""
        if plist is None:
            info: dict[str, str] = {"CFBundleName": path.rstrip("/").rsplit("/", 1)[-1]}
            if version is not None:
                info["CFBundleShortVersionString"] = version
            plist = plistlib.dumps(info)
        return self.add_file(path.rstrip("/") + "/Contents/Info.plist", plist, executable=False)

    def add_exe(self, path: str, version: tuple[int, int, int, int] | None = None) -> FakeHost:
        """Create a Windows executable; with *version*, a real PE version resource."""
        data = pe_with_version(*version) if version is not None else b"MZ"
        return self.add_file(path, data)

    def remove(self, path: str) -> FakeHost:
        """Remove a file, or a directory with everything below it."""
        key = self._key(path)
        self._files.pop(key, None)
        prefix = key.rstrip("/") + "/"
        for table in (self._files, self._dirs):
            for other in [k for k in table if k == key or k.startswith(prefix)]:
                del table[other]
        return self

    def add_registry_key(self, key: str, values: Mapping[str, object] | None = None) -> FakeHost:
        """Create a registry key (and its parents) with values."""
        norm = key.replace("/", "\\").rstrip("\\")
        parts = norm.split("\\")
        for depth in range(1, len(parts) + 1):
            sub = "\\".join(parts[:depth])
            self._registry.setdefault(sub.upper(), (sub, {}))
        self._registry[norm.upper()][1].update(values or {})
        return self

    def set_env(self, name: str, value: str | None) -> FakeHost:
        if value is None:
            self._env.pop(name, None)
        else:
            self._env[name] = value
        return self

    def set_pid_alive(self, pid: int, alive: bool = True) -> FakeHost:
        (self._pids.add if alive else self._pids.discard)(pid)
        return self

    def set_gpu(self, gpu_class: str) -> FakeHost:
        """Lay out what the built-in GPU probes of this OS read so they answer *gpu_class*.

        linux and win32 take ``nvidia``, ``amd``, ``intel``, ``none`` or ``unknown``;
        darwin takes ``apple_silicon`` or ``unknown`` (an Intel Mac).
        """
        vendor_ids = {"nvidia": "10de", "amd": "1002", "intel": "8086"}
        if self._platform == "darwin":
            if gpu_class not in ("apple_silicon", "unknown"):
                raise ValueError(
                    f"a Mac's GPU class is apple_silicon or unknown, not {gpu_class!r}"
                )
            self._machine = "arm64" if gpu_class == "apple_silicon" else "x86_64"
            return self
        if gpu_class not in (*vendor_ids, "none", "unknown"):
            raise ValueError(f"cannot lay out GPU class {gpu_class!r} for {self._platform}")
        if self._platform == "win32":
            root = known_dirs.WINDOWS_DISPLAY_CLASS_KEY
            if gpu_class != "unknown":
                self.add_registry_key(root)
            if gpu_class in vendor_ids:
                device = f"PCI\\VEN_{vendor_ids[gpu_class].upper()}&DEV_0001"
                self.add_registry_key(f"{root}\\0000", {"MatchingDeviceId": device})
            return self
        drm = known_dirs.DRM_CLASS_DIR
        if gpu_class != "unknown":
            self.add_dir(drm)
        if gpu_class in vendor_ids:
            self.add_file(
                known_dirs.drm_vendor_file("card0"), f"0x{vendor_ids[gpu_class]}\n".encode()
            )
        if gpu_class == "nvidia":
            self.add_file(known_dirs.NVIDIA_PROC_VERSION, b"NVRM version: fake\n")
        return self

    # -- the Host protocol ---------------------------------------------------
    def platform(self) -> str:
        self.calls["platform"] += 1
        return self._platform

    def machine(self) -> str:
        self.calls["machine"] += 1
        return self._machine

    def env(self) -> Mapping[str, str]:
        self.calls["env"] += 1
        return dict(self._env)

    def home(self) -> str:
        self.calls["home"] += 1
        return self._home

    def is_file(self, path: str) -> bool:
        self.calls["is_file"] += 1
        return self._key(path) in self._files

    def is_dir(self, path: str) -> bool:
        self.calls["is_dir"] += 1
        return self._key(path) in self._dirs

    def is_executable(self, path: str) -> bool:
        self.calls["is_executable"] += 1
        entry = self._files.get(self._key(path))
        return entry is not None and entry[2]

    def exists(self, path: str) -> bool:
        self.calls["exists"] += 1
        key = self._key(path)
        return key in self._files or key in self._dirs

    def listdir(self, path: str) -> list[str]:
        self.calls["listdir"] += 1
        key = self._key(path)
        if key not in self._dirs or key in self.unreadable:
            raise FileNotFoundError(2, "No such directory", path)
        names = []
        for table in (self._files, self._dirs):
            for other, value in table.items():
                shown = value[0] if isinstance(value, tuple) else value
                if other != key and self._parent(other) == key:
                    names.append(shown.rsplit("/", 1)[-1])
        return sorted(set(names))

    def _file(self, path: str) -> bytes:
        key = self._key(path)
        if key in self.unreadable:
            raise PermissionError(13, "Permission denied", path)
        entry = self._files.get(key)
        if entry is None:
            raise FileNotFoundError(2, "No such file", path)
        return entry[1]

    def file_size(self, path: str) -> int:
        self.calls["file_size"] += 1
        return len(self._file(path))

    def read_range(self, path: str, offset: int, length: int) -> bytes:
        self.calls["read_range"] += 1
        if offset < 0 or length < 0:
            raise OSError("negative read")
        return self._file(path)[offset : offset + length]

    def registry_subkeys(self, key: str) -> list[str]:
        self.calls["registry_subkeys"] += 1
        norm = key.replace("/", "\\").rstrip("\\").upper()
        if self._platform != "win32" or norm not in self._registry:
            raise FileNotFoundError(2, "registry key not found", key)
        prefix = norm + "\\"
        return [
            shown.rsplit("\\", 1)[-1]
            for upper, (shown, _values) in self._registry.items()
            if upper.startswith(prefix) and "\\" not in upper[len(prefix) :]
        ]

    def registry_value(self, key: str, name: str) -> object | None:
        self.calls["registry_value"] += 1
        entry = self._registry.get(key.replace("/", "\\").rstrip("\\").upper())
        if self._platform != "win32" or entry is None:
            return None
        return entry[1].get(name)

    def sysctl_int(self, name: str) -> int | None:
        self.calls["sysctl_int"] += 1
        return self._sysctl.get(name)

    def pid_alive(self, pid: int) -> bool:
        self.calls["pid_alive"] += 1
        return pid in self._pids

    # -- assertions ------------------------------------------------------------
    @property
    def io_count(self) -> int:
        """Calls that read the machine's state (everything but platform and machine)."""
        return sum(n for name, n in self.calls.items() if name not in ("platform", "machine"))

    def reset_counts(self) -> None:
        self.calls.clear()
