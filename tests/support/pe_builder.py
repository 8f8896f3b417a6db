"""Build small but real PE files, so the version reader is tested on Linux.

The layout is what a linker writes: a DOS header and stub, ``PE\\0\\0``, the
COFF header, a PE32 or PE32+ optional header with 16 data directories, and
two sections, ``.text`` and ``.rsrc``.  ``.rsrc`` sits at file offset
``RSRC_RAW_OFFSET`` but at RVA ``RSRC_RVA``, so a reader that confuses RVAs
with file offsets fails.  The resource tree is the usual three levels (type,
name, language) with directories first, then name strings, data entries and
data; the version resource is a ``VS_VERSIONINFO`` with ``VS_FIXEDFILEINFO``,
a ``StringFileInfo`` and a ``VarFileInfo``.  Tests patch the constants below
to make broken files.
"""

from __future__ import annotations

import struct

__all__ = [
    "FILE_ALIGNMENT",
    "PE_OFFSET",
    "RSRC_RAW_OFFSET",
    "RSRC_RVA",
    "RT_ICON",
    "RT_MANIFEST",
    "RT_VERSION",
    "build_pe",
    "build_version_info",
    "section_table_offset",
]

RT_ICON = 3
RT_VERSION = 16
RT_MANIFEST = 24

PE_OFFSET = 0x80  # e_lfanew
FILE_ALIGNMENT = 0x200
SECTION_ALIGNMENT = 0x1000
TEXT_RAW_OFFSET = 0x200
TEXT_RVA = 0x1000
RSRC_RAW_OFFSET = 0x400
RSRC_RVA = 0x2000

_COFF_SIZE = 20
_PE32_OPTIONAL_SIZE = 96 + 16 * 8
_PE32_PLUS_OPTIONAL_SIZE = 112 + 16 * 8
_RESOURCE_DIRECTORY_INDEX = 2
_LANG_EN_US = 0x0409
_CODEPAGE_UNICODE = 1200

ResourceId = int | str
# type -> name -> language -> data
ResourceTree = dict[ResourceId, dict[ResourceId, dict[int, bytes]]]


def section_table_offset(*, pe32_plus: bool = True) -> int:
    """File offset of the first section header in a file from :func:`build_pe`."""
    optional = _PE32_PLUS_OPTIONAL_SIZE if pe32_plus else _PE32_OPTIONAL_SIZE
    return PE_OFFSET + 4 + _COFF_SIZE + optional


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def _pad(data: bytes, alignment: int) -> bytes:
    return data + b"\0" * (_align(len(data), alignment) - len(data))


def _dos_header_and_stub() -> bytes:
    header = bytearray(64)
    header[0:2] = b"MZ"
    # e_cblp (bytes in last page), e_cp (pages), e_crlc (relocations), e_cparhdr
    struct.pack_into("<HHHH", header, 0x02, 0x90, 3, 0, 4)
    struct.pack_into("<HH", header, 0x0C, 0, 0xFFFF)  # e_minalloc, e_maxalloc
    struct.pack_into("<H", header, 0x10, 0xB8)  # e_sp
    struct.pack_into("<H", header, 0x18, 0x40)  # e_lfarlc
    struct.pack_into("<I", header, 0x3C, PE_OFFSET)  # e_lfanew
    # 16-bit code: print the message with int 21h/09h, then exit with code 1.
    code = bytes([0x0E, 0x1F, 0xBA, 0x0E, 0x00, 0xB4, 0x09, 0xCD, 0x21])
    code += bytes([0xB8, 0x01, 0x4C, 0xCD, 0x21])
    stub = code + b"Hermes test image, not for DOS.\r\r\n$"
    image = bytes(header) + stub
    assert len(image) <= PE_OFFSET
    return image + b"\0" * (PE_OFFSET - len(image))


def _version_node(
    key: str,
    value: bytes = b"",
    *,
    text: bool = False,
    children: tuple[bytes, ...] = (),
) -> bytes:
    """One VS_VERSIONINFO-style node: header, key, padding, value, children."""
    value_length = len(value) // 2 if text else len(value)
    body = _pad(
        struct.pack("<HHH", 0, value_length, int(text)) + (key + "\0").encode("utf-16-le"),
        4,
    )
    body += value
    for child in children:
        body = _pad(body, 4) + child
    return struct.pack("<H", len(body)) + body[2:]


def _string(key: str, text: str) -> bytes:
    return _version_node(key, (text + "\0").encode("utf-16-le"), text=True)


