"""A float32 row held in registers for the bag kernels: `F32Row(n)`, a numba type whose
value is LLVM's `<n x float>` (n fixed when the kernel is compiled), and the operations
on it, each the same float32 operation on every lane (no reassociation, no fast-math):

- `row_zeros(proto)`: n zeros, n the length of the tuple `proto` (a kernel argument
  `(F32(0),) * n`, so numba compiles one kernel per row width);
- `row_step(acc, address, scale, bias, shift, mask)`:
  `fma(scale, F32((byte[i] >> shift) & mask), acc[i] + bias)` for the n bytes at
  `address` (one rounding: `llvm.fma`), the step of a bag entry;
- `row_scaled(acc, x)`: `acc[i] * x`;
- `row_store(acc, address)`: the n floats to memory at `address`;
- `row_has_nan(acc)`: whether a value is a NaN;
- `rows_store_interleaved(p0, p1, address)` / `..._4(p0, p1, p2, p3, address)`: the
  planes interleaved (`p0[0], p1[0], p0[1], ...`), 2n or 4n floats.

A `<n x float>` that lives in a loop is n / 8 vector registers (AVX2); the kernels keep
a bag's sum in them instead of a scratch row loaded and stored per entry.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core.datamodel import models, register_default
from numba.extending import intrinsic

from qcomp.quant import jit_cache  # noqa: F401  (stamps the kernels' cache first)


class F32Row(types.Type):
    """n float32 values as one LLVM vector."""

    def __init__(self, n: int):
        self.n = n
        super().__init__(name=f"F32Row({n})")


@register_default(F32Row)
class _F32RowModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.VectorType(ir.FloatType(), fe_type.n))


def _splat(builder, x, n):
    vec = ir.VectorType(x.type, n)
    one = builder.insert_element(ir.Constant(vec, ir.Undefined), x, ir.Constant(ir.IntType(32), 0))
    return builder.shuffle_vector(one, ir.Constant(vec, ir.Undefined),
                                  ir.Constant(ir.VectorType(ir.IntType(32), n), [0] * n))


@intrinsic
def row_zeros(typingctx, proto):
    """A row of zeros as long as the tuple `proto`."""
    if not isinstance(proto, types.UniTuple):
        return None
    row = F32Row(proto.count)

    def codegen(context, builder, signature, args):
        return ir.Constant(ir.VectorType(ir.FloatType(), row.n), [0.0] * row.n)
    return row(proto), codegen


@intrinsic
def row_step(typingctx, acc, address, scale, bias, shift, mask):
    """acc[i] = fma(scale, F32((byte i at address >> shift) & mask), acc[i] + bias)."""
    if not isinstance(acc, F32Row):
        return None
    n = acc.n

    def codegen(context, builder, signature, args):
        a, addr, s, b, sh, mk = args
        i32 = ir.IntType(32)
        vi, vf = ir.VectorType(i32, n), ir.VectorType(ir.FloatType(), n)
        ptr = builder.inttoptr(addr, ir.VectorType(ir.IntType(8), n).as_pointer())
        raw = builder.load(ptr, align=1)
        q = builder.zext(raw, vi)
        q = builder.and_(builder.lshr(q, _splat(builder, builder.trunc(sh, i32), n)),
                         _splat(builder, builder.trunc(mk, i32), n))
        t = builder.fadd(a, _splat(builder, b, n))
        fma = builder.module.declare_intrinsic(f"llvm.fma.v{n}f32", (), ir.FunctionType(vf, [vf] * 3))
        return builder.call(fma, [_splat(builder, s, n), builder.uitofp(q, vf), t])
    return acc(acc, types.uintp, types.float32, types.float32, types.int32, types.int32), codegen


@intrinsic
def row_scaled(typingctx, acc, x):
    """acc[i] * x."""
    if not isinstance(acc, F32Row):
        return None

    def codegen(context, builder, signature, args):
        return builder.fmul(args[0], _splat(builder, args[1], acc.n))
    return acc(acc, types.float32), codegen


def _store(builder, vec, addr):
    builder.store(vec, builder.inttoptr(addr, vec.type.as_pointer()), align=4)


@intrinsic
def row_store(typingctx, acc, address):
    """The row's floats to memory at `address`."""
    if not isinstance(acc, F32Row):
        return None

    def codegen(context, builder, signature, args):
        _store(builder, args[0], args[1])
        return context.get_dummy_value()
    return types.none(acc, types.uintp), codegen


def _interleave(builder, planes):
    """p0[0], p1[0], ..., p0[1], p1[1], ... (shufflevector: pairs, then pairs of pairs)."""
    n = planes[0].type.count

    def join(a, b, m):  # a, b of m lanes -> 2m lanes interleaved by blocks
        return builder.shuffle_vector(a, b, ir.Constant(ir.VectorType(ir.IntType(32), 2 * m),
                                                        [x for i in range(m) for x in (i, m + i)]))
    if len(planes) == 2:
        return join(planes[0], planes[1], n)
    # 4 planes: (p0, p2) and (p1, p3) interleaved, then those two
    even, odd = join(planes[0], planes[2], n), join(planes[1], planes[3], n)
    return join(even, odd, 2 * n)


@intrinsic
def rows_store_interleaved(typingctx, p0, p1, address):
    """p0[0], p1[0], p0[1], p1[1], ... to memory at `address`."""
    if not isinstance(p0, F32Row) or p1 != p0:
        return None

    def codegen(context, builder, signature, args):
        _store(builder, _interleave(builder, args[:2]), args[2])
        return context.get_dummy_value()
    return types.none(p0, p1, types.uintp), codegen


@intrinsic
def rows_store_interleaved_4(typingctx, p0, p1, p2, p3, address):
    """p0[0], p1[0], p2[0], p3[0], p0[1], ... to memory at `address`."""
    if not isinstance(p0, F32Row) or not p0 == p1 == p2 == p3:
        return None

    def codegen(context, builder, signature, args):
        _store(builder, _interleave(builder, args[:4]), args[4])
        return context.get_dummy_value()
    return types.none(p0, p1, p2, p3, types.uintp), codegen



@intrinsic
def load_f32(typingctx, address):
    """The float32 at `address` (any alignment; little-endian, as the host)."""
    def codegen(context, builder, signature, args):
        ptr = builder.inttoptr(args[0], ir.FloatType().as_pointer())
        return builder.load(ptr, align=1)
    return types.float32(types.uintp), codegen


@intrinsic
def load_u16(typingctx, address):
    """The uint16 at `address` (any alignment), as int64."""
    def codegen(context, builder, signature, args):
        ptr = builder.inttoptr(args[0], ir.IntType(16).as_pointer())
        return builder.zext(builder.load(ptr, align=1), ir.IntType(64))
    return types.int64(types.uintp), codegen


@intrinsic
def row_has_nan(typingctx, acc):
    """Whether any value of the row is a NaN."""
    if not isinstance(acc, F32Row):
        return None

    def codegen(context, builder, signature, args):
        unordered = builder.fcmp_unordered("uno", args[0], args[0])
        bits = builder.bitcast(unordered, ir.IntType(acc.n))
        return builder.icmp_unsigned("!=", bits, ir.Constant(ir.IntType(acc.n), 0))
    return types.boolean(acc), codegen
