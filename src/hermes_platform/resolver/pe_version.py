"""Read the file version of a Windows executable from its bytes, on any OS.

A ``pe_resource`` location reports the version of an installed ``.exe`` or
``.dll``.  Asking Windows (``GetFileVersionInfoW``) works only on Windows and
cannot be tested elsewhere, so this module walks the PE/COFF structures in
pure Python: DOS header, ``PE\\0\\0`` signature, COFF and optional headers, the
section table, the three-level resource directory and finally the
``VS_VERSIONINFO`` block with its ``VS_FIXEDFILEINFO``.  The same code runs on
Linux CI against PE files that the tests build byte by byte.

The file is untrusted input: any installed binary, possibly truncated,
corrupted or hostile.  So no offset, count or size read from it is believed
before it is checked.  Every read goes through one bounded reader (exact
length, inside the file, a total byte budget per call); section, directory
entry and resource sizes are capped; directory offsets must stay inside the
resource section and each directory is visited at most once.  Whatever the
bytes, the only exceptions raised are :class:`PeVersionError` and its
subclasses.  Errors raised by ``read_range`` itself (``OSError`` while reading
the file) are the caller's and pass through unchanged.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "FIXED_FILE_INFO_SIGNATURE",
    "MAX_TOTAL_READ",
    "MAX_VERSION_SIZE",
    "RT_VERSION",
    "PeNoFixedInfo",
    "PeUnreadable",
    "PeVersionError",
    "read_file_version",
]

RT_VERSION = 16
FIXED_FILE_INFO_SIGNATURE = 0xFEEF04BD

# Hard limits: far above anything a real linker produces, far below harm.
MAX_TOTAL_READ = 1 << 20  # bytes requested from read_range per call
MAX_LFANEW = 1 << 16  # the PE header must start in the first 64 KiB
MAX_SECTIONS = 96  # the Windows loader's own limit
MAX_DIR_ENTRIES = 512  # entries in one resource directory
MAX_VERSION_SIZE = 1 << 16  # VS_VERSIONINFO's wLength is a 16-bit count

_PE32_MAGIC = 0x10B
_PE32_PLUS_MAGIC = 0x20B
_RESOURCE_DIRECTORY_INDEX = 2
_HIGH_BIT = 0x8000_0000

_DOS_HEADER_SIZE = 64
_COFF_HEADER_SIZE = 20
_SECTION_HEADER_SIZE = 40
_RESOURCE_DIR_SIZE = 16
_RESOURCE_ENTRY_SIZE = 8
_RESOURCE_DATA_ENTRY_SIZE = 16
_FIXED_FILE_INFO_SIZE = 52
_VERSION_KEY = "VS_VERSION_INFO\0".encode("utf-16-le")

# Offset of NumberOfRvaAndSizes and of the first data directory, by magic.
_OPTIONAL_HEADER_LAYOUT = {_PE32_MAGIC: (92, 96), _PE32_PLUS_MAGIC: (108, 112)}


class PeVersionError(Exception):
    """The version could not be read; ``str(error)`` is a short reason."""

    @property
    def reason(self) -> str:
        """The short human reason, e.g. ``"truncated section table"``."""
        return str(self)


class PeUnreadable(PeVersionError):
    """The file is not a readable PE: truncated, malformed or hostile."""


class PeNoFixedInfo(PeVersionError):
    """The PE has a version resource but no valid ``VS_FIXEDFILEINFO`` in it."""


class _BoundedReader:
    """Exact-length reads inside the file, under a total byte budget."""

    def __init__(self, read_range: Callable[[int, int], bytes], size: int) -> None:
        self._read_range = read_range
        self._size = size
        self._budget = MAX_TOTAL_READ

    def read(self, offset: int, length: int, what: str) -> bytes:
        if offset < 0 or length < 0 or offset + length > self._size:
            raise PeUnreadable(f"truncated {what}")
        if length > self._budget:
            raise PeUnreadable(f"read budget exceeded at {what}")
        self._budget -= length
        data = self._read_range(offset, length)
        if len(data) < length:
            raise PeUnreadable(f"truncated {what}")
        return bytes(data[:length])


def _u16(data: bytes, offset: int) -> int:
    value: int = struct.unpack_from("<H", data, offset)[0]
    return value


def _u32(data: bytes, offset: int) -> int:
    value: int = struct.unpack_from("<I", data, offset)[0]
    return value


@dataclass(frozen=True)
class _Section:
    virtual_address: int
    span: int  # bytes of address space the section covers
    backed: int  # leading bytes of that span present in the file
    raw_pointer: int

    def file_offset(self, rva: int, length: int) -> int | None:
        """File offset of ``[rva, rva + length)``, or None if not file-backed here."""
        start = rva - self.virtual_address
        if start < 0 or start >= self.span:
            return None
        if start + length > self.backed:
            raise PeUnreadable("resource outside section data")
        return self.raw_pointer + start


def _read_headers(reader: _BoundedReader) -> tuple[int, list[_Section]] | None:
    """Return (resource directory RVA, sections), or None without resources."""
    dos = reader.read(0, _DOS_HEADER_SIZE, "DOS header")
    if dos[:2] != b"MZ":
        raise PeUnreadable("not a PE file")
    lfanew = _u32(dos, 0x3C)
    if lfanew > MAX_LFANEW:
        raise PeUnreadable("PE header offset out of range")
    nt = reader.read(lfanew, 4 + _COFF_HEADER_SIZE, "PE header")
    if nt[:4] != b"PE\0\0":
        raise PeUnreadable("bad PE signature")
    section_count = _u16(nt, 4 + 2)
    optional_size = _u16(nt, 4 + 16)
    if section_count > MAX_SECTIONS:
        raise PeUnreadable("too many sections")
    optional_offset = lfanew + 4 + _COFF_HEADER_SIZE
    if optional_size < 2:
        raise PeUnreadable("missing optional header")
    magic = _u16(reader.read(optional_offset, 2, "optional header"), 0)
    layout = _OPTIONAL_HEADER_LAYOUT.get(magic)
    if layout is None:
        raise PeUnreadable("unknown optional header magic")
    count_offset, directories_offset = layout
    resource_entry = directories_offset + 8 * _RESOURCE_DIRECTORY_INDEX
    if optional_size < count_offset + 4:
        raise PeUnreadable("truncated optional header")
    optional = reader.read(
        optional_offset, min(optional_size, resource_entry + 8), "optional header"
    )
    if _u32(optional, count_offset) <= _RESOURCE_DIRECTORY_INDEX:
        return None
    if len(optional) < resource_entry + 8:
        raise PeUnreadable("truncated data directories")
    resource_rva = _u32(optional, resource_entry)
    resource_size = _u32(optional, resource_entry + 4)
    if resource_rva == 0 or resource_size == 0:
        return None
    table = reader.read(
        optional_offset + optional_size,
        section_count * _SECTION_HEADER_SIZE,
        "section table",
    )
    sections = []
    for index in range(section_count):
        base = index * _SECTION_HEADER_SIZE
        virtual_size, virtual_address, raw_size, raw_pointer = struct.unpack_from(
            "<4I", table, base + 8
        )
        span = virtual_size or raw_size
        sections.append(_Section(virtual_address, span, min(span, raw_size), raw_pointer))
    return resource_rva, sections


def _map_rva(sections: list[_Section], rva: int, length: int) -> int:
    for section in sections:
        offset = section.file_offset(rva, length)
        if offset is not None:
            return offset
    raise PeUnreadable("RVA not in any section")


def _resource_limit(sections: list[_Section], resource_rva: int) -> int:
    """Bytes of the resource section, from its root, that the file holds."""
    for section in sections:
        start = resource_rva - section.virtual_address
        if 0 <= start < section.span:
            if start >= section.backed:
                raise PeUnreadable("resource directory outside section data")
            return section.backed - start
    raise PeUnreadable("resource directory not in any section")


class _ResourceTree:
    """Reads directories relative to the resource root, each at most once."""

    def __init__(self, reader: _BoundedReader, root_offset: int, limit: int) -> None:
        self._reader = reader
        self._root_offset = root_offset
        self._limit = limit
        self._visited: set[int] = set()

    def _read(self, offset: int, length: int, what: str) -> bytes:
        if offset + length > self._limit:
            raise PeUnreadable(f"{what} outside resource section")
        return self._reader.read(self._root_offset + offset, length, what)

    def entries(self, offset: int) -> list[tuple[int, int]]:
        """(Name, OffsetToData) pairs of the directory at ``offset``."""
        if offset in self._visited:
            raise PeUnreadable("resource directory loop")
        self._visited.add(offset)
        header = self._read(offset, _RESOURCE_DIR_SIZE, "resource directory")
        count = _u16(header, 12) + _u16(header, 14)
        if count > MAX_DIR_ENTRIES:
            raise PeUnreadable("too many resource directory entries")
        raw = self._read(
            offset + _RESOURCE_DIR_SIZE,
            count * _RESOURCE_ENTRY_SIZE,
            "resource directory",
        )
        return [struct.unpack_from("<II", raw, i * _RESOURCE_ENTRY_SIZE) for i in range(count)]

    def data_entry(self, offset: int) -> tuple[int, int]:
        """(RVA, size) of the IMAGE_RESOURCE_DATA_ENTRY at ``offset``."""
        raw = self._read(offset, _RESOURCE_DATA_ENTRY_SIZE, "resource data entry")
        return _u32(raw, 0), _u32(raw, 4)


def _find_version_data(tree: _ResourceTree) -> tuple[int, int] | None:
    """Walk type 16 → first name → first language; None when there is no type 16."""
    # An ID entry has the high (name string) bit clear, so it compares equal.
    target = next((to for name, to in tree.entries(0) if name == RT_VERSION), None)
    if target is None:
        return None
    for _level in ("name", "language"):
        if not target & _HIGH_BIT:
            raise PeUnreadable("malformed version resource directory")
        entries = tree.entries(target & ~_HIGH_BIT)
        if not entries:
            raise PeUnreadable("empty version resource directory")
        target = entries[0][1]
    if target & _HIGH_BIT:
        raise PeUnreadable("malformed version resource directory")
    return tree.data_entry(target)


def _parse_fixed_info(block: bytes) -> str:
    """The file version in a VS_VERSIONINFO block, or PeNoFixedInfo."""
    value_offset = (6 + len(_VERSION_KEY) + 3) & ~3
    value_end = value_offset + _FIXED_FILE_INFO_SIZE
    if len(block) < value_end:
        raise PeNoFixedInfo("version resource too short for fixed file info")
    if block[6 : 6 + len(_VERSION_KEY)] != _VERSION_KEY:
        raise PeNoFixedInfo("version resource without VS_VERSION_INFO key")
    if _u16(block, 0) < value_end or _u16(block, 2) < _FIXED_FILE_INFO_SIZE:
        raise PeNoFixedInfo("no fixed file info")
    if _u32(block, value_offset) != FIXED_FILE_INFO_SIGNATURE:
        raise PeNoFixedInfo("bad fixed file info signature")
    most = _u32(block, value_offset + 8)
    least = _u32(block, value_offset + 12)
    return f"{most >> 16}.{most & 0xFFFF}.{least >> 16}.{least & 0xFFFF}"


def read_file_version(read_range: Callable[[int, int], bytes], size: int) -> str | None:
    """The ``FileVersion`` of a PE file as ``"a.b.c.d"``, read from its bytes.

    ``read_range(offset, length)`` returns up to ``length`` bytes at ``offset``
    (fewer at end of file); ``size`` is the file size.  At most
    ``MAX_TOTAL_READ`` bytes are requested in all, in a handful of small reads.

    Returns ``None`` when the PE has no ``RT_VERSION`` resource.  Raises
    :class:`PeNoFixedInfo` when it has one without a valid
    ``VS_FIXEDFILEINFO``, and :class:`PeUnreadable` for any other failure
    (not a PE, truncated, malformed, limits exceeded); both subclass
    :class:`PeVersionError`.

    >>> read_file_version(lambda offset, length: b"", 0)
    Traceback (most recent call last):
    ...
    hermes_platform.resolver.pe_version.PeUnreadable: truncated DOS header
    """
    reader = _BoundedReader(read_range, size)
    headers = _read_headers(reader)
    if headers is None:
        return None
    resource_rva, sections = headers
    # Directory offsets are bounded by the section that holds the root; the
    # data directory's size field is not relied on.
    root_offset = _map_rva(sections, resource_rva, _RESOURCE_DIR_SIZE)
    tree = _ResourceTree(reader, root_offset, _resource_limit(sections, resource_rva))
    found = _find_version_data(tree)
    if found is None:
        return None
    data_rva, data_size = found
    if data_size > MAX_VERSION_SIZE:
        raise PeUnreadable("version resource too large")
    block = reader.read(_map_rva(sections, data_rva, data_size), data_size, "version resource")
    return _parse_fixed_info(block)