def build_version_info(
    version: tuple[int, int, int, int], *, with_fixed_info: bool = True
) -> bytes:
    """A VS_VERSIONINFO block for ``version``, optionally without fixed info."""
    a, b, c, d = version
    most, least = (a << 16) | b, (c << 16) | d
    fixed = struct.pack(
        "<13I",
        0xFEEF04BD,  # dwSignature
        0x00010000,  # dwStrucVersion
        most,  # dwFileVersionMS
        least,  # dwFileVersionLS
        most,  # dwProductVersionMS
        least,  # dwProductVersionLS
        0x3F,  # dwFileFlagsMask
        0,  # dwFileFlags
        0x00040004,  # dwFileOS: VOS_NT_WINDOWS32
        1,  # dwFileType: VFT_APP
        0,  # dwFileSubtype
        0,  # dwFileDateMS
        0,  # dwFileDateLS
    )
    dotted = ".".join(str(part) for part in version)
    strings = _version_node(
        "040904B0",
        children=(
            _string("CompanyName", "Hermes Tests"),
            _string("FileVersion", dotted),
            _string("ProductName", "PE builder"),
        ),
    )
    translation = _version_node("Translation", struct.pack("<HH", _LANG_EN_US, _CODEPAGE_UNICODE))
    return _version_node(
        "VS_VERSION_INFO",
        fixed if with_fixed_info else b"",
        children=(
            _version_node("StringFileInfo", text=True, children=(strings,)),
            _version_node("VarFileInfo", text=True, children=(translation,)),
        ),
    )


def _sorted_ids(ids: list[ResourceId]) -> list[ResourceId]:
    """Named entries first (by name), then ID entries (by ID), as linkers order them."""
    names = sorted(i for i in ids if isinstance(i, str))
    numbers = sorted(i for i in ids if isinstance(i, int))
    return [*names, *numbers]


