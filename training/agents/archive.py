"""Reading agent files safely: a regular file read up to a bound, then a zip archive of a JSON
metadata member and an npz of plain arrays.

An agent file may come from anywhere (a server's client names it), so nothing is read before its
declared size is checked against what the metadata allows: the file itself first
(:func:`open_agent_file`: a regular file — not a named pipe, a device or a directory, links
followed — of at most MAX_ARCHIVE_BYTES, checked on the descriptor it is read through, and never
read past the size it had then), then the zip directory (entry count and size) before zipfile
parses it, each member's declared size, encryption and compression before it is opened, each
array's npy header (dtype, shape, byte count) before its data is read. Every fault becomes a
CheckpointError naming it; the memory a load takes is bounded by the limits below (a few times
MAX_PARAMETERS × 8 bytes at most). ``read_agent_archive`` is the reusable part: a format
(``training.agents.checkpoint``'s policy, a convolutional network) passes its own member names,
metadata check and array specs; ``training.agents.files`` reads every kind of agent file
through these functions.
"""

from __future__ import annotations

import io
import json
import math
import contextlib
import os
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator

import numpy as np

MAX_ARCHIVE_BYTES = 64 << 20  # a whole agent file (the shipped ones are under 5 MB)
MAX_ZIP_ENTRIES = 64
MAX_ZIP_DIRECTORY_BYTES = 64 << 10
MAX_META_BYTES = 1 << 20
MAX_JSON_DEPTH = 32
MAX_NPY_HEADER_BYTES = 16 << 10
MAX_PARAMETERS = 1 << 23  # 8 Mi weights (32 MB as float32): the shipped Knot network has 0.9 Mi
MAX_LAYERS = 16
MAX_WIDTH = 1 << 16  # observation size, number of actions, hidden layer width
ZIP_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}
FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


class CheckpointError(ValueError):
    """A checkpoint that cannot be used here; the message says which check failed."""


@dataclass(frozen=True)
class ArraySpec:
    """What one array of an agent file must be: its shape (``None`` for a dimension the metadata
    does not fix, then at most ``MAX_WIDTH``), the dtypes it may be stored in (either byte
    order), the dtype it is returned in, and whether every value must be finite (checked in the
    returned dtype, so a float64 too large for float32 is refused)."""

    shape: tuple[int | None, ...]
    dtypes: tuple[np.dtype, ...] = FLOAT_DTYPES
    cast: np.dtype | None = np.dtype(np.float32)
    finite: bool = True


