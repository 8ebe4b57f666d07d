"""Interpreter functions of StableHLO's dynamic-shape ops (NumPy, vectorised).

The shape, start and padding operands are concrete arrays at run time; results take
the shapes they hold (a result type's `?` sizes are never read). Start indices are
clamped as the spec says: `clamp(0, start, operand_dim - result_dim)`.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects import stablehlo as sh
from qcomp.interpreter import kernels
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.values import element_type, numpy_dtype, quant_of, to_type


def _ints(x) -> list[int]:
    return [int(v) for v in np.asarray(x).reshape(-1)]


def _static(t) -> bool:
    return all(d >= 0 for d in t.get_shape())


def _fits(shape, t, op) -> None:
    want = t.get_shape()
    if len(want) != len(shape) or any(w >= 0 and w != s for w, s in zip(want, shape)):
        raise RunError(f"'{op.name}' produced shape {tuple(shape)}, which does not fit its "
                       f"result type {t}")


def _with_shape(t, shape) -> TensorType:
    """`t` with the run-time `shape` (element type and encoding kept)."""
    return TensorType(t.element_type, list(shape))


def iota(shape, dim: int, t) -> np.ndarray:
    """`result[i] = i[dim]`, converted to the element type of `t`."""
    ramp = np.arange(shape[dim], dtype=np.int64).reshape(
        [-1 if i == dim else 1 for i in range(len(shape))])
    full = np.broadcast_to(ramp, shape)
    e = quant_of(t) or element_type(t)
    if numpy_dtype(e).kind in "iub":
        return to_type(full, e)
    return full.astype(numpy_dtype(e))


def clamped_starts(starts, operand_shape, sizes) -> list[int]:
    """The spec's `clamp(0, start, operand_dim - size)` per dimension."""
    return [min(max(int(s), 0), d - n) for s, d, n in zip(starts, operand_shape, sizes)]


@register_impls
class DynamicFunctions(InterpreterFunctions):
    """`stablehlo.dynamic_*`, `real_dynamic_slice`, `get_dimension_size`."""

    @impl(sh.DynamicBroadcastInDimOp)
    def run_dynamic_broadcast_in_dim(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        x, dims = args
        out = _ints(dims)
        shape = [1] * len(out)
        for i, d in enumerate(op.broadcast_dimensions):
            shape[d] = x.shape[i]
        _fits(out, op.result.type, op)
        return (np.broadcast_to(np.reshape(x, shape), out),)

    @impl(sh.DynamicIotaOp)
    def run_dynamic_iota(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        shape = _ints(args[0])
        _fits(shape, op.result.type, op)
        return (iota(shape, op.iota_dimension, op.result.type),)

    @impl(sh.DynamicReshapeOp)
    def run_dynamic_reshape(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        x, shape = args[0], _ints(args[1])
        if int(np.prod(shape)) != x.size:
            raise RunError(f"dynamic_reshape of {x.size} elements to shape {tuple(shape)}")
        _fits(shape, op.result.type, op)
        return (np.reshape(x, shape),)

    @impl(sh.RealDynamicSliceOp)
    def run_real_dynamic_slice(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        x, start, limit, stride = (args[0], *(_ints(a) for a in args[1:]))
        r = x[tuple(slice(a, b, c) for a, b, c in zip(start, limit, stride))]
        _fits(r.shape, op.result.type, op)
        return (r,)

    @impl(sh.DynamicPadOp)
    def run_dynamic_pad(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        x, v, low, high, interior = (*args[:2], *(_ints(a) for a in args[2:]))
        r = kernels.pad(x, np.asarray(v).reshape(()), low, high, interior)
        _fits(r.shape, op.result.type, op)
        return (r,)

    @impl(sh.DynamicSliceOp)
    def run_dynamic_slice(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        x, starts = args[0], args[1:]
        sizes = op.slice_sizes
        begin = clamped_starts(starts, x.shape, sizes)
        return (x[tuple(slice(b, b + n) for b, n in zip(begin, sizes))],)

    @impl(sh.DynamicUpdateSliceOp)
    def run_dynamic_update_slice(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        x, update, starts = args[0], args[1], args[2:]
        begin = clamped_starts(starts, x.shape, update.shape)
        r = np.array(x, copy=True)
        r[tuple(slice(b, b + n) for b, n in zip(begin, update.shape))] = update
        return (r,)

    @impl(sh.GetDimensionSizeOp)
    def run_get_dimension_size(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (np.array(args[0].shape[op.dimension], dtype=np.int32),)

    @impl(sh.DynamicGatherOp)
    def run_dynamic_gather(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        operand, indices, sizes = args
        d = op.dimension_numbers
        r = kernels.gather(operand, indices, offset_dims=d.offset_dims,
                           collapsed_slice_dims=d.collapsed_slice_dims,
                           operand_batching_dims=d.operand_batching_dims,
                           start_indices_batching_dims=d.start_indices_batching_dims,
                           start_index_map=d.start_index_map,
                           index_vector_dim=d.index_vector_dim, slice_sizes=_ints(sizes))
        _fits(r.shape, op.result.type, op)
        return (r,)

    @impl(sh.DynamicConvOp)
    def run_dynamic_conv(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        """convolution with the padding operand's values (StablehloFunctions runs it)."""
        lhs, rhs, padding = args
        pads = _ints(padding)
        k = len(op.dimension_numbers.input_spatial_dimensions)

        def arr(attr, default):
            return tuple(int(v) for v in attr.get_values()) if attr is not None else (default,) * k

        rt = op.result.type
        view = SimpleNamespace(
            name=op.name, operands=op.operands[:2], results=op.results,
            dimension_numbers=op.dimension_numbers, padding=tuple(zip(pads[0::2], pads[1::2])),
            window_strides=arr(op.window_strides_attr, 1),
            lhs_dilation=arr(op.lhs_dilation_attr, 1), rhs_dilation=arr(op.rhs_dilation_attr, 1),
            window_reversal=tuple(bool(v) for v in arr(op.window_reversal_attr, 0)),
            feature_group_count=op.feature_group_count_attr.value.data,
            batch_group_count=op.batch_group_count_attr.value.data)
        functions = interpreter.elementwise  # type: ignore[attr-defined]
        if not _static(rt):
            view.results = [SimpleNamespace(type=_with_shape(rt, _conv_shape(view, lhs, rhs)))]
        return functions.run_convolution(interpreter, view, (lhs, rhs)).values


def _conv_shape(view, lhs, rhs) -> list[int]:
    """The convolution's output shape (the spec's formula)."""
    d = view.dimension_numbers
    out = [0] * lhs.ndim
    for i, (di, dk, do) in enumerate(zip(d.input_spatial_dimensions, d.kernel_spatial_dimensions,
                                         d.output_spatial_dimensions)):
        size = lhs.shape[di]
        base = 0 if size == 0 else (size - 1) * view.lhs_dilation[i] + 1
        padded = base + view.padding[i][0] + view.padding[i][1]
        window = rhs.shape[dk]
        dilated = 0 if window == 0 else (window - 1) * view.rhs_dilation[i] + 1
        out[do] = 0 if padded < dilated else (padded - dilated) // view.window_strides[i] + 1
    out[d.output_batch_dimension] = lhs.shape[d.input_batch_dimension] // view.batch_group_count
    out[d.output_feature_dimension] = rhs.shape[d.kernel_output_feature_dimension]
    return out
