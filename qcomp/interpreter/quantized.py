"""The two meanings of quantized ops: `spec` and `stablehlo` (see docs/interpreter.md).

- `spec`: the StableHLO spec. Elementwise ops are `dequantize -> op -> quantize` in
  the expressed type; dot_general and convolution accumulate the exact integer
  sum of (q_l - zp_l) * (q_r - zp_r), scale it by s_l * s_r / s_res in float64 and
  round half to even once, clamped to the storage range; float-lhs/quantized-rhs
  ("hybrid") ops dequantize the rhs and run the float op.
- `stablehlo`: bit for bit what upstream's reference interpreter computes, which
  lowers quantized ops first (`qcomp.quant.stablehlo`): quantize/dequantize/requantize
  in f32, per-tensor add with each operand requantized separately, dot/conv on
  integers with a truncating rescale and a wrapping result where upstream's
  integer patterns apply, and dequantize -> f32 op -> quantize everywhere else.

A blockwise (sub-channel) rhs of dot_general / convolution with a quantized lhs is a
qcomp extension computed in `qcomp.interpreter.blockwise` under both semantics.

Quantized values are NumPy arrays of storage integers; the parameters come from the
SSA values' types (`UniformQuantizedType`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import Float32Type
from xdsl.ir import Attribute

from qcomp.dialects.quant import UniformQuantizedType, float_kind
from qcomp.interpreter import kernels
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.frozen import cached
from qcomp.interpreter.values import element_type, numpy_dtype, quant_of, shape_of
from qcomp.quant import float_storage, uniform
from qcomp.quant import stablehlo as up
from qcomp.quant.accumulator import rescale_accumulator
from qcomp.quant.float_storage import float_kind_dtype
from qcomp.quant.ranges import container_dtype, wrap

SEMANTICS = ("spec", "stablehlo")


def _params(q: UniformQuantizedType, shape: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    return q.broadcast_scales(shape), q.broadcast_zero_points(shape)


def _kind(q: UniformQuantizedType) -> str:
    kind = float_kind(q.expressed_type)
    if kind is None:
        raise RunError(f"unsupported expressed type {q.expressed_type}")
    return kind


def _container(q: UniformQuantizedType) -> np.dtype:
    if q.is_float_storage:
        return float_kind_dtype(q.storage_spelling)
    return container_dtype(q.storage_bitwidth, q.is_signed)


class QuantSemantics:
    """Quantized op evaluation for one semantics ('spec' or 'stablehlo')."""

    def __init__(self, mode: str = "spec"):
        if mode not in SEMANTICS:
            raise ValueError(f"semantics must be one of {SEMANTICS}, got {mode!r}")
        self.mode = mode

    @property
    def upstream(self) -> bool:
        return self.mode == "stablehlo"

    def float_accumulation(self, dtype: np.dtype):
        """How float contractions sum: float64/complex128 (spec), or term by term in
        `dtype` in the reference interpreter's order (stablehlo)."""
        if self.upstream:
            return np.dtype(dtype)
        return "complex" if np.dtype(dtype).kind == "c" else "float"

    def _view(self, q: np.ndarray, qt: UniformQuantizedType) -> np.ndarray:
        """Storage as the semantics reads it: upstream reads unsigned storage as signed iN."""
        if self.upstream and not qt.is_signed:
            return up.signless_view(q, qt.storage_bitwidth)
        return q

    # -- quantize / dequantize -------------------------------------------------------
    def dequantize(self, q: np.ndarray, t: Attribute) -> np.ndarray:
        """Storage integers of type `t` -> values of its expressed type."""
        qt = quant_of(t)
        assert qt is not None
        s, z = _params(qt, q.shape)
        if qt.is_float_storage:
            return float_storage.dequantize_float(q, s, z, _kind(qt))
        if self.upstream and isinstance(qt.expressed_type, Float32Type):
            return up.dequantize(self._view(q, qt), s, z)
        return uniform.dequantize(q, s, z, _kind(qt))

    def quantize(self, x: np.ndarray, t: Attribute) -> np.ndarray:
        """Float values -> storage integers of quantized type `t` (in its container dtype)."""
        qt = quant_of(t)
        assert qt is not None
        s, z = _params(qt, x.shape)
        if qt.is_float_storage:
            return float_storage.quantize_float(x, s, z, qt.storage_spelling, _kind(qt),
                                                qt.storage_min, qt.storage_max)
        if self.upstream and x.dtype == np.float32:
            r = up.quantize(x, s, z, qt.storage_min, qt.storage_max, qt.storage_bitwidth)
            return wrap(r, qt.storage_bitwidth, qt.is_signed)
        return uniform.quantize(x, s, z, qt.storage_min, qt.storage_max, _kind(qt), _container(qt))

    def uniform_quantize(self, x: np.ndarray, in_t: Attribute, out_t: Attribute) -> np.ndarray:
        iq, oq = quant_of(in_t), quant_of(out_t)
        if oq is None:
            raise RunError("uniform_quantize must produce a quantized type")
        if iq is None:
            return self.quantize(x, out_t)
        shape = x.shape
        if self.upstream and not (iq.is_float_storage or oq.is_float_storage):
            if (iq.is_per_axis and oq.is_per_axis
                    and iq.quantized_dimension != oq.quantized_dimension):
                raise RunError("Cannot requantize while changing quantization_axis")
            si, zi = _params(iq, shape)
            so, zo = _params(oq, shape)
            r = up.requantize(self._view(x, iq), si, zi, so, zo, oq.storage_min, oq.storage_max,
                              oq.storage_bitwidth, same_type=(iq == oq))
            return wrap(r, oq.storage_bitwidth, oq.is_signed)
        return self.quantize(self.dequantize(x, in_t), out_t)

    # -- dequantize -> op -> quantize ------------------------------------------------------
    def qdq(self, fn: Callable[..., np.ndarray], args: Sequence[np.ndarray],
            operand_types: Sequence[Attribute], result_type: Attribute) -> np.ndarray:
        """`fn` applied to dequantized operands (element types passed as expressed types),
        its result quantized when `result_type` is quantized.

        `fn(values, element_types, result_element)` gets plain arrays.
        """
        vals, elems = [], []
        for a, t in zip(args, operand_types):
            q = quant_of(t)
            if q is not None:
                vals.append(self.dequantize(a, t))
                elems.append(q.expressed_type)
            else:
                vals.append(a)
                elems.append(element_type(t))
        rq = quant_of(result_type)
        res_e = rq.expressed_type if rq is not None else element_type(result_type)
        out = fn(vals, elems, res_e)
        if rq is not None:
            return self.quantize(np.asarray(out).astype(numpy_dtype(rq.expressed_type)), result_type)
        return out

    # -- add ----------------------------------------------------------------------------
    def add(self, lhs, rhs, lt, rt, ot, float_add: Callable) -> np.ndarray:
        """Quantized add; `float_add(values, elems, res_e)` is the float op for the QDQ path."""
        lq, rq, oq = quant_of(lt), quant_of(rt), quant_of(ot)
        if self.upstream and lq and rq and oq:
            if lq.is_per_tensor and rq.is_per_tensor and oq.is_per_tensor:
                shape = lhs.shape
                r = up.add(self._view(lhs, lq), self._view(rhs, rq), _params(lq, shape), _params(rq, shape), _params(oq, shape),
                           oq.storage_min, oq.storage_max,
                           res_is_i32=oq.storage_bitwidth == 32 and oq.is_signed,
                           lhs_same=(lq == oq), rhs_same=(rq == oq))
                return wrap(r, oq.storage_bitwidth, oq.is_signed)
            if (lq == rq == oq and lq.is_per_axis and lq.storage_bitwidth == 32 and lq.is_signed):
                _, z = _params(oq, lhs.shape)
                return wrap(up.add_per_axis_i32(self._view(lhs, lq), self._view(rhs, rq), z), 32, True)
        return self.qdq(float_add, [lhs, rhs], [lt, rt], ot)

    # -- dot_general ------------------------------------------------------------------------
    def dot_general(self, lhs, rhs, lt, rt, ot, lb, rb, lc, rc) -> np.ndarray:
        lq, rq, oq = quant_of(lt), quant_of(rt), quant_of(ot)

        def float_dot(vals, elems, res_e):
            acc = self.float_accumulation(numpy_dtype(res_e))  # dot sums in the result type
            r = kernels.dot_general(vals[0], vals[1], lb, rb, lc, rc, acc)
            return r.astype(numpy_dtype(res_e))

        if lq and rq and oq:
            if rq.is_blockwise and lq.is_per_tensor and not oq.is_blockwise:
                from qcomp.interpreter.blockwise import blockwise_dot

                return blockwise_dot(self._view(lhs, lq), self._view(rhs, rq), lq, rq, oq,
                                     shape_of(ot), lb, rb, lc, rc, _container(oq), self.upstream)
            if self.upstream:
                if lq.is_per_tensor and (rq.is_per_tensor == oq.is_per_tensor) \
                        and not rq.is_blockwise and not oq.is_blockwise:
                    return self._upstream_dot(lhs, rhs, lq, rq, oq, lb, rb, lc, rc)
            else:
                return self._spec_contraction(
                    lhs, rhs, lq, rq, oq, ot,
                    lambda a, b: kernels.dot_general(a, b, lb, rb, lc, rc, "int"),
                    rhs_axis_to_result=_dot_rhs_axis_map(lhs.ndim, rhs.ndim, lb, rb, lc, rc),
                    float_fn=lambda a, b: kernels.dot_general(a, b, lb, rb, lc, rc, "float"),
                    centered_fn=lambda a, b, zl, zr: _centered_dot(a, b, zl, zr, lb, rb, lc, rc))
        return self.qdq(float_dot, [lhs, rhs], [lt, rt], ot)

    def _upstream_dot(self, lhs, rhs, lq, rq, oq, lb, rb, lc, rc) -> np.ndarray:
        lhs, rhs = self._view(lhs, lq), self._view(rhs, rq)
        raw = kernels.dot_general(lhs, rhs, lb, rb, lc, rc, "int")
        zl = int(lq.zero_point)
        zr = int(rq.zero_point) if rq.is_per_tensor else 0
        k = math.prod(lhs.shape[d] for d in lc)
        lfree = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
        rfree = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
        nb = len(lb)
        lsum = rsum = None
        if zr != 0:
            s = np.sum(np.transpose(lhs.astype(np.int64), list(lb) + lfree + list(lc)),
                       axis=tuple(range(nb + len(lfree), lhs.ndim)))
            lsum = s.reshape(s.shape + (1,) * len(rfree))
        if zl != 0:
            s = np.sum(np.transpose(rhs.astype(np.int64), list(rb) + rfree + list(rc)),
                       axis=tuple(range(nb + len(rfree), rhs.ndim)))
            rsum = s.reshape(s.shape[:nb] + (1,) * len(lfree) + s.shape[nb:])
        off = up.dot_zero_point_offset(lsum if lsum is not None else 0,
                                       rsum if rsum is not None else 0, zl, zr, k)
        if off is not None:
            off = np.broadcast_to(off, raw.shape)
        cs = _combined_scale(lq, rq, oq)
        zres = int(oq.zero_point) if oq.is_per_tensor else 0
        return up.dot_rescale(raw, off, cs, zres, oq.storage_bitwidth, oq.is_signed)

    # -- convolution ------------------------------------------------------------------------
    def convolution(self, lhs, rhs, lt, rt, ot, conv: dict) -> np.ndarray:
        lq, rq, oq = quant_of(lt), quant_of(rt), quant_of(ot)

        def float_conv(vals, elems, res_e):
            acc = self.float_accumulation(numpy_dtype(res_e))  # sums in the result type
            return kernels.convolution(vals[0], vals[1], accumulate=acc, **conv).astype(
                numpy_dtype(res_e))

        if lq and rq and oq:
            if rq.is_blockwise and lq.is_per_tensor and not oq.is_blockwise:
                from qcomp.interpreter.blockwise import blockwise_conv

                return blockwise_conv(self._view(lhs, lq), self._view(rhs, rq), lq, rq, oq,
                                      shape_of(ot), conv, _container(oq), self.upstream)
            if self.upstream:
                if _upstream_int_conv_applies(lq, rq, oq, rhs.ndim, conv):
                    return self._upstream_conv(lhs, rhs, lq, rq, oq, conv)
            else:
                kout = conv["kernel_out"]
                axis_map = {kout: conv["output_feature"]}
                return self._spec_contraction(
                    lhs, rhs, lq, rq, oq, ot,
                    lambda a, b: kernels.convolution(a, b, accumulate="int", **conv),
                    rhs_axis_to_result=axis_map,
                    float_fn=lambda a, b: kernels.convolution(a, b, accumulate="float", **conv),
                    centered_fn=lambda a, b, zl, zr: _centered_conv(a, b, zl, zr, conv))
        return self.qdq(float_conv, [lhs, rhs], [lt, rt], ot)

    def _upstream_conv(self, lhs, rhs, lq, rq, oq, conv) -> np.ndarray:
        lhs, rhs = self._view(lhs, lq), self._view(rhs, rq)
        zl = int(lq.zero_point)
        pad_value = int(wrap(np.int64(zl), 8, True))  # upstream pads with an i8 constant
        # the i8 x i8 -> i32 convolution upstream emits sums in i32 (upstream #2953)
        raw = kernels.convolution(lhs, rhs, accumulate="int", pad_value=pad_value, **conv)
        raw = wrap(raw, 32, True).astype(np.int64)
        off = None
        if zl != 0:
            n = rhs.ndim
            rsum = np.sum(rhs.astype(np.int64), axis=tuple(range(n - 1)))  # per output feature
            off = up.dot_zero_point_offset(0, np.broadcast_to(rsum, raw.shape), zl, 0, 0)
        cs = _combined_scale(lq, rq, oq)
        zres = int(oq.zero_point) if oq.is_per_tensor else 0
        return up.dot_rescale(raw, off, cs, zres, oq.storage_bitwidth, oq.is_signed)

    # -- spec: exact integer contraction -------------------------------------------------------
    def _spec_contraction(self, lhs, rhs, lq, rq, oq, ot, int_fn, rhs_axis_to_result, float_fn,
                          centered_fn=None):
        """Exact sum of (q_l - zp_l)(q_r - zp_r) scaled by s_l*s_r/s_res, rounded once.

        `centered_fn(lhs, rhs, zl, zr_array)` may compute the centered integer sum from
        raw storage (smaller operands keep BLAS in float32); else `int_fn` runs on
        centered int64 operands.
        """
        out_shape = shape_of(ot)
        so, zo = _params(oq, out_shape)
        if not lq.is_per_tensor or rq.is_blockwise or (rq.is_per_axis
                                                      and rq.quantized_dimension not in rhs_axis_to_result):
            # parameters vary along contracted dims: contract dequantized values in float64
            dl = uniform.dequantize(lhs, *_params(lq, lhs.shape), "f64")
            dr = uniform.dequantize(rhs, *_params(rq, rhs.shape), "f64")
            return rescale_accumulator(float_fn(dl, dr), 1.0, 1.0, so, zo, oq.storage_min,
                                       oq.storage_max, _container(oq))
        zl = int(lq.zero_point)
        zr = _params(rq, rhs.shape)[1]
        if centered_fn is not None:
            acc = centered_fn(lhs, rhs, zl, zr)
        else:
            acc = int_fn(lhs.astype(np.int64) - zl, rhs.astype(np.int64) - zr)
        sr = np.float64(rq.scale) if rq.is_per_tensor else _axis_params(
            rq.scales, rhs_axis_to_result[rq.quantized_dimension], len(out_shape))
        return rescale_accumulator(acc, lq.scale, sr, so, zo, oq.storage_min, oq.storage_max,
                                   _container(oq))


