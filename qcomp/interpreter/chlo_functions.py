"""Interpreter implementations of the `chlo` ops.

Broadcasting ops: without `broadcast_dimensions` the lower-rank operand aligns with the
trailing dimensions (NumPy broadcasting); with it, operand dimension i is result
dimension `broadcast_dimensions[i]`. The special functions follow upstream's
chlo-legalize-to-stablehlo decompositions (`chlo_math.py`, `chlo_gamma.py`,
`chlo_complex.py`); `top_k`
is upstream's stable sort, descending, lower index first among equals.
"""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, impl, register_impls

from qcomp.dialects import chlo
from qcomp.dialects.facts import Elementwise
from qcomp.interpreter import chlo_complex, chlo_gamma, chlo_math, elementwise
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.generated import generated_functions
from qcomp.interpreter.values import (
    budget,
    dense_to_array,
    element_type,
    is_complex,
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


def _make(op_type):
    def run(self, interpreter: Interpreter, op, args):
        a, b = broadcast(op, *args)
        return (elementwise.apply(op, [a, b], element_type(op.operands[0].type),
                                  element_type(op.results[0].type)),)
    return impl(op_type)(run)


def _float_operands(op, arrays) -> None:
    for a in arrays:
        if a.dtype.kind not in "fV" and a.dtype.name != "bfloat16" and "float" not in a.dtype.name:
            raise RunError(f"'{op.name}' needs float operands, got {a.dtype}")


def _unary(fn, complex_fn=None):
    def run(self, interpreter: Interpreter, op, args):
        (x,) = args
        if is_complex(element_type(op.operand.type)):
            if complex_fn is None:
                raise RunError(f"complex '{op.name}' is not supported")
            with np.errstate(all="ignore"):
                return (complex_fn(np.asarray(x)),)
        _float_operands(op, [x])
        with np.errstate(all="ignore"):
            return (np.asarray(fn(np.asarray(x))),)
    return run


def _binary(fn, broadcasting: bool):
    def run(self, interpreter: Interpreter, op, args):
        a, b = broadcast(op, *args) if broadcasting else args
        _float_operands(op, [a, b])
        with np.errstate(all="ignore"):
            return (np.asarray(fn(np.asarray(a), np.asarray(b))),)
    return run


def _steps(fn):
    """A function of `chlo_math.Steps` run in the operand's own type."""
    return lambda x: fn(chlo_math.Steps(x.dtype), x)


_UNARY = {
    chlo.AcosOp: _steps(chlo_math.acos), chlo.AsinOp: _steps(chlo_math.asin),
    chlo.AtanOp: _steps(chlo_math.atan), chlo.AcoshOp: _steps(chlo_math.acosh),
    chlo.AsinhOp: _steps(chlo_math.asinh), chlo.AtanhOp: _steps(chlo_math.atanh),
    chlo.TanOp: _steps(chlo_math.tan),
    chlo.CoshOp: lambda x: chlo_math.upcast(chlo_math.cosh, x),
    chlo.SinhOp: lambda x: chlo_math.upcast(chlo_math.sinh, x),
    chlo.ErfOp: chlo_math.erf, chlo.ErfcOp: chlo_math.erfc, chlo.ErfInvOp: chlo_math.erf_inv,
    chlo.BesselI1eOp: chlo_math.bessel_i1e,
    chlo.LgammaOp: chlo_gamma.lgamma, chlo.DigammaOp: chlo_gamma.digamma,
    chlo.IsInfOp: lambda x: np.isinf(x.astype(np.float64)),
    chlo.IsPosInfOp: lambda x: x.astype(np.float64) == np.inf,
    chlo.IsNegInfOp: lambda x: x.astype(np.float64) == -np.inf,
}
_COMPLEX = {chlo.AcosOp: chlo_complex.acos, chlo.AsinOp: chlo_complex.asin,
            chlo.AtanOp: chlo_complex.atan, chlo.AcoshOp: chlo_complex.acosh,
            chlo.AsinhOp: chlo_complex.asinh, chlo.AtanhOp: chlo_complex.atanh}
_BINARY = {chlo.NextAfterOp: chlo_math.next_after, chlo.ZetaOp: chlo_gamma.zeta,
           chlo.PolygammaOp: chlo_gamma.polygamma}
_BROADCAST = {chlo.BroadcastNextAfterOp: chlo_math.next_after,
              chlo.BroadcastZetaOp: chlo_gamma.zeta,
              chlo.BroadcastPolygammaOp: chlo_gamma.polygamma}

_Generated = generated_functions(
    [(t, _make(t)) for t in chlo.BROADCAST_OPS if t.has_trait(Elementwise)]
    + [(t, impl(t)(_unary(fn, _COMPLEX.get(t)))) for t, fn in _UNARY.items()]
    + [(t, impl(t)(_binary(fn, False))) for t, fn in _BINARY.items()]
    + [(t, impl(t)(_binary(fn, True))) for t, fn in _BROADCAST.items()])


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
            raise RunError(f"'chlo.top_k': last dimension {x.shape[-1]} is smaller than k = {op.k}")
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
            raise RunError(f"'chlo.constant_like': unsupported value {value}")
        dt = numpy_dtype(e)
        return (np.full(x.shape, v, dtype=np.float64 if dt.kind == "f" or "float" in dt.name
                        else None).astype(dt),)
