"""Scalar primitives of the rowwise loop kernels (numba, compiled on first use and
cached on disk): float32 bit casts, the fused multiply-add, float16 conversions, and
little-endian float fields in the rows of 2-d uint8 tables (`get_f32`, `put_f32`, ...).

- `fma32(a, b, c)`: LLVM's `llvm.fma.f32`, `a * b + c` rounded once (C's `fmaf`: the
  FMA instruction where the CPU has one, else libm's correctly rounded `fmaf`; never
  a separate multiply and add).
- `f16_bits(x)`: float32 -> float16 bits, round to nearest even, overflow to inf
  (NumPy's `npy_floatbits_to_halfbits`, so `astype(float16)` bit for bit, NaNs included).
- `f16_value(h)`: float16 bits -> float32 (exact).

Where the CPU has F16C (`vcvtps2ph` / `vcvtph2ps`: LLVM's `fptrunc` / `fpext` through
`half`), the float16 conversions use it for every value but a NaN, whose payload the
instructions would quiet; NaNs (and, for `f16_value`, infinities) take the bit formula.
Elsewhere the bit formulas do everything.
"""

from __future__ import annotations

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from qcomp.quant import jit_cache  # noqa: F401  (stamps the kernels' cache first)


@intrinsic
def f32_from_bits(typingctx, u):
    """uint32 bits -> float32 (a bit cast)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())
    return types.float32(types.uint32), codegen


@intrinsic
def f32_to_bits(typingctx, x):
    """float32 -> its uint32 bits (a bit cast)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32))
    return types.uint32(types.float32), codegen


@intrinsic
def fma32(typingctx, a, b, c):
    """float32 a * b + c, one rounding (`llvm.fma.f32`)."""
    def codegen(context, builder, signature, args):
        f32 = ir.FloatType()
        fn = builder.module.declare_intrinsic("llvm.fma", [f32, f32, f32])
        return builder.call(fn, args)
    return types.float32(types.float32, types.float32, types.float32), codegen


HAS_F16C = bool(llvm.get_host_cpu_features().get("f16c", False))
"""Whether numba's target (the host CPU) converts float16 in hardware."""


@intrinsic
def _f16_trunc(typingctx, x):
    """float32 -> float16 bits (int64) by `fptrunc` (round to nearest even)."""
    def codegen(context, builder, signature, args):
        h = builder.bitcast(builder.fptrunc(args[0], ir.HalfType()), ir.IntType(16))
        return builder.zext(h, ir.IntType(64))
    return types.int64(types.float32), codegen


@intrinsic
def _f16_ext(typingctx, h):
    """float16 bits (int64) -> float32 by `fpext` (exact)."""
    def codegen(context, builder, signature, args):
        half = builder.bitcast(builder.trunc(args[0], ir.IntType(16)), ir.HalfType())
        return builder.fpext(half, ir.FloatType())
    return types.float32(types.int64), codegen


@njit(cache=True, inline="always")
def _f16_bits_formula(x):
    """float32 -> float16 bits (int64), round to nearest even (NumPy's algorithm)."""
    f = np.int64(f32_to_bits(x))
    sgn = (f >> 16) & 0x8000
    e = f & 0x7F800000
    if e >= 0x47800000:                        # inf, NaN, overflow
        sig = f & 0x007FFFFF
        if e == 0x7F800000 and sig != 0:
            h = 0x7C00 + (sig >> 13)
            return sgn + (h + 1 if h == 0x7C00 else h)
        return sgn + 0x7C00
    if e <= 0x38000000:                        # float16 subnormal or zero
        if e < 0x33000000:
            return sgn
        e >>= 23
        sig = 0x00800000 + (f & 0x007FFFFF)
        sig >>= 113 - e
        if (sig & 0x3FFF) != 0x1000 or (f & 0x7FF) != 0:
            sig += 0x1000
        return sgn + (sig >> 13)
    sig = f & 0x007FFFFF
    if (sig & 0x3FFF) != 0x1000:
        sig += 0x1000
    return sgn + ((e - 0x38000000) >> 13) + (sig >> 13)   # a carry into the exponent is right


@njit(cache=True, inline="always")
def _f16_value_formula(h):
    """float16 bits -> float32."""
    h = np.int64(h)
    sgn = (h & 0x8000) << 16
    e = (h >> 10) & 0x1F
    m = h & 0x3FF
    if e == 0x1F:
        bits = sgn | 0x7F800000 | (m << 13)
    elif e != 0:
        bits = sgn | ((e + 112) << 23) | (m << 13)
    elif m == 0:
        bits = sgn
    else:                                      # subnormal: normalize
        e = 1
        while (m & 0x400) == 0:
            m <<= 1
            e -= 1
        bits = sgn | ((e + 112) << 23) | ((m & 0x3FF) << 13)
    return f32_from_bits(np.uint32(bits))


if HAS_F16C:
    @njit(cache=True, inline="always")
    def f16_bits(x):
        """float32 -> float16 bits (int64), round to nearest even; NaN payloads as NumPy."""
        return _f16_trunc(x) if x == x else _f16_bits_formula(x)

    @njit(cache=True, inline="always")
    def f16_value(h):
        """float16 bits -> float32 (exact, NaN payloads kept)."""
        h = np.int64(h)
        return _f16_ext(h) if (h & 0x7C00) != 0x7C00 else _f16_value_formula(h)
else:  # pragma: no cover - every x86-64 CPU since 2012 has F16C
    f16_bits, f16_value = _f16_bits_formula, _f16_value_formula


@njit(cache=True, inline="always")
def f16_round(x):
    """float32 -> float16 -> float32."""
    return f16_value(f16_bits(x))


@njit(cache=True, inline="always")
def get_f32(table, r, at):
    """The little-endian float32 at byte `at` of row r of a 2-d uint8 table."""
    u = (np.uint32(table[r, at]) | (np.uint32(table[r, at + 1]) << np.uint32(8))
         | (np.uint32(table[r, at + 2]) << np.uint32(16))
         | (np.uint32(table[r, at + 3]) << np.uint32(24)))
    return f32_from_bits(u)


@njit(cache=True, inline="always")
def get_f16(table, r, at):
    """The little-endian float16 at byte `at` of row r of a 2-d uint8 table, as float32."""
    return f16_value(np.int64(table[r, at]) | (np.int64(table[r, at + 1]) << 8))


@njit(cache=True, inline="always")
def put_f32(table, r, at, x):
    """Write float32 x little-endian at byte `at` of row r of a 2-d uint8 table (no row
    view: a numba view costs a reference count per row)."""
    u = f32_to_bits(x)
    for i in range(4):
        table[r, at + i] = np.uint8((u >> np.uint32(8 * i)) & np.uint32(0xFF))


@njit(cache=True, inline="always")
def put_u16(table, r, at, h):
    """Write the 16 bits h little-endian at byte `at` of row r of a 2-d uint8 table."""
    table[r, at] = np.uint8(h & 0xFF)
    table[r, at + 1] = np.uint8((h >> 8) & 0xFF)


@intrinsic
def prefetch(typingctx, address):
    """Hint the cache line at an integer address into the caches (`llvm.prefetch`: read,
    high locality); no effect on results."""
    def codegen(context, builder, signature, args):
        ptr = builder.inttoptr(args[0], ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        fn = builder.module.declare_intrinsic("llvm.prefetch.p0", (), fnty)
        builder.call(fn, [ptr, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.none(types.uintp), codegen