def _shown_shape(shape: tuple) -> str:
    return "(" + ", ".join("?" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def json_depth_exceeds(value: Any, limit: int) -> bool:
    """Whether parsed JSON nests lists and objects deeper than ``limit`` (iterative: no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def _refuse_constant(name: str):
    raise ValueError(f"it holds {name}, which strict JSON has not")


class _Fault(Exception):
    """A damaged archive; read_agent_archive words it as a CheckpointError."""


def check_zip_directory(data: bytes, size: int, what: str) -> None:
    """``data`` is the archive's last bytes (up to 65,557): refuse a zip whose directory is
    larger than an agent file needs, before zipfile reads it into memory."""
    at = data.rfind(b"PK\x05\x06")
    if at < 0 or len(data) - at < 22:
        raise _Fault(f"{what} is not a readable zip archive (no end-of-directory record)")
    entries, directory_bytes, directory_offset = struct.unpack_from("<HII", data, at + 10)
    if entries == 0xFFFF or directory_bytes == 0xFFFFFFFF or directory_offset == 0xFFFFFFFF:
        raise _Fault(f"{what} is a zip64 archive (over 65,535 entries or 4 GB); agent files are small zips")
    if entries > MAX_ZIP_ENTRIES:
        raise _Fault(f"{what} has {entries} entries; an agent file has at most {MAX_ZIP_ENTRIES}")
    if directory_bytes > MAX_ZIP_DIRECTORY_BYTES:
        raise _Fault(f"{what} has a {directory_bytes}-byte directory; at most {MAX_ZIP_DIRECTORY_BYTES} are allowed")
    if directory_offset + directory_bytes > size:
        raise _Fault(f"{what} is truncated: its directory lies past the end of the file")


def open_zip(source: BinaryIO, size: int, what: str) -> zipfile.ZipFile:
    source.seek(max(0, size - (22 + 0xFFFF)))
    check_zip_directory(source.read(), size, what)
    source.seek(0)
    return zipfile.ZipFile(source)


def member_info(archive: zipfile.ZipFile, name: str, max_bytes: int, what: str) -> zipfile.ZipInfo | None:
    """The checked directory entry of member ``name`` (None when absent): one of that name, not
    encrypted, stored or deflated, declaring at most ``max_bytes`` uncompressed."""
    infos = [info for info in archive.infolist() if info.filename == name]
    if not infos:
        return None
    if len(infos) > 1:
        raise _Fault(f"{what or 'the file'} holds {len(infos)} members named {name!r}")
    info = infos[0]
    where = f" of {what}" if what else ""
    if info.flag_bits & 0x41:
        raise _Fault(f"member {name!r}{where} is encrypted")
    if info.flag_bits & 0x20:
        raise _Fault(f"member {name!r}{where} is patched data (zip flag bit 5), which no agent file uses")
    if info.compress_type not in ZIP_METHODS:
        raise _Fault(
            f"member {name!r}{where} uses compression method {info.compress_type}; agent files use "
            + " or ".join(f"{label} ({number})" for number, label in ZIP_METHODS.items())
        )
    if info.file_size > max_bytes:
        raise _Fault(f"member {name!r}{where} declares {info.file_size} bytes uncompressed; at most {max_bytes} are allowed for it")
    return info


def read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, what: str) -> bytes:
    """A checked member's bytes: zipfile stops at the declared size and checks the CRC."""
    with archive.open(info) as member:
        data = member.read(info.file_size + 1)
    if len(data) != info.file_size:
        raise _Fault(f"member {info.filename!r}{f' of {what}' if what else ''} holds {len(data)} bytes, not the {info.file_size} it declares")
    return data


def read_json_member(archive: zipfile.ZipFile, name: str, what: str, max_bytes: int = MAX_META_BYTES) -> Any:
    info = member_info(archive, name, max_bytes, what)
    if info is None:
        raise _Fault(f"{what or 'the file'} has no {name}")
    data = read_member(archive, info, what)
    try:
        value = json.loads(data.decode("utf-8"), parse_constant=_refuse_constant)
    except UnicodeDecodeError:
        raise _Fault(f"{name} is not UTF-8 text") from None
    except RecursionError:
        raise _Fault(f"{name} is nested deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError as error:
        raise _Fault(f"{name} is not valid JSON: {error}") from None
    if json_depth_exceeds(value, MAX_JSON_DEPTH):
        raise _Fault(f"{name} is nested deeper than {MAX_JSON_DEPTH} levels")
    return value


def _read_npy(npz: zipfile.ZipFile, array: str, spec: ArraySpec, budget: list[int], where: str) -> np.ndarray:
    """One array of an npz, its header checked against ``spec`` before its data is read;
    ``budget`` is the number of elements the file may still hold (shared by its arrays)."""
    limit = MAX_NPY_HEADER_BYTES + budget[0] * max(d.itemsize for d in spec.dtypes)
    info = member_info(npz, f"{array}.npy", limit, where)
    if info is None:
        raise _Fault(f"{where} has no array {array!r}")
    with npz.open(info) as member:
        try:
            version = np.lib.format.read_magic(member)
            if version == (1, 0):
                shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(member, max_header_size=MAX_NPY_HEADER_BYTES)
            elif version == (2, 0):
                shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(member, max_header_size=MAX_NPY_HEADER_BYTES)
            else:
                raise _Fault(f"array {array!r} is npy format {version[0]}.{version[1]}; agent files use 1.0 or 2.0")
        except _Fault:
            raise
        except Exception as error:  # numpy parses the (≤16 KB) header text: any failure is damage
            raise _Fault(f"array {array!r} has a damaged npy header ({type(error).__name__}: {str(error)[:100]})") from None
        header_bytes = member.tell()
        wanted = ", ".join(str(d) for d in spec.dtypes)
        if dtype.fields is not None or dtype.subdtype is not None or dtype.hasobject or dtype.newbyteorder("=") not in spec.dtypes:
            raise _Fault(f"array {array!r} has dtype {dtype.name if dtype.fields is None else dtype}; weights are {wanted.replace(', ', ' or ')}")
        expected = spec.shape
        fits = len(shape) == len(expected) and all(
            (want is None and 1 <= got <= MAX_WIDTH) or got == want for got, want in zip(shape, expected)
        )
        if not fits:
            raise _Fault(f"array {array!r} has shape {tuple(shape)}, expected {_shown_shape(expected)}")
        elements = math.prod(shape)
        if elements > budget[0]:
            raise _Fault(f"the arrays hold more than {MAX_PARAMETERS} values, the most an agent file may hold")
        budget[0] -= elements
        data_bytes = elements * dtype.itemsize
        if info.file_size != header_bytes + data_bytes:
            raise _Fault(
                f"array {array!r} holds {info.file_size - header_bytes} bytes of data; its header declares {data_bytes} "
                f"({tuple(shape)} {dtype.name})"
            )
        values = np.empty(elements, dtype)
        view = memoryview(values).cast("B")
        filled = 0
        while filled < data_bytes:
            count = member.readinto(view[filled:])
            if not count:
                raise _Fault(f"array {array!r} is truncated")
            filled += count
    values = values.reshape(shape[::-1]).T if fortran_order else values.reshape(shape)
    if spec.cast is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            values = np.ascontiguousarray(values, dtype=spec.cast)
    if spec.finite:
        bad = values.size - int(np.count_nonzero(np.isfinite(values)))
        if bad:
            kind = values.dtype.name
            raise _Fault(
                f"array {array!r} holds {bad} value{'s that are' if bad > 1 else ' that is'} not a finite {kind} "
                "(NaN, infinite, or too large)"
            )
    return values


def read_npz_member(archive: zipfile.ZipFile, name: str, specs: dict[str, ArraySpec], what: str) -> dict[str, np.ndarray]:
    """The arrays ``specs`` names from npz member ``name``, each checked as ``_read_npy`` does."""
    worst = sum(
        MAX_NPY_HEADER_BYTES + 1024 + math.prod(MAX_WIDTH if d is None else d for d in spec.shape) * max(t.itemsize for t in spec.dtypes)
        for spec in specs.values()
    )
    limit = min(worst, MAX_PARAMETERS * 8 + len(specs) * (MAX_NPY_HEADER_BYTES + 1024)) + MAX_ZIP_DIRECTORY_BYTES
    info = member_info(archive, name, limit, what)
    if info is None:
        raise _Fault(f"{what or 'the file'} has no {name}")
    data = read_member(archive, info, what)
    with open_zip(io.BytesIO(data), len(data), name) as npz:
        budget = [MAX_PARAMETERS]
        return {array: _read_npy(npz, array, spec, budget, name) for array, spec in specs.items()}


# ----- the file itself ------------------------------------------------------------------------------

FILE_TYPES = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"), (stat.S_ISSOCK, "a socket"),
)


def file_type(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    return next((words for test, words in FILE_TYPES if test(mode)), "not a regular file")


class _Capped(io.RawIOBase):
    """A file read no further than ``size`` bytes (its size when it was checked): a file that
    grows while it is read is read as it was."""

    def __init__(self, raw: io.FileIO, size: int):
        self.raw, self.size = raw, size

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        left = self.size - self.raw.tell()
        if left <= 0:
            return 0
        view = memoryview(buffer).cast("B")
        return self.raw.readinto(view[:min(len(view), left)])

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_END:
            return self.raw.seek(self.size + offset, io.SEEK_SET)
        return self.raw.seek(offset, whence)

    def tell(self) -> int:
        return self.raw.tell()

    def close(self) -> None:
        self.raw.close()
        super().close()


def _regular(mode: int, size: int, limit: int, what: str, shown: str) -> None:
    if not stat.S_ISREG(mode):
        raise CheckpointError(f"{what} {shown} is {file_type(mode)}, not a regular file: agent files are regular files")
    if size > limit:
        raise CheckpointError(f"{what} {shown} is {size} bytes; an agent file is at most {limit}")


@contextlib.contextmanager
def open_agent_file(path: str | Path, what: str = "agent file", limit: int = MAX_ARCHIVE_BYTES) -> Iterator[tuple[BinaryIO, int]]:
    """Open an agent file for reading, refusing anything but a regular file of at most
    ``limit`` bytes; yields ``(stream, size)``. The path is checked (links followed) before it
    is opened, and opened without blocking (a named pipe put there in between does not hang the
    caller), then the opened descriptor is checked again — it is what is read — and read no
    further than its size at that moment."""
    shown = repr(str(path))
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise CheckpointError(f"{what} {shown} does not exist") from None
    except (OSError, ValueError) as error:
        raise CheckpointError(f"{what} {shown} cannot be read: {getattr(error, 'strerror', None) or error}") from None
    _regular(status.st_mode, status.st_size, limit, what, shown)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        descriptor = os.open(path, flags)
    except FileNotFoundError:
        raise CheckpointError(f"{what} {shown} does not exist") from None
    except OSError as error:
        raise CheckpointError(f"{what} {shown} cannot be read: {error.strerror}") from None
    raw = io.FileIO(descriptor, "rb", closefd=True)
    try:
        status = os.fstat(descriptor)
        _regular(status.st_mode, status.st_size, limit, what, shown)
        with io.BufferedReader(_Capped(raw, status.st_size)) as stream:
            yield stream, status.st_size
    finally:
        raw.close()


def read_small_file(path: str | Path, what: str, limit: int) -> bytes:
    """The whole of a small regular file (a manifest), read as :func:`open_agent_file` reads."""
    with open_agent_file(path, what, limit) as (stream, size):
        return stream.read(size)


def read_agent_archive(
    path: str | Path,
    meta_member: str,
    arrays_member: str,
    arrays_for: Callable[[dict[str, Any], str], dict[str, ArraySpec]],
    what: str = "checkpoint",
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Read an agent file made of a JSON metadata member and an npz of plain arrays, safely.

    ``arrays_for(meta, shown)`` checks the metadata (raising CheckpointError, its message
    naming the fault; ``shown`` is the quoted path for it) and returns the arrays wanted, by
    name, with their specs; only then is the npz member read, each array's header checked
    against its spec before its data. Every fault raises CheckpointError ("{what} '{path}' is
    damaged: …")."""
    path = Path(path)
    shown = repr(str(path))
    with open_agent_file(path, what) as (source, size):
        return read_archive_stream(source, size, shown, meta_member, arrays_member, arrays_for, what)


def read_archive_stream(
    source: BinaryIO, size: int, shown: str, meta_member: str, arrays_member: str,
    arrays_for: Callable[[dict[str, Any], str], dict[str, ArraySpec]], what: str = "checkpoint",
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``read_agent_archive`` on an opened agent file (``open_agent_file``)."""
    with archive_faults(shown, what):
        with open_zip(source, size, "the file") as archive:
            meta = read_json_member(archive, meta_member, "")
            if not isinstance(meta, dict):
                raise _Fault(f"{meta_member} holds {type(meta).__name__}, not a JSON object")
            specs = arrays_for(meta, shown)
            arrays = read_npz_member(archive, arrays_member, specs, "")
    return meta, arrays


@contextlib.contextmanager
def archive_faults(shown: str, what: str | Callable[[], str]) -> Iterator[None]:
    """Every fault met reading an archive as the one CheckpointError: "{what} {shown} is
    damaged: …" (a CheckpointError raised inside passes as it is; ``what`` may be a function,
    asked when a fault is met)."""
    try:
        yield
    except (_Fault, zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, RuntimeError, NotImplementedError,
            struct.error, KeyError) as error:
        if isinstance(error, CheckpointError):
            raise
        raise _worded(error, shown, what() if callable(what) else what) from None


def _worded(error: BaseException, shown: str, what: str) -> CheckpointError:
    if isinstance(error, _Fault):
        return CheckpointError(f"{what} {shown} is damaged: {error}")
    if isinstance(error, zipfile.BadZipFile):
        return CheckpointError(f"{what} {shown} is damaged: not a readable zip archive ({error})")
    return CheckpointError(f"{what} {shown} is damaged: {type(error).__name__}: {error}")