def _centered_dot(lhs, rhs, zl: int, zr, lb, rb, lc, rc) -> np.ndarray:
    """Σ (l - zl)(r - zr) = Σ l·(r - zr) - zl·Σ(r - zr), exact in int64 (raw lhs keeps BLAS small;
    with zr = 0 the raw rhs too, so no int64 copy of the weights is made)."""
    cr = _centered(rhs, zr)
    raw = kernels.dot_general(lhs, cr, lb, rb, lc, rc, "int")
    if zl == 0:
        return raw
    nb = len(lb)
    lfree = lhs.ndim - len(lb) - len(lc)
    rfree = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    perm, axes = list(rb) + rfree + list(rc), tuple(range(nb + len(rfree), rhs.ndim))
    s = cached(cr, f"sum{perm}{axes}",
               lambda v: np.sum(np.transpose(v, perm), axis=axes, dtype=np.int64))
    s = s.reshape(s.shape[:nb] + (1,) * lfree + s.shape[nb:])
    return raw - zl * s


def _centered_conv(lhs, rhs, zl: int, zr, conv) -> np.ndarray:
    """Σ over each window of (l - zl)(r - zr): lhs padded/dilated with zl, so only the
    kernel sum per output feature needs removing."""
    cr = _centered(rhs, zr)
    raw = kernels.convolution(lhs, cr, accumulate="int", pad_value=zl, **conv)
    if zl == 0:
        return raw
    # Σ_window zl·(r - zr) per output feature: sum the kernel over all but its output dim
    kout = conv["kernel_out"]
    axes = tuple(d for d in range(cr.ndim) if d != kout)
    ksum = cached(cr, f"sum{axes}", lambda v: np.sum(v, axis=axes, dtype=np.int64))
    shape = [1] * raw.ndim
    shape[conv["output_feature"]] = -1
    return raw - zl * ksum.reshape(shape)


