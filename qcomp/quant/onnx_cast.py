"""ONNX's Cast between element types (ONNX names: `float`, `uint8`, `int4`, `float8e5m2`,
`float8e8m0`, `bool`, `string`, ...), on NumPy arrays.

Values live as qcomp's interpreter holds them: `int4` / `int2` in int8, `uint4` / `uint2`
in uint8, the narrow floats as ml_dtypes, strings as an object array of `str`.

- float -> float: rounded once, to nearest even (from float64, `round_float64`);
  overflow -> ±inf (or NaN / saturation where the type has no inf, as ml_dtypes);
- -> float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz) with `saturate`: ±inf and |[x]| > max ->
  ±max, NaN stays NaN; without: IEEE overflow (ml_dtypes: e5m2 -> ±inf, the rest NaN);
- -> float8e8m0 (a power of two 2^(e-127), 0xFF NaN): `up` rounds any fraction away
  from zero, `down` drops it, `nearest` rounds half up on the exponent; NaN / ±inf ->
  0xFF; with `saturate` a round-up past 2^127 stays 2^127, without it becomes NaN; the
  sign is ignored (negative values are undefined in ONNX);
- float -> integer: truncated toward zero, then wrapped to the width (out of range is
  undefined in ONNX; NaN -> 0); integer -> integer: two's-complement wrap;
- -> bool: `x != 0`; bool -> number: 1 / 0;
- string -> number: `+INF` / `INF` / `-INF` / `NaN` in any case, plain or scientific
  notation (`1e-5`, `1E8`), parsed as float64 and cast; integer literals exactly;
- number -> string: NumPy's shortest text of the value in its type (`0.1`, `1e-05`,
  `nan`, `inf`), as ONNX's reference evaluator prints it.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from qcomp.quant.float_storage import round_float64

FLOAT8_NAMES = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz")

_DTYPES = {
    "float": np.float32, "double": np.float64, "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16, "float8e4m3fn": ml_dtypes.float8_e4m3fn,
    "float8e4m3fnuz": ml_dtypes.float8_e4m3fnuz, "float8e5m2": ml_dtypes.float8_e5m2,
    "float8e5m2fnuz": ml_dtypes.float8_e5m2fnuz, "float8e8m0": ml_dtypes.float8_e8m0fnu,
    "float4e2m1": ml_dtypes.float4_e2m1fn,
    "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16,
    "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64,
    "int4": np.int8, "uint4": np.uint8, "int2": np.int8, "uint2": np.uint8,
    "bool": np.bool_, "string": np.object_,
}
_INT_BITS = {"int8": (8, True), "uint8": (8, False), "int16": (16, True), "uint16": (16, False),
             "int32": (32, True), "uint32": (32, False), "int64": (64, True),
             "uint64": (64, False), "int4": (4, True), "uint4": (4, False), "int2": (2, True),
             "uint2": (2, False)}
FLOAT_NAMES = ("float", "double", "float16", "bfloat16", *FLOAT8_NAMES, "float8e8m0",
               "float4e2m1")


def onnx_numpy_dtype(name: str) -> np.dtype:
    """The NumPy dtype holding ONNX element type `name` (see the module docstring)."""
    return np.dtype(_DTYPES[name])


def wrap_int(v: np.ndarray, name: str) -> np.ndarray:
    """Integers (int64 / uint64) reduced modulo 2^width into ONNX integer type `name`."""
    bits, signed = _INT_BITS[name]
    v = np.asarray(v)
    if bits == 64:
        return v.astype(np.int64 if signed else np.uint64)
    u = v.astype(np.uint64) & np.uint64((1 << bits) - 1)
    if signed:
        s = u.astype(np.int64)
        s = np.where(s >= (1 << (bits - 1)), s - (1 << bits), s)
        return s.astype(onnx_numpy_dtype(name))
    return u.astype(onnx_numpy_dtype(name))


def parse_number(text: str) -> float | int:
    """An ONNX string's number: INF / +INF / -INF / NaN in any case, integer literals
    exactly, other plain or scientific text as float64."""
    t = text.strip()
    low = t.lower()
    if low in ("inf", "+inf", "infinity", "+infinity"):
        return float("inf")
    if low in ("-inf", "-infinity"):
        return float("-inf")
    if low in ("nan", "+nan", "-nan"):
        return float("nan")
    try:
        return int(t)
    except ValueError:
        return float(t)


def to_e8m0(x, saturate: bool = True, round_mode: str = "up") -> np.ndarray:
    """Float values as float8e8m0 (see the module docstring)."""
    f = np.asarray(x, np.float32)
    bits = f.view(np.uint32)
    exp = ((bits >> 23) & 0xFF).astype(np.int32)
    frac = bits & 0x7FFFFF
    special = exp == 0xFF
    if round_mode == "up":
        inc = frac != 0
    elif round_mode == "down":
        inc = np.zeros(f.shape, bool)
    elif round_mode == "nearest":
        guard = (frac & 0x400000) != 0
        rest = (frac & 0x3FFFFF) != 0
        inc = guard & (rest | (exp > 0))  # ties up, except below 2^-126
    else:
        raise ValueError(f"unsupported round_mode {round_mode!r}")
    e = exp + inc.astype(np.int32)
    if saturate:
        e = np.minimum(e, 0xFE)
    e = np.where(special, 0xFF, np.minimum(e, 0xFF))
    return e.astype(np.uint8).view(ml_dtypes.float8_e8m0fnu)


def _to_float(x: np.ndarray, to: str, saturate: bool, round_mode: str) -> np.ndarray:
    dt = onnx_numpy_dtype(to)
    if to == "float8e8m0":
        return to_e8m0(x.astype(np.float64).astype(np.float32) if x.dtype.kind != "f" or
                       x.dtype.itemsize > 4 else x, saturate, round_mode)
    if x.dtype == np.bool_:
        x = x.astype(np.float64)
    f = np.asarray(x).astype(np.float64)
    if x.dtype.kind in "iu" and x.dtype.itemsize == 8 and dt.itemsize >= 4:
        # int64 -> float32 / float64: NumPy rounds once from the integer
        return np.asarray(x.astype(dt))
    if to in FLOAT8_NAMES and saturate:
        m = float(ml_dtypes.finfo(dt).max)
        f = np.where(np.isnan(f), f, np.clip(f, -m, m))
    if dt in (np.dtype(np.float64),):
        return f
    if dt in (np.dtype(np.float32), np.dtype(np.float16)):
        with np.errstate(all="ignore"):
            return f.astype(dt)
    return round_float64(f, dt)


def _to_int(x: np.ndarray, to: str) -> np.ndarray:
    if x.dtype == np.bool_ or x.dtype.kind in "iu":
        return wrap_int(x.astype(np.uint64 if x.dtype == np.uint64 else np.int64), to)
    f = np.trunc(np.asarray(x, np.float64))
    f = np.where(np.isfinite(f), f, 0.0)
    big = np.float64(2) ** 63
    f = np.where(np.abs(f) < big, f, np.fmod(f, 2.0 ** 64))
    f = np.where(f >= big, f - 2.0 ** 64, f)
    return wrap_int(f.astype(np.int64), to)


def _string_in(x: np.ndarray, to: str, saturate: bool, round_mode: str) -> np.ndarray:
    vals = [parse_number(str(s)) for s in x.reshape(-1)]
    if to in _INT_BITS and all(isinstance(v, int) for v in vals):
        return wrap_int(np.array([v % (1 << 64) for v in vals], np.uint64), to).reshape(x.shape)
    f = np.array([float(v) for v in vals], np.float64).reshape(x.shape)
    return cast_array(f, to, saturate=saturate, round_mode=round_mode)


def to_string(x: np.ndarray) -> np.ndarray:
    """Numbers as ONNX's reference prints them (NumPy's `str` of each typed value)."""
    if x.dtype.kind == "f" or x.dtype.kind in "iub":
        s = x.astype(np.str_)
    else:  # ml_dtypes floats print through float32, their exact value
        s = x.astype(np.float32).astype(np.str_)
    return np.array(s.tolist(), dtype=object).reshape(x.shape)


def cast_array(x, to: str, *, saturate: bool = True, round_mode: str = "up") -> np.ndarray:
    """ONNX Cast of `x` (any dtype this module uses) to ONNX element type `to`."""
    x = np.asarray(x)
    if to == "string":
        return x.copy() if x.dtype == object else to_string(x)
    if x.dtype == object or x.dtype.kind in "US":
        return _string_in(x, to, saturate, round_mode)
    if to == "bool":
        return np.asarray(x.astype(np.float64) != 0) if x.dtype.kind not in "iub" else x != 0
    if to in _INT_BITS:
        return _to_int(x, to)
    return _to_float(x, to, saturate, round_mode)