def _build_resource_section(tree: ResourceTree, section_rva: int) -> bytes:
    """The bytes of ``.rsrc``: directories, name strings, data entries, data."""

    def directory_size(count: int) -> int:
        return 16 + 8 * count

    types = _sorted_ids(list(tree))
    leaves: list[tuple[ResourceId, ResourceId, int]] = []
    # Pass 1: offsets of every directory, then strings, data entries and data.
    offset = directory_size(len(types))
    type_dirs: dict[ResourceId, int] = {}
    name_dirs: dict[tuple[ResourceId, ResourceId], int] = {}
    for type_id in types:
        type_dirs[type_id] = offset
        offset += directory_size(len(tree[type_id]))
    for type_id in types:
        for name_id in _sorted_ids(list(tree[type_id])):
            name_dirs[type_id, name_id] = offset
            offset += directory_size(len(tree[type_id][name_id]))
            leaves.extend((type_id, name_id, lang) for lang in sorted(tree[type_id][name_id]))
    strings: dict[str, int] = {}
    string_blob = b""
    for type_id in types:
        for ident in [type_id, *tree[type_id]]:
            if isinstance(ident, str) and ident not in strings:
                strings[ident] = offset + len(string_blob)
                encoded = ident.encode("utf-16-le")
                string_blob += struct.pack("<H", len(encoded) // 2) + encoded
    offset = _align(offset + len(string_blob), 4)
    entries_offset = offset
    data_offset = _align(entries_offset + 16 * len(leaves), 8)

    def entry(ident: ResourceId, target: int) -> bytes:
        name = (strings[ident] | 0x8000_0000) if isinstance(ident, str) else ident
        return struct.pack("<II", name, target)

    def directory(children: list[tuple[ResourceId, int]]) -> bytes:
        named = sum(isinstance(ident, str) for ident, _ in children)
        header = struct.pack("<IIHHHH", 0, 0, 4, 0, named, len(children) - named)
        return header + b"".join(entry(ident, target) for ident, target in children)

    # Pass 2: emit.
    out = directory([(t, type_dirs[t] | 0x8000_0000) for t in types])
    for type_id in types:
        names = _sorted_ids(list(tree[type_id]))
        out += directory([(n, name_dirs[type_id, n] | 0x8000_0000) for n in names])
    leaf_index = 0
    for type_id in types:
        for name_id in _sorted_ids(list(tree[type_id])):
            children: list[tuple[ResourceId, int]] = []
            for lang in sorted(tree[type_id][name_id]):
                children.append((lang, entries_offset + 16 * leaf_index))
                leaf_index += 1
            out += directory(children)
    out += string_blob
    out = _pad(out, 4)
    data = b""
    data_entries = b""
    for type_id, name_id, lang in leaves:
        blob = tree[type_id][name_id][lang]
        data = _pad(data, 8)
        rva = section_rva + data_offset + len(data)
        data_entries += struct.pack("<IIII", rva, len(blob), _CODEPAGE_UNICODE, 0)
        data += blob
    out += data_entries
    out = _pad(out, 8)
    assert len(out) == data_offset
    return out + data


def _section_header(
    name: bytes,
    virtual_size: int,
    rva: int,
    raw_size: int,
    raw_offset: int,
    characteristics: int,
) -> bytes:
    return struct.pack(
        "<8sIIIIIIHHI",
        name,
        virtual_size,
        rva,
        raw_size,
        raw_offset,
        0,
        0,
        0,
        0,
        characteristics,
    )


def build_pe(
    version: tuple[int, int, int, int] | None = (1, 2, 3, 4),
    *,
    pe32_plus: bool = True,
    with_fixed_info: bool = True,
    extra_resource_types: bool = True,
) -> bytes:
    """A minimal, well-formed PE image whose FileVersion is ``version``.

    ``version=None`` leaves out the RT_VERSION resource; ``with_fixed_info=False``
    keeps it but with ``wValueLength`` 0 and no VS_FIXEDFILEINFO.
    ``extra_resource_types`` adds a named type, RT_ICON before RT_VERSION and
    RT_MANIFEST after it, so the reader has to pick its entry out of several.
    """
    tree: ResourceTree = {}
    if extra_resource_types:
        tree["HERMESDATA"] = {"CONFIG": {0: b"opaque custom resource"}}
        tree[RT_ICON] = {1: {_LANG_EN_US: b"\x28\0\0\0" + b"\0" * 36}}
        tree[RT_MANIFEST] = {1: {_LANG_EN_US: b"<assembly/>"}}
    if version is not None:
        tree[RT_VERSION] = {
            1: {_LANG_EN_US: build_version_info(version, with_fixed_info=with_fixed_info)}
        }
    rsrc = _build_resource_section(tree, RSRC_RVA) if tree else b""
    text = b"\xc3"  # ret

    optional_size = _PE32_PLUS_OPTIONAL_SIZE if pe32_plus else _PE32_OPTIONAL_SIZE
    headers_end = section_table_offset(pe32_plus=pe32_plus) + 2 * 40
    size_of_headers = _align(headers_end, FILE_ALIGNMENT)
    assert size_of_headers <= TEXT_RAW_OFFSET
    text_raw = _align(len(text), FILE_ALIGNMENT)
    assert TEXT_RAW_OFFSET + text_raw <= RSRC_RAW_OFFSET
    rsrc_raw = _align(len(rsrc), FILE_ALIGNMENT)
    assert TEXT_RVA + _align(len(text), SECTION_ALIGNMENT) <= RSRC_RVA
    size_of_image = RSRC_RVA + _align(max(len(rsrc), 1), SECTION_ALIGNMENT)

    if pe32_plus:
        machine, characteristics = (
            0x8664,
            0x0022,
        )  # EXECUTABLE_IMAGE | LARGE_ADDRESS_AWARE
    else:
        machine, characteristics = 0x014C, 0x0102  # EXECUTABLE_IMAGE | 32BIT_MACHINE
    coff = struct.pack("<HHIIIHH", machine, 2, 0, 0, 0, optional_size, characteristics)

    directories = [(0, 0)] * 16
    if rsrc:
        directories[_RESOURCE_DIRECTORY_INDEX] = (RSRC_RVA, len(rsrc))
    common = (
        TEXT_RVA,  # AddressOfEntryPoint
        TEXT_RVA,  # BaseOfCode
    )
    if pe32_plus:
        optional = struct.pack("<HBBIIIII", 0x20B, 14, 0, text_raw, rsrc_raw, 0, *common)
        optional += struct.pack("<Q", 0x1_4000_0000)  # ImageBase
    else:
        optional = struct.pack("<HBBIIIII", 0x10B, 14, 0, text_raw, rsrc_raw, 0, *common)
        optional += struct.pack("<II", RSRC_RVA, 0x0040_0000)  # BaseOfData, ImageBase
    # Dynamic base, NX compatible, terminal-server aware; high-entropy VA on PE32+.
    dll_characteristics = 0x8160 if pe32_plus else 0x8140
    optional += struct.pack(
        "<IIHHHHHHIIIIHH",
        SECTION_ALIGNMENT,
        FILE_ALIGNMENT,
        6,
        0,  # operating system version
        0,
        0,  # image version
        6,
        0,  # subsystem version
        0,  # Win32VersionValue
        size_of_image,
        size_of_headers,
        0,  # CheckSum
        3,  # Subsystem: WINDOWS_CUI
        dll_characteristics,
    )
    stack_heap = (0x100000, 0x1000, 0x100000, 0x1000)
    optional += struct.pack("<4Q" if pe32_plus else "<4I", *stack_heap)
    optional += struct.pack("<II", 0, 16)  # LoaderFlags, NumberOfRvaAndSizes
    optional += b"".join(struct.pack("<II", rva, size) for rva, size in directories)
    assert len(optional) == optional_size

    sections = _section_header(
        b".text", len(text), TEXT_RVA, text_raw, TEXT_RAW_OFFSET, 0x6000_0020
    )  # CODE | EXECUTE | READ
    sections += _section_header(
        b".rsrc",
        len(rsrc),
        RSRC_RVA,
        rsrc_raw,
        RSRC_RAW_OFFSET if rsrc else 0,
        0x4000_0040,
    )

    image = _dos_header_and_stub() + b"PE\0\0" + coff + optional + sections
    image = _pad(image, FILE_ALIGNMENT)
    image += _pad(text, FILE_ALIGNMENT)
    assert len(image) == RSRC_RAW_OFFSET
    return image + _pad(rsrc, FILE_ALIGNMENT)