def _centered(q: np.ndarray, zero_points) -> np.ndarray:
    """q - zero_points as exact integers: `q` itself when every zero point is 0."""
    if not np.any(zero_points):
        return q
    return q.astype(np.int64) - zero_points


def _axis_params(values: np.ndarray, axis: int, rank: int) -> np.ndarray:
    shape = [1] * rank
    shape[axis] = values.size
    return np.asarray(values, np.float64).reshape(shape)


def _combined_scale(lq, rq, oq) -> float:
    """cs = s_l * s_r / s_res; per-axis uses the first channel's scales, as upstream does."""
    sr = float(rq.scale) if rq.is_per_tensor else float(rq.scales.reshape(-1)[0])
    so = float(oq.scale) if oq.is_per_tensor else float(oq.scales.reshape(-1)[0])
    return float(lq.scale) * sr / so


def _dot_rhs_axis_map(lrank, rrank, lb, rb, lc, rc) -> dict[int, int]:
    """rhs dimension -> result dimension for batch and free rhs dims."""
    m = {d: i for i, d in enumerate(rb)}
    nlfree = lrank - len(lb) - len(lc)
    rfree = [d for d in range(rrank) if d not in rb and d not in rc]
    for j, d in enumerate(rfree):
        m[d] = len(lb) + nlfree + j
    return m


