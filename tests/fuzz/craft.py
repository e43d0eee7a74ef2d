"""Suite checkpoints made on purpose: a small valid one, and every kind of damage a hostile or broken file can carry.

Everything is built with the standard library and numpy (no training): a valid Linecatch 3×3
policy, then variants — zip bombs (a member inflating far past its compressed size), npy
headers declaring huge arrays, encrypted or unknown-compression members, nested or mistyped
metadata, weights of the wrong dtype or not finite.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from training.agents.checkpoint import FORMAT_VERSION, env_spaces
from training.agents.kinds import POLICY_FORMAT as FORMAT

GAME = "linecatch_v0"
OPTIONS = {"rows": 3, "cols": 3}
HIDDEN = 8


def valid_meta(options: dict | None = None, hidden: Iterable[int] = (HIDDEN,)) -> dict[str, Any]:
    import envs

    full = envs.describe(GAME).resolve_options(dict(OPTIONS if options is None else options))
    observation_shape, action_n = env_spaces(GAME, full)
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, "layers": len(tuple(hidden)) + 1,
        "game": GAME, "options": envs.describe(GAME).portable_options(full), "observation_shape": observation_shape,
        "action_n": action_n, "net_arch": list(hidden), "activation": "tanh", "algo": "test",
        "steps_trained": 0, "seed": 0, "code_version": "test",
    }


def valid_arrays(meta: dict, seed: int = 0, dtype=np.float32) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    widths = [meta["observation_shape"][0], *meta["net_arch"], meta["action_n"]]
    arrays = {}
    for i, (fan_in, fan_out) in enumerate(zip(widths, widths[1:])):
        arrays[f"w{i}"] = rng.normal(size=(fan_out, fan_in)).astype(dtype)
        arrays[f"b{i}"] = rng.normal(size=fan_out).astype(dtype)
    return arrays


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()


def write_archive(path: Path, members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def write_checkpoint(path: Path, meta: dict | None = None, arrays: dict | None = None) -> Path:
    meta = valid_meta() if meta is None else meta
    arrays = valid_arrays(meta) if arrays is None else arrays
    return write_archive(path, {"meta.json": json.dumps(meta).encode(), "policy.npz": npz_bytes(arrays)})


# ----- zip bombs ------------------------------------------------------------------------------------

CHUNK = 1 << 20


def deflate_repeated(head: bytes, fill: bytes, size: int) -> tuple[bytes, int]:
    """A raw deflate stream of ``head`` then ``fill`` repeated up to ``size`` bytes, and its CRC-32.

    One 1 MiB chunk is compressed (level 9, flushed to a byte boundary) and its output repeated,
    so a 1 GB bomb takes a second to make, as an attacker's would."""
    def compress(data: bytes) -> bytes:
        compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
        return compressor.compress(data) + compressor.flush(zlib.Z_FULL_FLUSH)

    chunk = (fill * (CHUNK // len(fill) + 1))[:CHUNK]
    body = size - len(head)
    whole, rest = divmod(body, CHUNK)
    stream = [compress(head)] if head else []
    crc = zlib.crc32(head)
    repeated = compress(chunk)
    for _ in range(whole):
        crc = zlib.crc32(chunk, crc)
    stream.append(repeated * whole)
    if rest:
        stream.append(compress(chunk[:rest]))
        crc = zlib.crc32(chunk[:rest], crc)
    final = zlib.compressobj(9, zlib.DEFLATED, -15)
    stream.append(final.flush())  # the last (empty) block
    return b"".join(stream), crc


def bomb_member_bytes(members: dict[str, tuple[bytes, bytes, int] | bytes]) -> bytes:
    """A zip (as bytes) of plain members (bytes) and bombs (``(head, fill, size)``)."""
    buffer = io.BytesIO()
    patches = []
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, member in members.items():
            if isinstance(member, tuple):
                head, fill, size = member
                stream, crc = deflate_repeated(head, fill, size)
                archive.writestr(zipfile.ZipInfo(name), stream)  # stored; the headers are patched below
                patches.append((name, crc, size))
            else:
                archive.writestr(name, member)
    out = bytearray(buffer.getvalue())
    for name, crc, size in patches:
        patch_headers(out, name, method=zipfile.ZIP_DEFLATED, crc=crc, file_size=size)
    return bytes(out)


def bomb_checkpoint(path: Path, member: str, size: int = 1 << 30) -> Path:
    """A valid checkpoint except that ``member`` ('meta.json' or 'policy.npz') inflates to ``size``."""
    meta = valid_meta()
    members: dict = {"meta.json": json.dumps(meta).encode(), "policy.npz": npz_bytes(valid_arrays(meta))}
    if member == "meta.json":
        members["meta.json"] = (json.dumps(meta)[:-1].encode() + b', "pad": "', b"x", size)
    else:
        members["policy.npz"] = (b"", b"\0", size)
    path.write_bytes(bomb_member_bytes(members))
    return path


def npy_header(shape: tuple[int, ...], dtype: str = "<f4") -> bytes:
    header = repr({"descr": dtype, "fortran_order": False, "shape": tuple(shape)}).encode("latin1")
    header += b" " * (-(len(header) + 11) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header


def huge_array_checkpoint(path: Path, shape: tuple[int, ...], data_bytes: int) -> Path:
    """A checkpoint whose w0.npy declares ``shape`` (float32) and holds ``data_bytes`` of zeros,
    deflated: (16384, 16384) with all its 1 GB of data is a 1 MB npz; (2**20, 2**20) declares 4 TB."""
    meta = valid_meta()
    members: dict = {}
    for name, array in valid_arrays(meta).items():
        buffer = io.BytesIO()
        np.save(buffer, array)
        members[f"{name}.npy"] = buffer.getvalue()
    header = npy_header(shape)
    members["w0.npy"] = (header, b"\0", len(header) + data_bytes)
    return write_archive(path, {"meta.json": json.dumps(meta).encode(), "policy.npz": bomb_member_bytes(members)})


# ----- zip headers patched --------------------------------------------------------------------------

def patch_headers(data: bytearray, name: str, *, flag_bits: int | None = None, method: int | None = None,
                  crc: int | None = None, file_size: int | None = None) -> None:
    """Rewrite a member's general-purpose flags, compression method, CRC or uncompressed size in
    both its local and its central-directory header (what an encrypting, exotic or hostile zip
    tool writes)."""
    encoded = name.encode()
    central = data.find(b"PK\x01\x02")
    while central != -1:
        name_length = struct.unpack_from("<H", data, central + 28)[0]
        if data[central + 46:central + 46 + name_length] == encoded:
            break
        central = data.find(b"PK\x01\x02", central + 4)
    assert central != -1, name
    local = struct.unpack_from("<I", data, central + 42)[0]
    assert data[local:local + 4] == b"PK\x03\x04"
    for value, local_at, central_at, form in (
        (flag_bits, 6, 8, "<H"), (method, 8, 10, "<H"), (crc, 14, 16, "<I"), (file_size, 22, 24, "<I"),
    ):
        if value is not None:
            struct.pack_into(form, data, local + local_at, value)
            struct.pack_into(form, data, central + central_at, value)


def patch_member_headers(path: Path, name: str, **fields) -> Path:
    data = bytearray(path.read_bytes())
    patch_headers(data, name, **fields)
    path.write_bytes(bytes(data))
    return path


def deflate_raw(data: bytes) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def many_entries_zip(path: Path, entries: int, member: bytes = b"{}") -> Path:
    """A zip whose central directory lists ``entries`` members (all pointing at one small
    meta.json): written directly, a million entries in a second. zipfile reads the whole
    directory into memory when it opens the file (hundreds of bytes an entry)."""
    name = b"meta.json"
    crc = zlib.crc32(member)
    local = struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 0, 0, 0, crc, len(member), len(member), len(name), 0) + name + member
    template = struct.Struct("<4sHHHHHHIIIHHHHHII")
    rows = []
    for index in range(entries):
        entry_name = b"meta.json" if index == 0 else b"%07d" % index
        rows.append(template.pack(b"PK\x01\x02", 20, 20, 0, 0, 0, 0, crc, len(member), len(member), len(entry_name),
                                  0, 0, 0, 0, 0, 0) + entry_name)
    directory = b"".join(rows)
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, entries & 0xFFFF, entries & 0xFFFF, len(directory), len(local), 0)
    path.write_bytes(local + directory + end)
    return path
