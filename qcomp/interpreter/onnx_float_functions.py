"""Interpreter implementations of onnx-mlir's float ops (`qcomp.dialects.onnx.float_ops`).

Each op runs as the StableHLO steps `onnx-legalize-to-stablehlo` makes of it, with the
StableHLO interpreter's kernels (`elementwise.apply`, `kernels.convolution`,
`kernels.dot_general`, `kernels.window_view`): every step rounds once to the result's
element type, so the lowered program gives the same bits (`--verify-numerics`).
Mathematically each is the ONNX operator; `tests/interpreter/test_onnx_float_functions.py`
checks them against `onnx.reference.ReferenceEvaluator`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.onnx import float_ops as fo
from qcomp.dialects.onnx import float_shapes as fs
from qcomp.dialects.onnx.core import attr, is_none
from qcomp.interpreter import elementwise, kernels
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.float_rounding import to_float
from qcomp.interpreter.values import element_type, numpy_dtype, to_type


def _e(v):
    return element_type(v.type)


def _bin(kind, a: np.ndarray, b: np.ndarray, e) -> np.ndarray:
    """StableHLO's `kind` on `a`, `b` broadcast NumPy-style (as broadcast_in_dim does)."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b))
    return elementwise.apply(kind, [np.broadcast_to(a, shape), np.broadcast_to(b, shape)], e, e)


def _sum(x: np.ndarray, axes: tuple[int, ...], e) -> np.ndarray:
    """`stablehlo.reduce` add (float64 sum rounded once; integers exact then wrapped)."""
    dt = numpy_dtype(e)
    if dt.kind in "iu":
        return to_type(np.sum(x.astype(np.int64), axis=axes), e)
    return to_float(np.sum(x.astype(np.float64), axis=axes), dt)


def _contract(fn, a: np.ndarray, b: np.ndarray, e) -> np.ndarray:
    dt = numpy_dtype(e)
    if dt.kind in "iu":
        return to_type(fn(a, b, "int"), e)
    return to_float(fn(a, b, "float"), dt)


def _trunc_div(a: np.ndarray, b: np.ndarray, e) -> np.ndarray:
    """Integer Div: truncated toward zero (ONNX's reference); division by zero is a run
    error."""
    a64, b64 = np.broadcast_arrays(a.astype(np.int64), b.astype(np.int64))
    if np.any(b64 == 0):
        raise RunError("onnx.Div: integer division by zero")
    q = np.abs(a64) // np.abs(b64)
    return to_type(np.where((a64 < 0) != (b64 < 0), -q, q), e)


