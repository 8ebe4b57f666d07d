"""Integer dot products in the form XLA's CPU backend runs on its VNNI kernels, same bits.

XLA's CPU backend (jaxlib 0.10.2) multiplies `i8 x i8 -> i32` at about the float32 FMA
rate (45-50 G multiply-accumulates per CPU second on this 2-core AVX512-VNNI machine,
whichever of YNNPACK, XNNPACK or oneDNN takes the dot), but `ui8 x i8 -> i32` 3-10x
faster: the x86 VNNI instruction `vpdpbusd` multiplies unsigned by signed bytes, and
XLA's libraries reach it only in that form (onnxruntime feeds its int8 GEMM the same
way). Measured in docs/benchmarks.md ("The int8 GEMMs"), `tools/bench_dots.py`.

`unsigned_lhs_dots` rewrites each

    %r = stablehlo.dot_general %a, %b, ... : (tensor<...xi8>, tensor<...xi8>) -> tensor<...xi32>

whose `%b` is a constant as

    %u = stablehlo.bitcast_convert(stablehlo.xor %a, dense<-128>) : ... -> tensor<...xui8>
    %r = stablehlo.dot_general %u, %b, ...  -  broadcast(dense<128 * sum_k b[k, n]>)

`a xor 0x80` read as unsigned is `a + 128`, so for every result element

    sum_k a[k] * b[k, n] = sum_k (a[k] + 128) * b[k, n] - 128 * sum_k b[k, n]

as integers; the two sides agree modulo 2^32 whatever the magnitudes (two's complement
arithmetic is arithmetic modulo 2^32), so the i32 result is the original one bit for bit,
wrap-around included. The column sums of the constant are computed once, here.

Only for XLA on a CPU with VNNI (`avx512_vnni` or `avx_vnni` in /proc/cpuinfo): IREE
3.13 miscomputes `ui8 x i8` dot_generals (it takes `ui8` as signed), and without VNNI
the unsigned form buys nothing. The interpreter is not changed: this is part of
preparing a program for XLA (`qcomp.backends.xla_prepare.for_entry`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import numpy as np
from xdsl.dialects.builtin import IntegerType, ModuleOp, Signedness, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from qcomp.backends.xla_rewrite import inserter, rewrite_once
from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.attrs import DotDimensionNumbersAttr
from qcomp.interpreter.values import dense_to_array, element_type, shape_of
from qcomp.ir.splat import dense_attr, splat_attr

SHIFT = 128
"""What `xor 0x80` adds to a signed byte read as unsigned."""


@functools.cache
def host_has_vnni() -> bool:
    """Whether this machine's CPU multiplies bytes with VNNI (`vpdpbusd`)."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    flags = next((ln.split(":", 1)[1].split() for ln in info.splitlines()
                  if ln.split(":", 1)[0].strip() in ("flags", "Features")), [])
    return "avx512_vnni" in flags or "avx_vnni" in flags


class UnsignedLhsDot(RewritePattern):
    """An `i8 x i8 -> i32` dot_general with a constant right-hand side -> its `ui8`
    form (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sh.DotGeneralOp, rewriter: PatternRewriter) -> None:
        w = _weights(op)
        if w is None:
            return
        add = inserter(rewriter)
        result = unsigned_dot(as_unsigned(op.operands[0], add), op.operands[1], w,
                              op.dot_dimension_numbers, op.results[0].type, add,
                              dict(op.properties), dict(op.attributes))
        rewriter.replace(op, [], [result])


def unsigned_lhs_dots(module: ModuleOp) -> int:
    """Rewrite every `i8 x i8 -> i32` dot_general of `module` with a constant right-hand
    side (`UnsignedLhsDot`); returns how many were rewritten."""
    return rewrite_once(module, UnsignedLhsDot())


def is_unsigned_lhs_dot(op: Operation) -> bool:
    """A dot_general this module made (`ui8` left-hand side): left to XLA's kernels."""
    return isinstance(op, sh.DotGeneralOp) and is_integer_type(op.operands[0].type, 8, Signedness.UNSIGNED)


def is_integer_type(t: Attribute, width: int, signedness: Signedness | None = None) -> bool:
    """`t`'s element type is an integer of `width` bits and `signedness` (None: signed
    or signless)."""
    e = element_type(t)
    if not isinstance(e, IntegerType) or e.width.data != width:
        return False
    if signedness is None:
        return e.signedness.data != Signedness.UNSIGNED
    return e.signedness.data == signedness


def _weights(op: sh.DotGeneralOp) -> np.ndarray | None:
    """The constant right-hand side of an `i8 x i8 -> i32` dot_general, or None."""
    a, b = op.operands
    if not (is_integer_type(a.type, 8) and is_integer_type(b.type, 8) and is_integer_type(op.results[0].type, 32)):
        return None
    src = b.owner
    if not isinstance(src, sh.ConstantOp):
        return None
    return dense_to_array(src.value, b.type)


def as_unsigned(a: SSAValue, add: Callable[[Operation], SSAValue]) -> SSAValue:
    """`bitcast_convert(a xor -128) : ui8`: the `i8` tensor `a` plus 128, as `ui8`."""
    a_shape = shape_of(a.type)
    sign = add(sh.ConstantOp(splat_attr(TensorType(element_type(a.type), a_shape), -SHIFT)))
    flipped = add(sh.XorOp(a, sign))
    return add(sh.BitcastConvertOp(flipped, TensorType(IntegerType(8, Signedness.UNSIGNED), a_shape)))


def unsigned_dot(unsigned: SSAValue, b: SSAValue, w: np.ndarray, dims: DotDimensionNumbersAttr,
                 out_t: Attribute, add: Callable[[Operation], SSAValue],
                 properties: dict | None = None, attributes: dict | None = None) -> SSAValue:
    """`dot_general(unsigned, b) - broadcast(128 * sum_k w)` (module docstring): the `i32`
    product of the `i8` values that `unsigned` holds plus 128 (`as_unsigned`) with the
    constant `b` (values `w`), `dims` the dot's dimension numbers (`properties`: the
    dot's, when it has more)."""
    out_shape = shape_of(out_t)
    dot = add(sh.DotGeneralOp.create(operands=[unsigned, b], result_types=[out_t],
                                     properties=properties or {"dot_dimension_numbers": dims},
                                     attributes=attributes or {}))
    # 128 * sum of b over its contracting dimensions, laid out as the result's
    # (batch..., rhs free...) dimensions, wrapped to i32 as the dot's sums wrap.
    contracting = tuple(dims.rhs_contracting_dimensions)
    batching = tuple(dims.rhs_batching_dimensions)
    free = tuple(d for d in range(w.ndim) if d not in contracting and d not in batching)
    sums = np.transpose(w.astype(np.int64), (*batching, *free, *contracting))
    sums = sums.reshape(*sums.shape[:len(batching) + len(free)], -1).sum(axis=-1) * SHIFT
    shift = ((sums + 2**31) % 2**32 - 2**31).astype("<i4")
    shift_t = TensorType(element_type(out_t), list(shift.shape))
    shift_v = add(sh.ConstantOp(dense_attr(shift_t, shift.tobytes())))
    n_lhs_free = len(out_shape) - len(batching) - len(free)
    positions = [*range(len(batching)), *(len(batching) + n_lhs_free + i for i in range(len(free)))]
    wide = add(sh.BroadcastInDimOp(shift_v, positions, out_t))
    return add(sh.SubtractOp(dot, wide, out_t))
