"""The tables of TFLite's quantized SQRT and LOG (tensorflow/lite/kernels/elementwise.cc),
in NumPy, and the C library's single-precision functions LiteRT's float kernels call.

    SQRT int8 / int16   clamp(int(sqrtf(f32(s_in (q - z_in))) / f32(s_out)) + z_out)
                        (SqrtEvalQuantized: the quotient truncated toward zero, as
                        x86's cvttss2si: INT32_MIN when out of the int32 range, the sum
                        wrapping; negative inputs are LiteRT's error)
    LOG int8            LUTPopulate<int8_t> of logf(v), v <= 0 -> f32((-128 - z_out) s_out)
    LOG int16           LUTPopulate<int16_t> (f32) of logf(v), v <= 0 -> f32(-32768 s_out)

`libm_f32(name)` is the C library's `<name>f` (logf, expf, sinf, cosf, powf): the function
LiteRT's kernels compute with (std::log on a float). glibc's are not NumPy's float32
loops (which differ by 1-2 ulp on a few percent of inputs), so a table LiteRT fills with
logf at Prepare is filled here with the same logf; without a C library NumPy's is used.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

import numpy as np

from qcomp.quant.tflite import lut_int8
from qcomp.quant.tflite16 import INT16_MAX, INT16_MIN, lut_lookup, lut_populate_int16

_NUMPY = {"log": np.log, "exp": np.exp, "sin": np.sin, "cos": np.cos}


@functools.cache
def _libm():
    name = ctypes.util.find_library("m")
    try:
        return ctypes.CDLL(name or "libm.so.6")
    except OSError:
        return None


def libm_f32(name: str):
    """The C library's single-precision `name` (`"log"` -> logf) on f32 arrays, elementwise
    (NumPy's float32 function when there is no C library)."""
    lib = _libm()
    if lib is None:
        return lambda x: _NUMPY[name](np.asarray(x, np.float32))
    fn = getattr(lib, name + "f")
    fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]

    def call(x):
        a = np.asarray(x, np.float32)
        return np.array([fn(float(v)) for v in a.reshape(-1)], np.float32).reshape(a.shape)
    return call


def _cvtt_i32(x: np.ndarray) -> np.ndarray:
    """static_cast<int>(float) on x86: toward zero, INT32_MIN outside int32 (and NaN)."""
    x = np.asarray(x, np.float64)
    inside = np.isfinite(x) & (x > -2.0 ** 31 - 1) & (x < 2.0 ** 31)
    return np.where(inside, np.trunc(np.where(inside, x, 0)), -(2 ** 31)).astype(np.int64)


def _wrap32(x: np.ndarray) -> np.ndarray:
    return ((np.asarray(x, np.int64) + (1 << 31)) % (1 << 32)) - (1 << 31)


def sqrt_quantized(q, s_in: float, z_in: int, s_out: float, z_out: int, lo: int, hi: int
                   ) -> np.ndarray:
    """SqrtEvalQuantized on the stored values `q` (see the module docstring)."""
    q = np.asarray(q, np.int64)
    x = np.float32(s_in) * (q - z_in).astype(np.float32)
    with np.errstate(invalid="ignore"):
        y = np.sqrt(x) / np.float32(s_out)
    return np.clip(_wrap32(_cvtt_i32(y) + z_out), lo, hi)


def _log_transform(output_min: np.float32):
    logf = libm_f32("log")

    def f(v):
        v = np.asarray(v, np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(v <= 0, output_min, logf(np.where(v > 0, v, 1)))
    return f


def log_int8(q, s_in: float, z_in: int, s_out: float, z_out: int) -> np.ndarray:
    """LOG's int8 table (LogLUTPrepare, LUTPopulate<int8_t>) looked up at `q`."""
    out_min = np.float32(np.float32(-128 - z_out) * np.float32(s_out))
    f = _log_transform(out_min)
    table = lut_int8(lambda x: f(x.astype(np.float32)).astype(np.float64),
                     s_in, z_in, s_out, z_out)
    return table[np.asarray(q, np.int64) + 128]


def log_int16(q, s_in: float, s_out: float) -> np.ndarray:
    """LOG's int16 table (LUTPopulate<int16_t>, zero points 0) looked up at `q`."""
    out_min = np.float32(np.float32(INT16_MIN) * np.float32(s_out))
    f = _log_transform(out_min)
    lut = lut_populate_int16(lambda v: np.float32(f(np.array([v], np.float32))[0]),
                             s_in, 0, s_out, 0, single=True)
    return np.clip(lut_lookup(q, lut), INT16_MIN, INT16_MAX)


__all__ = ["libm_f32", "log_int8", "log_int16", "sqrt_quantized"]
