"""Kernels for a block program's structured ops (`straight_line.fast_kernel`): `pad` and
integer `convolution` with everything that depends on the op alone worked out once.

An integer convolution by a folded kernel (the weights of a lowered quantized model)
runs in float32 or float64 when a static bound proves every partial sum exact:
`|sum| <= K * 2^(w-1) * max|rhs|` (K taps times input features per group, `w` the lhs
width: any lhs value of its type) below 2^24 (float32) or 2^53 (float64). The exact
sum is the integer one (any summation order), wrapped to the result type as
`_contract_plain` does: the same array as `kernels.convolution`, without per-run
attribute decoding, the run-time magnitude scan and, for depthwise convolutions (one
input feature per group), without a matmul per group (a multiply-add per tap).

A float32 `dot_general` under `--semantics spec` (`float_dot_kernel`) makes the same
float64 operands, BLAS call and rounding to float32 as `kernels.dot_general` /
`_contract_plain`, with its float64 operands and product in reused work arrays.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from xdsl.dialects.builtin import Float32Type

from qcomp.dialects import stablehlo as sh
from qcomp.interpreter.values import element_type

Kernel = Callable[[list], np.ndarray]


class _Scratch(threading.local):
    """Each thread's reusable work arrays, by role, shape and dtype: the temporaries of
    a kernel (never its result) are written into the same memory run after run, not
    into fresh pages the system must map and zero each time."""

    def __init__(self) -> None:
        self.arrays: dict[tuple, np.ndarray] = {}

    def get(self, role: str, shape, dtype) -> np.ndarray:
        key = (role, tuple(shape), np.dtype(dtype))
        a = self.arrays.get(key)
        if a is None:
            if len(self.arrays) >= 64:
                self.arrays.clear()
            a = self.arrays[key] = np.empty(shape, dtype)
        return a


SCRATCH = _Scratch()
"""The work arrays of the kernels (a kernel's result is never one of them)."""


def _static_shape(t) -> tuple[int, ...] | None:
    get = getattr(t, "get_shape", None)
    if get is None:
        return None
    shape = tuple(get())
    return None if any(d < 0 for d in shape) else shape


def float_dot_kernel(op: sh.DotGeneralOp, slots: list[int]) -> Kernel | None:
    """A float32 x float32 -> float32 `dot_general` summed in float64 (the spec
    semantics' `kernels.dot_general(..., "float")` then `to_float`): both operands laid
    out (batch, free, contracting) / (batch, contracting, free) and widened into work
    arrays, one batched float64 matmul into a third, rounded once to float32. Static
    shapes only, else None."""
    ts = [op.operands[0].type, op.operands[1].type, op.results[0].type]
    shapes = [_static_shape(t) for t in ts]
    if any(s is None for s in shapes) or any(element_type(t) != Float32Type() for t in ts):
        return None
    (ls, rs, out) = shapes
    d = op.dot_dimension_numbers
    lb, rb = list(d.lhs_batching_dimensions), list(d.rhs_batching_dimensions)
    lc, rc = list(d.lhs_contracting_dimensions), list(d.rhs_contracting_dimensions)
    lf = [i for i in range(len(ls)) if i not in lb and i not in lc]
    rf = [i for i in range(len(rs)) if i not in rb and i not in rc]
    lperm, rperm = lb + lf + lc, rb + rc + rf
    nb, k = math.prod(ls[i] for i in lb), math.prod(ls[i] for i in lc)
    m, n = math.prod(ls[i] for i in lf), math.prod(rs[i] for i in rf)
    if nb * m * n != math.prod(out) or k != math.prod(rs[i] for i in rc):
        return None
    lt, rt = tuple(ls[i] for i in lperm), tuple(rs[i] for i in rperm)
    a_slot, b_slot = slots

    def run(vals: list) -> np.ndarray | None:
        a, b = vals[a_slot], vals[b_slot]
        if a.dtype != np.float32 or b.dtype != np.float32:
            return None
        fa = SCRATCH.get("dot_lhs", (nb, m, k), np.float64)
        fb = SCRATCH.get("dot_rhs", (nb, k, n), np.float64)
        np.copyto(fa.reshape(lt), np.transpose(a, lperm))
        np.copyto(fb.reshape(rt), np.transpose(b, rperm))
        fc = np.matmul(fa, fb, out=SCRATCH.get("dot_sum", (nb, m, n), np.float64))
        with np.errstate(all="ignore"):
            return fc.reshape(out).astype(np.float32)
    return run


def pad_kernel(op: sh.PadOp, slots: list[int]) -> Kernel | None:
    """`pad` without interior padding or cropping: the value filled, `x` copied in."""
    shape, out = _static_shape(op.operands[0].type), _static_shape(op.results[0].type)
    low, high, interior = op.edge_padding_low, op.edge_padding_high, op.interior_padding
    if shape is None or out is None or any(interior) or min((*low, *high), default=0) < 0:
        return None
    if tuple(s + lo + hi for s, lo, hi in zip(shape, low, high)) != out:
        return None
    inner = tuple(slice(lo, lo + s) for lo, s in zip(low, shape))
    x, v = slots

    def run(vals: list) -> np.ndarray:
        a = vals[x]
        r = np.full(out, np.asarray(vals[v]).reshape(()), dtype=a.dtype)
        r[inner] = a
        return r
    return run


def conv_kernel(op: sh.ConvolutionOp, slots: list[int], weights: np.ndarray,
                lhs_dtype: np.dtype, out_dtype: np.dtype) -> Kernel | None:
    """An integer convolution by the folded `weights` (module docstring), or None."""
    planned = conv_accumulator(op, slots[0], weights, 1 << (lhs_dtype.itemsize * 8 - 1), 0)
    if planned is None:
        return None
    accumulate, acc_shape, inv, bound, _ = planned
    wide = bound >= 1 << (out_dtype.itemsize * 8 - 1)

    def run(vals: list) -> np.ndarray:
        acc = accumulate(vals)
        r = acc.astype(np.int64).astype(out_dtype) if wide else acc.astype(out_dtype)
        return np.transpose(r.reshape(acc_shape), inv)
    return run


def conv_accumulator(op: sh.ConvolutionOp, x_slot: int, weights: np.ndarray, lhs_bound: int,
                     pad_value: int):
    """The exact integer sums of the convolution of the lhs in slot `x_slot` (padded with
    `pad_value`, every value of magnitude at most `lhs_bound`) by the folded integer
    `weights`, as a float32 / float64 array (module docstring) of layout
    (batch, spatial..., feature): `(accumulate(vals), that shape, the permutation to
    the result layout, the bound K * lhs_bound * max|weights|, K)`, or None."""
    d = op.dimension_numbers
    n_sp = len(d.input_spatial_dimensions)
    in_shape, out_shape = _static_shape(op.operands[0].type), _static_shape(op.results[0].type)
    if in_shape is None or out_shape is None or weights.dtype.kind != "i" or not weights.size:
        return None
    if op.batch_group_count != 1 or any(v != 1 for v in op.lhs_dilation) or \
            any(op.window_reversal) or min((p for pair in op.padding for p in pair), default=0) < 0:
        return None
    groups = op.feature_group_count
    w = np.transpose(weights, [*d.kernel_spatial_dimensions, d.kernel_input_feature_dimension,
                               d.kernel_output_feature_dimension])
    ksz, cg, o = w.shape[:n_sp], w.shape[-2], w.shape[-1]
    k = math.prod(ksz) * cg
    wmax = max(abs(int(weights.max())), abs(int(weights.min())))
    bound = k * lhs_bound * wmax
    ft = np.float32 if bound < 1 << 24 else np.float64 if bound < 1 << 53 else None
    if ft is None:
        return None
    perm = [d.input_batch_dimension, *d.input_spatial_dimensions, d.input_feature_dimension]
    n, c = in_shape[perm[0]], in_shape[perm[-1]]
    sp = [in_shape[i] for i in perm[1:-1]]
    pads, strides, dil = op.padding, op.window_strides, op.rhs_dilation
    padded = [s + lo + hi for s, (lo, hi) in zip(sp, pads)]
    eff = [(kk - 1) * dd + 1 for kk, dd in zip(ksz, dil)]
    out_sp = [(p - e) // s + 1 if p >= e else 0 for p, e, s in zip(padded, eff, strides)]
    inv = [0] * (n_sp + 2)
    inv[d.output_batch_dimension] = 0
    for i, dim in enumerate(d.output_spatial_dimensions):
        inv[dim] = 1 + i
    inv[d.output_feature_dimension] = n_sp + 1
    acc_shape = [n, *out_sp, o]
    if tuple(acc_shape[i] for i in inv) != out_shape or c != cg * groups or o % groups \
            or min(acc_shape) == 0:
        return None
    inner = (slice(None),) + tuple(slice(lo, lo + s) for (lo, _), s in zip(pads, sp)) \
        + (slice(None),)
    needs_pad = any(p != (0, 0) for p in pads)

    def lhs_of(vals: list) -> np.ndarray:
        x = np.transpose(vals[x_slot], perm)
        if not needs_pad:
            return x.astype(ft)
        xp = SCRATCH.get("padded", [n, *padded, c], ft)
        xp.fill(pad_value)
        xp[inner] = x
        return xp

    taps = list(np.ndindex(*ksz))

    def tap_view(xp: np.ndarray, tap: tuple[int, ...]) -> np.ndarray:
        sel = tuple(slice(t * dd, t * dd + (q - 1) * s + 1, s)
                    for t, dd, q, s in zip(tap, dil, out_sp, strides))
        return xp[(slice(None), *sel, slice(None))]

    if groups == 1:
        wm = np.ascontiguousarray(w.reshape(k, o), dtype=ft)
        wm.flags.writeable = False
        positions = n * math.prod(out_sp)
        if all(kk == 1 for kk in ksz):  # 1x1: the (strided) input is the patch matrix
            def pointwise(vals: list) -> np.ndarray:
                x = tap_view(lhs_of(vals), taps[0])
                return (np.ascontiguousarray(x).reshape(positions, c) @ wm).reshape(acc_shape)
            return pointwise, acc_shape, inv, bound, k

        def general(vals: list) -> np.ndarray:
            xp = lhs_of(vals)
            win = sliding_window_view(xp, eff, axis=tuple(range(1, 1 + n_sp)))
            sel = (slice(None),) + tuple(slice(None, (q - 1) * s + 1, s)
                                         for q, s in zip(out_sp, strides)) \
                + (slice(None),) + tuple(slice(None, None, dd) for dd in dil)
            moved = np.moveaxis(win[sel], 1 + n_sp, -1)
            patches = SCRATCH.get("patches", moved.shape, ft)
            np.copyto(patches, moved)
            acc = SCRATCH.get("sums", (positions, o), ft)
            return np.matmul(patches.reshape(positions, k), wm, out=acc).reshape(acc_shape)
        return general, acc_shape, inv, bound, k
    if cg == 1 and o == groups:  # depthwise, one output per input feature
        wt = np.ascontiguousarray(w.reshape(len(taps), o), dtype=ft)
        wt.flags.writeable = False

        def depthwise(vals: list) -> np.ndarray:
            xp = lhs_of(vals)
            acc = tap_view(xp, taps[0]) * wt[0]
            for i in range(1, len(taps)):
                acc += tap_view(xp, taps[i]) * wt[i]
            return acc
        return depthwise, acc_shape, inv, bound, k
    return None