def _upstream_int_conv_applies(lq, rq, oq, rhs_rank: int, conv: dict) -> bool:
    """Conditions under which upstream lowers a quantized convolution to integers."""
    if not lq.is_per_tensor or rq.is_blockwise or oq.is_blockwise:
        return False
    if rq.is_per_tensor != oq.is_per_tensor:
        return False
    if rq.is_per_tensor:
        if int(rq.zero_point) != 0:
            return False
    else:
        if np.any(rq.zero_points != 0) or np.any(oq.zero_points != 0):
            return False
        if rq.quantized_dimension != rhs_rank - 1:
            return False
        ratios = oq.scales.reshape(-1) / rq.scales.reshape(-1)
        if np.any(np.abs((ratios - ratios[0]) / ratios[0]) > 0.001):
            return False
    if any(d != 1 for d in conv["lhs_dilation"]):
        return False
    n = len(conv["input_spatial"])
    if n not in (2, 3):
        return False
    sp = list(range(1, n + 1))
    return (conv["input_batch"] == 0 and conv["input_feature"] == n + 1
            and list(conv["input_spatial"]) == sp
            and conv["kernel_in"] == n and conv["kernel_out"] == n + 1
            and list(conv["kernel_spatial"]) == list(range(n))
            and conv["output_batch"] == 0 and conv["output_feature"] == n + 1
            and list(conv["output_spatial"]) == sp)
