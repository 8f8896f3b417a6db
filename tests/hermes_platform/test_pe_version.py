"""The PE version reader on real PE bytes built by the tests, and on hostile ones."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_platform.resolver.pe_version import (
    MAX_TOTAL_READ,
    PeNoFixedInfo,
    PeUnreadable,
    PeVersionError,
    read_file_version,
)
from support.pe_builder import (
    PE_OFFSET,
    RSRC_RAW_OFFSET,
    RSRC_RVA,
    build_pe,
    section_table_offset,
)

Version = tuple[int, int, int, int]
VALID_PE = build_pe((1, 2, 3, 4))
VALID_PE32 = build_pe((1, 2, 3, 4), pe32_plus=False)


class CountingReader:
    """A read_range over bytes that records what was asked of it.

    Past the end of ``data`` it serves zeros up to ``virtual_size``, so a test
    can pretend the file is as large as its headers claim.
    """

    def __init__(self, data: bytes, virtual_size: int | None = None) -> None:
        self.data = data
        self.size = len(data) if virtual_size is None else virtual_size
        self.calls = 0
        self.requested = 0

    def __call__(self, offset: int, length: int) -> bytes:
        self.calls += 1
        self.requested += length
        end = min(offset + length, self.size)
        chunk = self.data[offset:end]
        return chunk + b"\0" * max(0, end - offset - len(chunk))

    def version(self) -> str | None:
        return read_file_version(self, self.size)


def version_of(data: bytes) -> str | None:
    return CountingReader(data).version()


def outcome(data: bytes, size: int | None = None) -> str | None:
    """Read ``data``, allowing only a version, None or PeVersionError."""
    reader = CountingReader(data)
    try:
        result = read_file_version(reader, len(data) if size is None else size)
    except PeVersionError as error:
        assert str(error)
        result = None
    assert reader.requested <= MAX_TOTAL_READ
    return result


def _u16(data: bytes | bytearray, offset: int) -> int:
    value: int = struct.unpack_from("<H", data, offset)[0]
    return value


def _u32(data: bytes | bytearray, offset: int) -> int:
    value: int = struct.unpack_from("<I", data, offset)[0]
    return value


def version_path(pe: bytes) -> dict[str, int]:
    """File offsets of the structures on the way to the version block."""
    root = RSRC_RAW_OFFSET
    count = _u16(pe, root + 12) + _u16(pe, root + 14)
    root_entry = next(root + 16 + 8 * i for i in range(count) if _u32(pe, root + 16 + 8 * i) == 16)
    name_dir = root + (_u32(pe, root_entry + 4) & 0x7FFF_FFFF)
    lang_dir = root + (_u32(pe, name_dir + 16 + 4) & 0x7FFF_FFFF)
    data_entry = root + _u32(pe, lang_dir + 16 + 4)
    return {
        "root_entry": root_entry,
        "name_dir": name_dir,
        "name_entry": name_dir + 16,
        "lang_dir": lang_dir,
        "lang_entry": lang_dir + 16,
        "data_entry": data_entry,
        "block": _u32(pe, data_entry) - RSRC_RVA + RSRC_RAW_OFFSET,
    }


def patched(pe: bytes, *patches: tuple[int, str, int]) -> bytes:
    """``pe`` with struct values written at (offset, format, value)."""
    out = bytearray(pe)
    for offset, fmt, value in patches:
        struct.pack_into(fmt, out, offset, value)
    return bytes(out)


# --- well-formed files ------------------------------------------------------


@pytest.mark.parametrize(
    "version",
    [(1, 2, 3, 4), (0, 0, 0, 0), (65535, 65535, 65535, 65535), (10, 0, 19041, 1)],
)
@pytest.mark.parametrize("pe32_plus", [True, False], ids=["pe32plus", "pe32"])
@pytest.mark.parametrize("extra", [True, False], ids=["extra", "only"])
def test_round_trip(version: Version, pe32_plus: bool, extra: bool) -> None:
    pe = build_pe(version, pe32_plus=pe32_plus, extra_resource_types=extra)
    assert version_of(pe) == ".".join(map(str, version))


def test_builder_maps_resources_away_from_their_file_offset() -> None:
    assert RSRC_RVA != RSRC_RAW_OFFSET
    table = section_table_offset()
    rsrc_header = table + 40
    assert VALID_PE[rsrc_header : rsrc_header + 5] == b".rsrc"
    assert _u32(VALID_PE, rsrc_header + 12) == RSRC_RVA
    assert _u32(VALID_PE, rsrc_header + 20) == RSRC_RAW_OFFSET


def test_section_moved_in_file_is_followed_through_the_section_table() -> None:
    pad = b"\xcc" * 0x200
    moved = VALID_PE[:RSRC_RAW_OFFSET] + pad + VALID_PE[RSRC_RAW_OFFSET:]
    pointer = section_table_offset() + 40 + 20
    moved = patched(moved, (pointer, "<I", RSRC_RAW_OFFSET + len(pad)))
    assert version_of(moved) == "1.2.3.4"


@pytest.mark.parametrize("extra", [True, False])
def test_no_version_resource_is_none(extra: bool) -> None:
    assert version_of(build_pe(None, extra_resource_types=extra)) is None


def test_no_resource_data_directory_is_none() -> None:
    count_offset = PE_OFFSET + 4 + 20 + 108  # NumberOfRvaAndSizes in PE32+
    assert version_of(patched(VALID_PE, (count_offset, "<I", 2))) is None


@pytest.mark.parametrize("pe32_plus", [True, False])
def test_version_resource_without_fixed_info(pe32_plus: bool) -> None:
    pe = build_pe((1, 2, 3, 4), pe32_plus=pe32_plus, with_fixed_info=False)
    with pytest.raises(PeNoFixedInfo) as caught:
        version_of(pe)
    assert not isinstance(caught.value, PeUnreadable)
    assert caught.value.reason == "no fixed file info"


@pytest.mark.parametrize(
    ("field", "fmt", "value"),
    [(40, "<I", 0xDEADBEEF), (6, "<H", ord("X")), (2, "<H", 0)],
    ids=["signature", "key", "value-length"],
)
def test_invalid_fixed_info_is_no_fixed_info(field: int, fmt: str, value: int) -> None:
    block = version_path(VALID_PE)["block"]
    with pytest.raises(PeNoFixedInfo):
        version_of(patched(VALID_PE, (block + field, fmt, value)))


def test_version_resource_too_short_is_no_fixed_info() -> None:
    data_entry = version_path(VALID_PE)["data_entry"]
    with pytest.raises(PeNoFixedInfo):
        version_of(patched(VALID_PE, (data_entry + 4, "<I", 60)))


def test_error_classes_tell_the_cases_apart() -> None:
    assert issubclass(PeNoFixedInfo, PeVersionError)
    assert issubclass(PeUnreadable, PeVersionError)
    assert not issubclass(PeNoFixedInfo, PeUnreadable)
    assert not issubclass(PeUnreadable, PeNoFixedInfo)


def test_reads_through_a_real_file(tmp_path: Path) -> None:
    path = tmp_path / "tool.exe"
    path.write_bytes(build_pe((7, 8, 9, 10), pe32_plus=False))

    def read_range(offset: int, length: int) -> bytes:
        with path.open("rb") as handle:
            handle.seek(offset)
            return handle.read(length)

    assert read_file_version(read_range, path.stat().st_size) == "7.8.9.10"


def test_read_range_returning_extra_bytes_is_trimmed() -> None:
    def generous(offset: int, length: int) -> bytes:
        return VALID_PE[offset : offset + length + 100]

    assert read_file_version(generous, len(VALID_PE)) == "1.2.3.4"


# --- broken and hostile files -----------------------------------------------


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "truncated DOS header"),
        (b"#!/bin/sh\n" + b"\0" * 100, "not a PE file"),
        (b"MZ" + b"\0" * 62, "bad PE signature"),
    ],
)
def test_not_a_pe(data: bytes, reason: str) -> None:
    with pytest.raises(PeUnreadable, match=reason):
        version_of(data)


@pytest.mark.parametrize(
    ("offset", "fmt", "value", "reason"),
    [
        (0x3C, "<I", 0xFFFF_FFF0, "PE header offset out of range"),
        (0x3C, "<I", len(VALID_PE) - 8, "truncated PE header"),
        (PE_OFFSET + 6, "<H", 0xFFFF, "too many sections"),
        (PE_OFFSET + 6, "<H", 97, "too many sections"),
        (PE_OFFSET + 24, "<H", 0x107, "unknown optional header magic"),
        (PE_OFFSET + 20, "<H", 0, "missing optional header"),
        (PE_OFFSET + 20, "<H", 100, "truncated optional header"),
        (PE_OFFSET + 20, "<H", 120, "truncated data directories"),
        (PE_OFFSET + 20, "<H", 0xFFFF, "section table"),
        (RSRC_RAW_OFFSET + 12, "<H", 0xFFFF, "too many resource directory entries"),
    ],
)
def test_malformed_headers(offset: int, fmt: str, value: int, reason: str) -> None:
    with pytest.raises(PeUnreadable, match=reason):
        version_of(patched(VALID_PE, (offset, fmt, value)))


@pytest.mark.parametrize(
    ("where", "target"),
    [
        ("root_entry", "root"),  # RT_VERSION's subdirectory is the root itself
        ("name_entry", "name_dir"),  # a directory that contains itself
        ("name_entry", "root"),  # the name level points back to the root
    ],
)
def test_directory_loops_are_refused(where: str, target: str) -> None:
    path = version_path(VALID_PE)
    relative = 0 if target == "root" else path[target] - RSRC_RAW_OFFSET
    hostile = patched(VALID_PE, (path[where] + 4, "<I", 0x8000_0000 | relative))
    with pytest.raises(PeUnreadable, match="loop"):
        version_of(hostile)


def test_language_level_must_hold_data() -> None:
    entry = version_path(VALID_PE)["lang_entry"]
    hostile = patched(VALID_PE, (entry + 4, "<I", 0x8000_0000))
    with pytest.raises(PeUnreadable, match="malformed"):
        version_of(hostile)


def test_subdirectory_outside_the_resource_section() -> None:
    entry = version_path(VALID_PE)["root_entry"]
    hostile = patched(VALID_PE, (entry + 4, "<I", 0xFFFF_FFFF))
    with pytest.raises(PeUnreadable, match="outside resource section"):
        version_of(hostile)


def test_huge_version_resource_size_is_refused_without_reading_it() -> None:
    data_entry = version_path(VALID_PE)["data_entry"]
    reader = CountingReader(patched(VALID_PE, (data_entry + 4, "<I", 0xFFFF_FFFF)))
    with pytest.raises(PeUnreadable, match="too large"):
        reader.version()
    assert reader.requested < 8192


def test_reads_stay_bounded_when_every_size_is_gigantic() -> None:
    table = section_table_offset()
    rsrc_header = table + 40
    path = version_path(VALID_PE)
    resource_size = PE_OFFSET + 4 + 20 + 112 + 2 * 8 + 4
    hostile = patched(
        VALID_PE,
        (resource_size, "<I", 0xFFFF_FFFF),  # resource data directory size
        (rsrc_header + 8, "<I", 0xFFFF_FFFF),  # VirtualSize
        (rsrc_header + 16, "<I", 0xFFFF_FFFF),  # SizeOfRawData
        (table + 16, "<I", 0xFFFF_FFFF),  # .text SizeOfRawData
        (path["data_entry"] + 4, "<I", 0xFFFF),  # the most a version may claim
        (path["block"], "<H", 0xFFFF),  # wLength
    )
    reader = CountingReader(hostile, virtual_size=1 << 40)  # a "1 TiB" file
    assert reader.version() == "1.2.3.4"
    assert reader.calls <= 16
    assert reader.requested <= 0x10000 + 16384


def test_file_shorter_than_its_stated_size() -> None:
    reader = CountingReader(VALID_PE[: len(VALID_PE) // 2])
    with pytest.raises(PeUnreadable, match="truncated"):
        read_file_version(reader, len(VALID_PE))


@pytest.mark.parametrize("pe", [VALID_PE, VALID_PE32], ids=["pe32plus", "pe32"])
def test_every_truncation_raises_until_the_version_data_is_whole(pe: bytes) -> None:
    path = version_path(pe)
    data_end = path["block"] + _u32(pe, path["data_entry"] + 4)
    for length in range(len(pe) + 1):
        prefix = pe[:length]
        if length < data_end:
            with pytest.raises(PeVersionError):
                read_file_version(CountingReader(prefix), length)
        else:
            # Past the bytes the reader needs, truncation must not matter.
            assert read_file_version(CountingReader(prefix), length) == "1.2.3.4"


def test_negative_size_is_refused() -> None:
    with pytest.raises(PeUnreadable):
        read_file_version(CountingReader(VALID_PE), -1)


# --- fuzzing ----------------------------------------------------------------

flips = st.lists(
    st.tuples(st.integers(0, len(VALID_PE) - 1), st.integers(0, 255)),
    min_size=1,
    max_size=24,
)
# Most of the interesting bytes: headers, section table, resource tree, version.
header_flips = st.lists(
    st.tuples(st.integers(0, 0x1D8), st.integers(0, 255)), min_size=1, max_size=8
)
resource_flips = st.lists(
    st.tuples(st.integers(RSRC_RAW_OFFSET, RSRC_RAW_OFFSET + 0x330), st.integers(0, 255)),
    min_size=1,
    max_size=8,
)


def flipped(base: bytes, changes: list[tuple[int, int]]) -> bytes:
    out = bytearray(base)
    for index, value in changes:
        out[index] = value
    return bytes(out)


@settings(max_examples=200, deadline=None)
@given(changes=st.one_of(flips, header_flips, resource_flips))
def test_byte_flips_never_raise_anything_else(changes: list[tuple[int, int]]) -> None:
    result = outcome(flipped(VALID_PE, changes))
    assert result is None or len(result.split(".")) == 4


@settings(max_examples=200, deadline=None)
@given(changes=st.one_of(flips, header_flips, resource_flips))
def test_byte_flips_of_pe32_never_raise_anything_else(
    changes: list[tuple[int, int]],
) -> None:
    outcome(flipped(VALID_PE32, changes))


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=4096))
def test_random_bytes_never_raise_anything_else(data: bytes) -> None:
    outcome(data)


@settings(max_examples=200, deadline=None)
@given(tail=st.binary(max_size=2048), size_slack=st.integers(-64, 1 << 32))
def test_random_resource_section_never_raises_anything_else(tail: bytes, size_slack: int) -> None:
    data = VALID_PE[:RSRC_RAW_OFFSET] + tail
    outcome(data, size=max(0, len(data) + size_slack))
