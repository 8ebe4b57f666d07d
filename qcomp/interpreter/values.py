"""How IR types map to NumPy values.

Every tensor value is a NumPy array:
- signless `iN` / `siN` -> the smallest signed container (i4 -> int8), values in range;
  `uiN` -> the unsigned container; `i1` -> bool; `index` -> int64;
- `f16` -> float16, `bf16`, the f8, f6 and f4 types -> ml_dtypes (one byte per f6 / f4
  element, as MLIR stores them), `f32`/`f64` as is (no `tf32`: StableHLO's ops and
  reference interpreter do not take it);
  `complex<f32>`/`complex<f64>` -> complex64/complex128;
- a quantized tensor (`!quant.uniform` elements) -> its storage integers in the
  storage type's container; the quantization parameters come from the SSA value's
  type, never from the array.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects import builtin
from xdsl.dialects.builtin import (
    ComplexType,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerType,
    Signedness,
    UnrankedTensorType,
)
from xdsl.ir import Attribute

from qcomp.dialects.quant import UniformQuantizedType
from qcomp.interpreter.errors import MemoryLimitError, RunError, fmt_bytes
from qcomp.ir.printer import type_text
from qcomp.quant.float_storage import float_kind_dtype
from qcomp.quant.ranges import container_dtype, storage_range, wrap

_FLOAT_DTYPES: dict[type, np.dtype] = {
    builtin.Float16Type: np.dtype(np.float16),
    builtin.Float32Type: np.dtype(np.float32),
    builtin.Float64Type: np.dtype(np.float64),
}
"""The dtype of each float type: NumPy's own here, ml_dtypes' added as they are first
needed (`_float_dtype`: ml_dtypes loads only for a program with a narrow float)."""

_NARROW_FLOATS = {"BFloat16Type": "bfloat16",
                  "Float8E4M3FNType": "float8_e4m3fn", "Float8E5M2Type": "float8_e5m2",
                  "Float8E4M3FNUZType": "float8_e4m3fnuz", "Float8E5M2FNUZType": "float8_e5m2fnuz",
                  "Float8E4M3B11FNUZType": "float8_e4m3b11fnuz", "Float8E4M3Type": "float8_e4m3",
                  "Float8E3M4Type": "float8_e3m4", "Float8E8M0FNUType": "float8_e8m0fnu",
                  "Float6E2M3FNType": "float6_e2m3fn", "Float6E3M2FNType": "float6_e3m2fn",
                  "Float4E2M1FNType": "float4_e2m1fn"}
"""xDSL's class name -> ml_dtypes' name of each narrow float type."""
_NARROW_DTYPES = {getattr(builtin, name): np_name for name, np_name in _NARROW_FLOATS.items()
                  if hasattr(builtin, name)}


def _float_dtype(cls: type) -> np.dtype | None:
    """The dtype of the float type `cls`, or None if `cls` is not one."""
    dt = _FLOAT_DTYPES.get(cls)
    if dt is None and cls in _NARROW_DTYPES:
        import ml_dtypes

        found = getattr(ml_dtypes, _NARROW_DTYPES[cls], None)
        if found is not None:
            dt = _FLOAT_DTYPES[cls] = np.dtype(found)
    return dt


class Token:
    """The value of `!stablehlo.token` (carries nothing)."""

    def __repr__(self) -> str:
        return "token"


TOKEN = Token()


def element_type(t: Attribute) -> Attribute:
    """Element type of a shaped type (the type itself for scalars)."""
    get = getattr(t, "get_element_type", None)
    return get() if get is not None else t


def shape_of(t: Attribute) -> tuple[int, ...]:
    get = getattr(t, "get_shape", None)
    if get is None:
        return ()
    shape = tuple(get())
    if any(d < 0 for d in shape):
        raise RunError(f"dynamic shapes are not supported: {t}")
    return shape


def quant_of(t: Attribute) -> UniformQuantizedType | None:
    """The `!quant.uniform` element type of `t`, if any."""
    e = element_type(t)
    return e if isinstance(e, UniformQuantizedType) else None


def _integer_storage(q: UniformQuantizedType) -> None:
    if q.is_float_storage:
        raise RunError(f"expected integer storage, got float storage type {q.storage_spelling}")


def int_info(e: Attribute) -> tuple[int, bool]:
    """(bitwidth, signed) of an integer-like element type (quantized: its storage)."""
    if isinstance(e, UniformQuantizedType):
        _integer_storage(e)
        return e.storage_bitwidth, e.is_signed
    if isinstance(e, IndexType):
        return 64, True
    if isinstance(e, IntegerType):
        return e.width.data, e.signedness.data != Signedness.UNSIGNED
    raise RunError(f"expected an integer type, got {e}")


def is_int(e: Attribute) -> bool:
    return isinstance(e, IntegerType | IndexType)


def is_bool(e: Attribute) -> bool:
    return isinstance(e, IntegerType) and e.width.data == 1


def is_float(e: Attribute) -> bool:
    return _float_dtype(type(e)) is not None


def is_complex(e: Attribute) -> bool:
    return isinstance(e, ComplexType)


def numpy_dtype(e: Attribute) -> np.dtype:
    """The NumPy dtype holding values of element type `e` (see module docstring)."""
    if isinstance(e, UniformQuantizedType):
        if e.is_float_storage:
            return float_kind_dtype(e.storage_spelling)
        return container_dtype(e.storage_bitwidth, e.is_signed)
    if is_bool(e):
        return np.dtype(np.bool_)
    if isinstance(e, IntegerType | IndexType):
        w, s = int_info(e)
        if w > 64:
            raise RunError(f"integers wider than 64 bits are not supported: {e}")
        return container_dtype(w, s)
    dt = _float_dtype(type(e))
    if dt is not None:
        return dt
    if getattr(e, "name", None) == "onnx.String":  # ONNX strings: an object array of str
        return np.dtype(object)
    if isinstance(e, ComplexType):
        inner = e.element_type
        if isinstance(inner, builtin.Float32Type):
            return np.dtype(np.complex64)
        if isinstance(inner, builtin.Float64Type):
            return np.dtype(np.complex128)
    raise RunError(f"unsupported element type {e}")


def to_type(values: np.ndarray, e: Attribute) -> np.ndarray:
    """`values` (any integer dtype, e.g. int64 after arithmetic) wrapped into element type `e`.

    Integers wrap modulo 2^width (two's complement); floats are cast (rounding).
    """
    dt = numpy_dtype(e)
    a = np.asarray(values)
    if dt.kind in "iu" and a.dtype.kind in "iub":
        w, s = int_info(e)
        return wrap(a, w, s)
    if dt == np.bool_ and a.dtype.kind in "iu":
        return (a & 1).astype(np.bool_)
    return a.astype(dt)


def budget(interpreter) -> int | None:
    """The run's --max-memory (None for an interpreter without one)."""
    return getattr(interpreter, "max_memory", None)


def dense_to_array(attr: DenseIntOrFPElementsAttr, t: Attribute | None = None,
                   max_bytes: int | None = None) -> np.ndarray:
    """The NumPy value of a dense elements attribute, shaped (and typed) like `t` or the
    attribute's type: the one place a constant is materialised (a splat held as one
    element, `qcomp.ir.splat`, included). Over `max_bytes` (the run's --max-memory) it is
    a `MemoryLimitError`, before anything is allocated."""
    at = attr.get_type()
    t = t or at
    e = element_type(at)
    shape = shape_of(t)
    if max_bytes is not None:
        need = math.prod(shape) * numpy_dtype(quant_of(t) or e).itemsize
        if need > max_bytes:
            raise MemoryLimitError(
                f"a constant of {type_text(t)} would need about {fmt_bytes(need)}, over the "
                f"memory limit of {fmt_bytes(max_bytes)} (--max-memory)")
    raw = attr.data.data
    if isinstance(e, IntegerType | IndexType):
        stored = np.frombuffer(raw, dtype=np.dtype(e.format).newbyteorder("<"))
        if is_bool(e):
            arr = stored != 0
        else:
            w, s = int_info(e)
            arr = stored if stored.dtype == container_dtype(w, s) else wrap(stored, w, s)
    elif isinstance(e, builtin.BFloat16Type):
        arr = np.frombuffer(raw, dtype="<u2").view(_float_dtype(builtin.BFloat16Type))
    elif (dt := _float_dtype(type(e))) is not None:
        arr = np.frombuffer(raw, dtype=dt.newbyteorder("<") if dt.itemsize > 1 else dt)
    elif isinstance(e, ComplexType):
        arr = np.frombuffer(raw, dtype=numpy_dtype(e).newbyteorder("<"))
    else:
        raise RunError(f"unsupported constant element type {e}")
    n = math.prod(shape)
    if arr.size == 1 and n != 1:
        arr = np.broadcast_to(arr, (n,))
    if arr.size != n:
        raise RunError(f"constant has {arr.size} elements, type {t} needs {n}")
    target = quant_of(t)
    out = arr.reshape(shape)
    if target is not None:
        out = to_type(out.astype(np.int64), target)
    return np.array(out, dtype=out.dtype.newbyteorder("=") if out.dtype.byteorder not in "=|" else out.dtype)


def fits_shape(shape: tuple[int, ...], t: Attribute) -> bool:
    """Whether an array of `shape` is a value of type `t`: same rank, every static
    size equal (a `?` size takes any; an unranked tensor any shape)."""
    if isinstance(t, UnrankedTensorType):
        return True
    want = tuple(t.get_shape()) if hasattr(t, "get_shape") else ()
    return len(want) == len(shape) and all(w < 0 or w == s for w, s in zip(want, shape))


def check_input(arr: np.ndarray, t: Attribute, name: str) -> np.ndarray:
    """An input array for an argument of type `t`: a shape that fits it (`?` sizes take
    the array's), dtype convertible without loss."""
    a = np.asarray(arr)
    if not fits_shape(tuple(a.shape), t):
        want = "x".join("?" if d < 0 else str(d) for d in t.get_shape())
        raise RunError(f"input '{name}' has shape {tuple(a.shape)}, the argument needs "
                       f"{want or 'a scalar'} ({t})")
    e = element_type(t)
    dt = numpy_dtype(e)
    if a.dtype == dt:
        return a
    if dt == np.dtype(object) and a.dtype.kind in "US":
        return a.astype(object)
    if dt.kind in "iu" and a.dtype.name in ("int4", "uint4", "int2", "uint2"):
        a = a.astype(np.int64)  # ml_dtypes' sub-byte integers: checked as integers below
    if dt.kind in "iu" and a.dtype.kind in "iu":
        w, s = int_info(e)
        lo, hi = storage_range(w, s)
        if a.size and (int(a.min()) < lo or int(a.max()) > hi):
            raise RunError(f"input '{name}' has values outside {e}'s range [{lo}, {hi}]")
        return a.astype(dt)
    raise RunError(f"input '{name}' has dtype {a.dtype}, the argument needs {dt} ({t})")
