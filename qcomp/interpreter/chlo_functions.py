"""Interpreter implementations of the `chlo` ops.

Every op that declares `Elementwise` kernels (`qcomp.dialects.chlo`: the special
functions follow upstream's chlo-legalize-to-stablehlo decompositions) runs them; the
broadcasting ops first broadcast: without `broadcast_dimensions` the lower-rank operand
aligns with the trailing dimensions (NumPy broadcasting); with it, operand dimension i is
result dimension `broadcast_dimensions[i]`. `top_k` is upstream's stable sort,
descending, lower index first among equals.
"""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, impl, register_impls

from qcomp.dialects import chlo
from qcomp.dialects.chlo import CHLO
from qcomp.dialects.facts import Broadcasting, Elementwise
from qcomp.interpreter import elementwise
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.generated import generated_functions
from qcomp.interpreter.values import (
    budget,
    dense_to_array,
    element_type,
    numpy_dtype,
    quant_of,
)


def _align(x: np.ndarray, dims, rank: int) -> np.ndarray:
    shape = [1] * rank
    for i, d in enumerate(dims):
        shape[d] = x.shape[i]
    return x.reshape(shape)


def _no_quantized(op) -> None:
    if any(quant_of(v.type) is not None for v in (*op.operands, *op.results)):
        raise RunError(f"quantized '{op.name}' is not supported")


def broadcast(op, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two operands of a `chlo.broadcast_*` op broadcast to the result shape."""
    _no_quantized(op)
    dims = op.broadcast_dimensions
    if dims:
        if a.ndim < b.ndim:
            a = _align(a, dims, b.ndim)
        elif b.ndim < a.ndim:
            b = _align(b, dims, a.ndim)
    try:
        return tuple(np.broadcast_arrays(a, b))  # type: ignore[return-value]
    except ValueError:
        raise RunError(f"'{op.name}': shapes {a.shape} and {b.shape} do not broadcast") from None


def _run_declared(self, interpreter: Interpreter, op, args):
    """A chlo op that declares its `Elementwise` kernels (the broadcasting ops
    broadcast their operands first)."""
    _no_quantized(op)
    if op.has_trait(Broadcasting):
        args = broadcast(op, *args)
    return (elementwise.apply(op, list(args), element_type(op.operands[0].type),
                              element_type(op.results[0].type)),)


_Generated = generated_functions(
    [(t, impl(t)(_run_declared)) for t in CHLO.operations if t.has_trait(Elementwise)])


def _descending_order(x: np.ndarray) -> np.ndarray:
    """Stable argsort along the last axis, largest first. Upstream's comparator is
    `a > b or (a == b and index_a < index_b)` and its interpreter compares floats the IEEE
    way whatever the compare type, so -0 and +0 tie (lower index first). A NaN satisfies
    neither: where std::stable_sort leaves it is unspecified; qcomp puts NaNs first."""
    if x.dtype.kind in "biu":
        return np.argsort(~x.astype(np.uint64 if x.dtype == np.uint64 else np.int64),
                          axis=-1, kind="stable")
    f = x.astype(np.float64) + 0.0  # -0 -> +0
    return np.argsort(np.where(np.isnan(f), -np.inf, -f), axis=-1, kind="stable")


@register_impls
class ChloFunctions(_Generated):
    """The `chlo` ops."""

    @impl(chlo.BroadcastCompareOp)
    def run_broadcast_compare(self, interpreter: Interpreter, op, args):
        a, b = broadcast(op, *args)
        kind = op.compare_type.data.value if op.compare_type is not None else None
        return (elementwise.compare(op.comparison_direction.data.value, a, b,
                                    element_type(op.lhs.type), kind),)

    @impl(chlo.BroadcastComplexOp)
    def run_broadcast_complex(self, interpreter: Interpreter, op, args):
        re, im = broadcast(op, *args)
        dt = numpy_dtype(element_type(op.result.type))
        return ((re.astype(np.float64) + 1j * im.astype(np.float64)).astype(dt),)

    @impl(chlo.BroadcastSelectOp)
    def run_broadcast_select(self, interpreter: Interpreter, op, args):
        _no_quantized(op)
        try:
            p, t, f = np.broadcast_arrays(*args)
        except ValueError:
            raise RunError(f"'{op.name}': shapes {[a.shape for a in args]} do not "
                           "broadcast") from None
        return (np.where(p, t, f),)

    @impl(chlo.TopKOp)
    def run_top_k(self, interpreter: Interpreter, op, args):
        (x,) = args
        _no_quantized(op)
        if x.shape[-1] < op.k:
            raise RunError(f"'{op.name}': last dimension {x.shape[-1]} is smaller than k = {op.k}")
        order = _descending_order(x)[..., :op.k]
        return (np.take_along_axis(x, order, axis=-1), order.astype(np.int32))

    @impl(chlo.ConstantOp)
    def run_constant(self, interpreter: Interpreter, op, args):
        return (dense_to_array(op.value, op.output.type, budget(interpreter)),)

    @impl(chlo.ConstantLikeOp)
    def run_constant_like(self, interpreter: Interpreter, op, args):
        (x,) = args
        e = element_type(op.result.type)
        value = op.value
        raw = getattr(value, "value", None)
        v = getattr(raw, "data", raw)
        if v is None:
            raise RunError(f"'{op.name}': unsupported value {value}")
        dt = numpy_dtype(e)
        return (np.full(x.shape, v, dtype=np.float64 if dt.kind == "f" or "float" in dt.name
                        else None).astype(dt),)
