"""Interpreter functions of StableHLO's complex, linear-algebra, transform and
normalization ops, and `reverse` (NumPy, vectorised).

- `triangular_solve`: upstream's substitution order, each step rounded to the element
  type (vectorised over batch and right-hand sides);
- `fft`: NumPy's FFT in complex128, rounded once to the result type;
- `cholesky`: LAPACK's factor in float64 (upstream decomposes the op before
  interpreting; XLA gives NaN for a matrix that is not positive definite, and so does
  qcomp); `batch_norm_training` / `batch_norm_grad`: the spec's formulas in float64,
  rounded once;
- quantized cholesky / triangular_solve / batch_norm_*: the spec's
  dequantize-op-quantize (`dq_op_q`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.kernels import complex_divide, complex_multiply
from qcomp.dialects.stablehlo.op_attrs import FftType, Transpose
from qcomp.interpreter.float_rounding import to_float
from qcomp.interpreter.values import element_type, numpy_dtype, quant_of


def _round(x: np.ndarray, t) -> np.ndarray:
    dt = numpy_dtype(element_type(t))
    return x.astype(dt) if dt.kind == "c" else to_float(x, dt)


def dq_op_q(interpreter: Interpreter, op, fn, args) -> tuple[np.ndarray, ...]:
    """The spec's `dequantize_op_quantize` (and `dequantize_batch_norm_grad_or_training_
    quantize` for several results): quantized operands dequantized to their expressed
    type, `fn(*values)` computed on floats, each result rounded to its (expressed) type
    and quantized where its type is quantized."""
    sem = interpreter.elementwise.sem
    values = [sem.dequantize(np.asarray(a), v.type) if quant_of(v.type) is not None
              else np.asarray(a) for a, v in zip(args, op.operands)]
    out = fn(*values)
    out = out if isinstance(out, tuple) else (out,)
    results = []
    for v, r in zip(out, op.results):
        q = quant_of(r.type)
        if q is None:
            results.append(_round(np.asarray(v), r.type))
        else:
            dt = numpy_dtype(q.expressed_type)
            results.append(sem.quantize(to_float(np.asarray(v, np.float64), dt), r.type))
    return tuple(results)


def triangular_solve(a: np.ndarray, b: np.ndarray, left_side: bool, lower: bool,
                     unit_diagonal: bool, transpose: Transpose) -> np.ndarray:
    """x with op(a) x = b (left side) or x op(a) = b, by substitution in upstream's order:
    x_i = (b_i - sum_j a_ij x_j) / a_ii, j running towards i, each step in b's dtype."""
    if transpose in (Transpose.TRANSPOSE, Transpose.ADJOINT):
        a = np.swapaxes(a, -1, -2)
        lower = not lower
    if transpose == Transpose.ADJOINT:
        a = np.conj(a)
    if not left_side:  # x a = b  <=>  a^T x^T = b^T, with a^T's rows being a's columns
        return np.swapaxes(_substitute(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2),
                                       not lower, unit_diagonal), -1, -2)
    return _substitute(a, b, lower, unit_diagonal)


def _substitute(a, b, lower, unit_diagonal) -> np.ndarray:
    """Forward (lower) or back substitution over the rows i of b, j running towards i."""
    n = a.shape[-1]
    x = np.zeros_like(b)
    mul, div = np.multiply, np.divide
    if b.dtype.kind == "c":  # upstream's complex arithmetic
        mul = complex_multiply
        div = lambda p, q: complex_divide(p, q).astype(b.dtype)  # noqa: E731
    order = range(n) if lower else range(n - 1, -1, -1)
    with np.errstate(all="ignore"):
        for i in order:
            acc = b[..., i, :]
            js = range(0, i) if lower else range(n - 1, i, -1)
            for j in js:
                acc = acc - mul(a[..., i, j, None], x[..., j, :])
            if not unit_diagonal:
                acc = div(acc, a[..., i, i, None])
            x[..., i, :] = acc
    return x


def cholesky(a: np.ndarray, lower: bool) -> np.ndarray:
    """The Cholesky factor of each matrix (reading only its `lower` or upper triangle);
    NaN for a matrix that is not positive definite."""
    wide = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    tri = np.tril(wide) if lower else np.conj(np.swapaxes(np.triu(wide), -1, -2))
    herm = tri + np.conj(np.swapaxes(np.tril(tri, -1), -1, -2))
    flat = herm.reshape((-1,) + herm.shape[-2:])
    out = np.empty_like(flat)
    for k, m in enumerate(flat):
        try:
            out[k] = np.linalg.cholesky(m)
        except np.linalg.LinAlgError:
            out[k] = np.nan
    out = out.reshape(herm.shape)
    return out if lower else np.conj(np.swapaxes(out, -1, -2))


def fft(x: np.ndarray, kind: FftType, lengths) -> np.ndarray:
    """The spec's fft over the innermost len(lengths) dimensions, in complex128."""
    axes = tuple(range(x.ndim - len(lengths), x.ndim))
    if kind == FftType.FFT:
        return np.fft.fftn(x.astype(np.complex128), axes=axes)
    if kind == FftType.IFFT:
        return np.fft.ifftn(x.astype(np.complex128), axes=axes)
    if kind == FftType.RFFT:
        return np.fft.rfftn(x.astype(np.float64), s=tuple(lengths), axes=axes)
    return np.fft.irfftn(x.astype(np.complex128), s=tuple(lengths), axes=axes)


def _feature_axes(x: np.ndarray, feature: int) -> tuple[tuple[int, ...], list[int]]:
    shape = [1] * x.ndim
    shape[feature] = -1
    return tuple(d for d in range(x.ndim) if d != feature), shape


def batch_norm_training(x, scale, offset, eps: float, feature: int):
    """(normalized, mean, variance) over every dimension but `feature`."""
    axes, shape = _feature_axes(x, feature)
    x = x.astype(np.float64)
    mean = x.mean(axis=axes)
    var = ((x - mean.reshape(shape)) ** 2).mean(axis=axes)
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    return y * scale.astype(np.float64).reshape(shape) + offset.astype(np.float64).reshape(shape), \
        mean, var


def batch_norm_grad(x, scale, mean, var, grad, eps: float, feature: int):
    """The spec's batch_norm_grad (XLA's batchnorm_expander formulas)."""
    axes, shape = _feature_axes(x, feature)
    x, grad = x.astype(np.float64), grad.astype(np.float64)
    scale, mean, var = (v.astype(np.float64).reshape(shape) for v in (scale, mean, var))
    centered = x - mean
    stddev = np.sqrt(var + eps)
    n = x.size / x.shape[feature]
    i1 = grad * n
    i2 = grad.sum(axis=axes).reshape(shape)
    i3 = (grad * centered).sum(axis=axes).reshape(shape)
    i6 = i1 - i2 - i3 * centered / (var + eps)
    grad_operand = scale / stddev / n * i6
    return grad_operand, (grad * centered / stddev).sum(axis=axes), grad.sum(axis=axes)


@register_impls
class LinalgFunctions(InterpreterFunctions):
    """complex, is_finite, reverse, fft, cholesky, triangular_solve, batch norm."""

    @impl(sh.ComplexOp)
    def run_complex(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        re, im = args
        dt = numpy_dtype(element_type(op.result.type))
        out = np.empty(np.broadcast(re, im).shape, dt)
        out.real, out.imag = re, im
        return (out,)

    @impl(sh.IsFiniteOp)
    def run_is_finite(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        if quant_of(op.operand.type) is not None:
            return (np.ones(args[0].shape, np.bool_),)  # dequantized values are finite
        return (np.isfinite(args[0].astype(np.float64)),)

    @impl(sh.ReverseOp)
    def run_reverse(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (np.flip(args[0], axis=op.dimensions) if op.dimensions else args[0],)

    @impl(sh.FftOp)
    def run_fft(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (_round(fft(args[0], op.fft_type.data, op.fft_length), op.result.type),)

    @impl(sh.CholeskyOp)
    def run_cholesky(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        lower = op.lower is not None and bool(op.lower.value.data)
        if quant_of(op.result.type) is not None or quant_of(op.a.type) is not None:
            return dq_op_q(interpreter, op, lambda a: cholesky(a, lower), args)
        return (_round(cholesky(args[0], lower), op.result.type),)

    @impl(sh.TriangularSolveOp)
    def run_triangular_solve(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        def solve(a, b):
            return triangular_solve(a, b, bool(op.left_side.value.data),
                                    bool(op.lower.value.data),
                                    bool(op.unit_diagonal.value.data), op.transpose_a.data)

        if any(quant_of(v.type) is not None for v in (*op.operands, *op.results)):
            return dq_op_q(interpreter, op, solve, args)
        return (solve(*args),)

    @impl(sh.BatchNormTrainingOp)
    def run_batch_norm_training(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return _batch_norm(interpreter, op, batch_norm_training, args)

    @impl(sh.BatchNormGradOp)
    def run_batch_norm_grad(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return _batch_norm(interpreter, op, batch_norm_grad, args)


def _batch_norm(interpreter, op, formulas, args) -> tuple[np.ndarray, ...]:
    """`formulas(*args, epsilon, feature_index)` in float64, each result rounded once
    (quantized: dequantized operands, each result quantized to its type)."""
    def fn(*values):
        return tuple(formulas(*values, float(op.epsilon.value.data), op.feature_index))

    return dq_op_q(interpreter, op, fn, args)
