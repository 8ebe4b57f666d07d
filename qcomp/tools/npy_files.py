"""Reading `.npy` / `.npz` inputs without trusting them: every array's header is read
first and its size checked against the memory budget before any data is read, and a
truncated, corrupt (CRC) or foreign file is a one-line error."""

from __future__ import annotations

import ast
import io
import math
import os
import re
import stat
import zipfile
import zlib

import numpy as np

NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")


class ArrayFileError(Exception):
    """An input file that is not a readable .npy / .npz within the budget."""


def _read_header(f, what: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    """(shape, fortran_order, dtype) of an .npy header. A descriptor NumPy cannot read
    back is taken as raw bytes of its width (`<f1`: what `np.savez` writes for
    ml_dtypes' float8_e5m2), for the argument's type to give them meaning."""
    fmt = np.lib.format
    version = fmt.read_magic(f)
    if version not in ((1, 0), (2, 0), (3, 0)):
        raise ArrayFileError(f"{what}: unsupported .npy version {version}")
    size = int.from_bytes(f.read(2 if version == (1, 0) else 4), "little")
    text = f.read(size).decode("latin1" if version != (3, 0) else "utf-8")
    try:
        d = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise ValueError(f"cannot parse header: {text[:60]!r}") from None
    if not isinstance(d, dict) or set(d) != {"descr", "fortran_order", "shape"} or \
            not isinstance(d["shape"], tuple) or \
            not all(isinstance(n, int) and n >= 0 for n in d["shape"]) or \
            not isinstance(d["fortran_order"], bool):
        raise ValueError(f"header is not an .npy header: {text[:60]!r}")
    try:
        dtype = fmt.descr_to_dtype(d["descr"])
    except (ValueError, TypeError):
        m = re.fullmatch(r"[<>|=]f([12])", str(d["descr"]))
        if m is None:
            raise ValueError(f"descr is not a valid dtype descriptor: {d['descr']!r}") from None
        dtype = np.dtype(f"V{m.group(1)}")
    if dtype.itemsize == 0:
        raise ArrayFileError(f"{what}: arrays of zero-width elements ({dtype}) are not "
                             "supported")
    if math.prod(n for n in d["shape"] if n) >= 1 << 63:  # NumPy's limit, zeros aside
        raise ArrayFileError(f"{what}: the shape {d['shape']} has 2^63 elements or more")
    return d["shape"], d["fortran_order"], dtype


def _read_npy(f, what: str, max_bytes: int) -> np.ndarray:
    shape, fortran, dtype = _read_header(f, what)
    if dtype.hasobject:
        raise ArrayFileError(f"{what}: arrays of Python objects are not supported")
    size = math.prod(shape) * dtype.itemsize
    if size > max_bytes:
        raise ArrayFileError(f"{what}: a {'x'.join(map(str, shape)) or 'scalar'} {dtype} array "
                             f"needs {size} bytes, over the memory limit of {max_bytes} "
                             "(--max-memory)")
    data = f.read(size)
    if len(data) != size:
        raise ArrayFileError(f"{what}: truncated (the header promises {size} bytes of data, "
                             f"the file holds {len(data)})")
    f.read(1)  # reaching the end makes a zip member check its CRC
    a = np.frombuffer(data, dtype=dtype)
    return a.reshape(shape[::-1]).T if fortran else a.reshape(shape)


def _seekable(f, path: str, max_bytes: int):
    """`f` itself when it is a regular file, else (a pipe, a device: `/dev/zero`) its
    bytes read into memory, at most `max_bytes` of them."""
    if stat.S_ISREG(os.fstat(f.fileno()).st_mode):
        return f
    data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ArrayFileError(f"{path}: not a regular file, and longer than the memory limit "
                             f"of {max_bytes} bytes (--max-memory)")
    return io.BytesIO(data)


def load_arrays(path: str, max_bytes: int) -> np.ndarray | dict[str, np.ndarray]:
    """An .npy file's array, or an .npz archive's arrays by name (in archive order).
    The file's first bytes decide which (NumPy's magic, a zip's `PK\x03\x04`, or
    `PK\x05\x06` for an empty archive) before anything else is read."""
    try:
        with open(path, "rb") as f:
            head = f.peek(len(NPY_MAGIC))[:len(NPY_MAGIC)]  # nothing consumed (a pipe)
            if head == NPY_MAGIC:
                return _read_npy(f, path, max_bytes)
            if head[:4] not in ZIP_MAGICS:
                raise ArrayFileError(f"{path}: not a NumPy .npy or .npz file")
            return _read_npz(_seekable(f, path, max_bytes), path, max_bytes)
    except ArrayFileError:
        raise
    except OSError as e:
        raise ArrayFileError(f"{path}: cannot read: {e.strerror or e}") from None
    except zipfile.BadZipFile as e:
        reason = ("a zip archive without its central directory" if "not a zip file" in str(e)
                  else str(e).strip() or "BadZipFile")
        raise ArrayFileError(f"{path}: corrupt or truncated ({reason})") from None
    except (NotImplementedError, RuntimeError) as e:  # zipfile: encrypted, a compression it lacks
        raise ArrayFileError(f"{path}: unsupported zip archive ({e})") from None
    except (ValueError, EOFError, zlib.error, KeyError) as e:
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ArrayFileError(f"{path}: corrupt or truncated ({reason})") from None


def _read_npz(f, path: str, max_bytes: int) -> dict[str, np.ndarray]:
    arrays: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(f) as z:
        for info in z.infolist():
            name = info.filename.removesuffix(".npy")
            with z.open(info) as member:
                arrays[name] = _read_npy(member, f"{path} ('{name}')", max_bytes)
    return arrays


def savable_arrays(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """`arrays` as any NumPy reads them back without ml_dtypes: an array of an
    ml_dtypes type (bfloat16, float8_*, float4_e2m1fn, int4, ...: NumPy would save it
    as `|V1` / `|V2` bytes, float8_e5m2 as `<f1`, which np.load refuses) becomes its
    raw bits as unsigned integers of its width, with
    an entry `NAME_dtype` holding the type's ml_dtypes name, so that
    `z[NAME].view(getattr(ml_dtypes, str(z[NAME + "_dtype"])))` is the array again."""
    out: dict[str, np.ndarray] = {}
    for name, a in arrays.items():
        if a.dtype.num >= 256 and a.dtype.itemsize in (1, 2):  # a dtype NumPy registers
            out[name] = a.view(np.dtype(f"<u{a.dtype.itemsize}"))
            out[f"{name}_dtype"] = np.array(a.dtype.name)
        else:
            out[name] = a
    return out