@register_impls
class OnnxFloatFunctions(InterpreterFunctions):
    """onnx float ops on NumPy arrays."""

    @impl(fo.AddOp)
    def run_add(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (_bin(sh.AddOp, args[0], args[1], _e(op.C)),)

    @impl(fo.SubOp)
    def run_sub(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (_bin(sh.SubtractOp, args[0], args[1], _e(op.C)),)

    @impl(fo.MulOp)
    def run_mul(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (_bin(sh.MultiplyOp, args[0], args[1], _e(op.C)),)

    @impl(fo.DivOp)
    def run_div(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        e = _e(op.C)
        if numpy_dtype(e).kind in "iu":
            return (_trunc_div(args[0], args[1], e),)
        return (_bin(sh.DivideOp, args[0], args[1], e),)

    @impl(fo.ReluOp)
    def run_relu(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        x = args[0]
        return (_bin(sh.MaximumOp, x, np.zeros((), x.dtype), _e(op.Y)),)

    @impl(fo.SigmoidOp)
    def run_sigmoid(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        e = _e(op.Y)
        return (elementwise.apply(sh.LogisticOp, [args[0]], e, e),)

    @impl(fo.TanhOp)
    def run_tanh(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        e = _e(op.output)
        return (elementwise.apply(sh.TanhOp, [args[0]], e, e),)

    @impl(fo.IdentityOp)
    def run_identity(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (args[0],)

    @impl(fo.ClipOp)
    def run_clip(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        x, lo, hi = args
        e = _e(op.output)
        if not is_none(op.min):
            x = _bin(sh.MaximumOp, x, np.reshape(lo, ()), e)
        if not is_none(op.max):
            x = _bin(sh.MinimumOp, x, np.reshape(hi, ()), e)
        return (x,)

    @impl(fo.SoftmaxOp)
    def run_softmax(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        """`exp(x - max) / sum(exp(x - max))` along axis, step by step."""
        x = args[0]
        e = _e(op.output)
        axis = fs.axis_in(attr(op, "axis"), x.ndim)
        m = np.max(x, axis=axis, keepdims=True) if x.size else x
        ex = elementwise.apply(sh.ExponentialOp, [_bin(sh.SubtractOp, x, m, e)], e, e)
        s = np.expand_dims(_sum(ex, (axis,), e), axis)
        return (_bin(sh.DivideOp, ex, s, e),)

    @impl(fo.MatMulOp)
    def run_matmul(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        a, b = args
        a2 = a.reshape(1, -1) if a.ndim == 1 else a
        b2 = b.reshape(-1, 1) if b.ndim == 1 else b
        batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
        a3 = np.broadcast_to(a2, (*batch, *a2.shape[-2:]))
        b3 = np.broadcast_to(b2, (*batch, *b2.shape[-2:]))
        nb = len(batch)
        r = _contract(lambda p, q, acc: kernels.dot_general(
            p, q, range(nb), range(nb), (nb + 1,), (nb,), acc), a3, b3, _e(op.Y))
        return (r.reshape(fs.matmul(a.shape, b.shape)),)

    @impl(fo.GemmOp)
    def run_gemm(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        a, b, c = args
        e = _e(op.Y)
        a = a.T if attr(op, "transA") else a
        b = b.T if attr(op, "transB") else b
        y = _contract(lambda p, q, acc: kernels.dot_general(p, q, (), (), (1,), (0,), acc),
                      a, b, e)
        alpha, beta = attr(op, "alpha"), attr(op, "beta")
        dt = numpy_dtype(e)
        if alpha != 1.0:
            y = _bin(sh.MultiplyOp, y, np.asarray(alpha).astype(dt), e)
        if not is_none(op.C):
            if beta != 1.0:
                c = _bin(sh.MultiplyOp, c, np.asarray(beta).astype(dt), e)
            y = _bin(sh.AddOp, y, c, e)
        return (y,)

    @impl(fo.ConvOp)
    def run_conv(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        x, w, b = args
        e = _e(op.Y)
        win = fo.window_of(op, x.shape, w.shape[2:])
        n = x.ndim - 2
        sp = tuple(range(2, 2 + n))
        conv = dict(input_batch=0, input_feature=1, input_spatial=sp, kernel_in=1,
                    kernel_out=0, kernel_spatial=sp, output_batch=0, output_feature=1,
                    output_spatial=sp, strides=win.strides, padding=win.pads,
                    lhs_dilation=(1,) * n, rhs_dilation=win.dilations, reversal=(False,) * n,
                    feature_groups=attr(op, "group"), batch_groups=1)
        y = _contract(lambda p, q, acc: kernels.convolution(p, q, accumulate=acc, **conv),
                      x, w, e)
        if not is_none(op.B):
            y = _bin(sh.AddOp, y, b.reshape(-1, *([1] * n)), e)
        return (y,)

    def _windows(self, op, x: np.ndarray, init) -> tuple[np.ndarray, fs.Window]:
        win = fo.window_of(op, x.shape)
        pads = ((0, 0), (0, 0), *((p, q + c) for (p, q), c in zip(win.pads, win.ceil_extra)))
        view = kernels.window_view(x, np.asarray(init, x.dtype), (1, 1, *win.kernel),
                                   (1, 1, *win.strides), (1,) * x.ndim,
                                   (1, 1, *win.dilations), pads)
        return view, win

    @impl(fo.MaxPoolSingleOutOp)
    def run_max_pool(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        x = args[0]
        lowest = np.iinfo(x.dtype).min if x.dtype.kind in "iu" else -np.inf
        view, _ = self._windows(op, x, lowest)
        return (np.max(view, axis=tuple(range(x.ndim, 2 * x.ndim))).astype(x.dtype),)

    @impl(fo.AveragePoolOp)
    def run_average_pool(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        """sum(window) / count: count_include_pad counts the explicit pads (not the
        extra room ceil_mode adds), else only input elements."""
        x = args[0]
        e = _e(op.Y)
        view, win = self._windows(op, x, 0)
        axes = tuple(range(x.ndim, 2 * x.ndim))
        total = _sum(view, axes, e)
        ones = np.ones(x.shape, x.dtype)
        if attr(op, "count_include_pad"):
            ones = np.pad(ones, ((0, 0), (0, 0), *win.pads), constant_values=1)
            pads = ((0, 0), (0, 0), *((0, c) for c in win.ceil_extra))
        else:
            pads = ((0, 0), (0, 0), *((p, q + c) for (p, q), c in zip(win.pads, win.ceil_extra)))
        cview = kernels.window_view(ones, np.asarray(0, x.dtype), (1, 1, *win.kernel),
                                    (1, 1, *win.strides), (1,) * x.ndim,
                                    (1, 1, *win.dilations), pads)
        count = _sum(cview, axes, e)
        return (_bin(sh.DivideOp, total, count, e),)

    @impl(fo.GlobalAveragePoolOp)
    def run_global_average_pool(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        x = args[0]
        e = _e(op.Y)
        axes = tuple(range(2, x.ndim))
        total = _sum(x, axes, e).reshape((*x.shape[:2], *([1] * (x.ndim - 2))))
        count = np.asarray(int(np.prod(x.shape[2:], dtype=np.int64))).astype(x.dtype)
        return (_bin(sh.DivideOp, total, count, e),)

    @impl(fo.ReshapeOp)
    def run_reshape(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        x, target = args
        try:
            shape = fs.reshape(x.shape, [int(v) for v in target], attr(op, "allowzero"))
        except fs.ShapeError as err:
            raise RunError(f"onnx.Reshape: {err}") from err
        return (x.reshape(shape),)

    @impl(fo.FlattenOp)
    def run_flatten(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (args[0].reshape(fs.flatten(args[0].shape, attr(op, "axis"))),)

    @impl(fo.TransposeOp)
    def run_transpose(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        perm = fo.ints_attr(op, "perm")
        return (np.ascontiguousarray(np.transpose(args[0], perm)),)

    @impl(fo.ConcatOp)
    def run_concat(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        axis = fs.axis_in(attr(op, "axis"), args[0].ndim)
        return (np.concatenate(args, axis=axis),)

    @impl(fo.SqueezeOp)
    def run_squeeze(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        x, axes = args
        try:
            shape = fs.squeeze(x.shape, None if is_none(op.axes) else [int(a) for a in axes])
        except fs.ShapeError as err:
            raise RunError(f"onnx.Squeeze: {err}") from err
        return (x.reshape(shape),)

    @impl(fo.UnsqueezeOp)
    def run_unsqueeze(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        x, axes = args
        return (x.reshape(fs.unsqueeze(x.shape, [int(a) for a in axes])),)

    @impl(fo.GatherOp)
    def run_gather(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        data, idx = args
        axis = fs.axis_in(attr(op, "axis"), data.ndim)
        n = data.shape[axis]
        i = idx.astype(np.int64)
        if np.any((i < -n) | (i >= n)):
            raise RunError(f"onnx.Gather: an index is out of bounds [-{n}, {n - 1}]")
        return (np.take(data, np.where(i < 0, i + n, i), axis=axis),)
