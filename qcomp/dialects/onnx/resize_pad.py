"""onnx-mlir's Pad and Resize, declared the "Adding an ONNX op" way (docs/design.md).
Their shape operands (Pad's pads and axes; Resize's scales and sizes) are constants.

    Pad (opset 11+):  output = data padded by pads[i] (begin) / pads[i + n] (end) along
        axes[i] (a negative pad crops): `constant` with constant_value (0 when absent),
        `edge` (the border element), `reflect` (mirrored without repeating the border),
        `wrap` (cyclic);
    Resize (opset 11+; roi for tf_crop_and_resize):
        output[x] = sum_k w_k(x) * X[i_k(x)] along each resized axis, with
        x_original = the coordinate_transformation_mode's map of x (below), and
        nearest: one tap, x_original rounded per nearest_mode, clamped to [0, n-1];
        linear: taps floor(x_o) + {0, 1}, weights (1 - r, r), r = x_o - floor(x_o);
        cubic: taps floor(x_o) + {-1, 0, 1, 2}, Keys' weights with A = cubic_coeff_a;
        taps outside [0, n-1] are clamped (edge) or, with exclude_outside, weigh 0 and
        the others are renormalized; tf_crop_and_resize gives extrapolation_value where
        x_original is outside [0, n-1]. Coordinates and weights in float32 (onnxruntime).
        Output size: `sizes`, else floor(n * scale); `scale` is the given scale, or
        out / n when sizes are given.
        antialias = 1 (opset 18+): linear / cubic taps of the filter stretched by
        max(1, 1 / scale) (`antialias_taps`; nearest is as without, the spec's text
        naming linear and cubic only, where onnxruntime and the reference evaluator
        refuse the model). On 8-bit integers (the QOperator form) onnxruntime's
        fixed-point passes (`_fixed_point_antialias`).

Lowerings (static shapes): Pad `constant` is one `stablehlo.pad` (a negative pad is
negative edge padding; between `uniform_dequantize` and `uniform_quantize` of one
per-tensor type T, the padding value v becomes `uniform_dequantize(uniform_quantize(v,
T))`, the same bits after the final quantize, so that
stablehlo-legalize-qdq-to-quantized-op makes it the quantized `stablehlo.pad` the spec
allows); the other modes and nearest Resize take elements with a `stablehlo.gather` of
constant indices per axis; linear / cubic Resize add the taps' gathers times their
weights (`broadcast_in_dim` of a constant), per axis in order; tf_crop_and_resize then
selects extrapolation_value on a constant mask. On 8-bit integers (the QOperator form
runs Resize on the stored values) linear / cubic taps are summed in float32, clamped to
the type's range and converted back truncating, as onnxruntime's kernel does
(`static_cast<T>`). onnxruntime's QDQ transformers drop a Resize's Q / DQ pair (its
`drop_no_int16_support` rule); they leave Pad as it is.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    f32,
    i32,
)
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.facts import NO_QUANTIZATION
from qcomp.dialects.onnx import float_shapes as fs
from qcomp.dialects.onnx import to_stablehlo as ts
from qcomp.dialects.onnx.core import (
    Lowering,
    OnnxFacts,
    QdqRole,
    QuantizerForms,
    attr,
    elements_in,
    is_none,
    static_shape,
    verify_int_attr,
)
from qcomp.dialects.onnx.float_common import (
    DATA_T,
    FLOAT_T,
    OnnxOp,
    _same_element,
    _verify_ints_attr,
    _verify_str_attr,
    const_array,
)
from qcomp.dialects.quant import quantized_element
from qcomp.dialects.stablehlo.attrs import GatherDimensionNumbersAttr
from qcomp.dialects.stablehlo.format import i64_array

PAD_MODES = ("constant", "reflect", "edge", "wrap")
COORDINATE_MODES = ("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                    "asymmetric", "tf_crop_and_resize")
NEAREST_MODES = tuple("round_prefer_floor round_prefer_ceil floor ceil".split())
"""Resize's nearest_mode values (ONNX attribute values, not the ops of those names)."""


def _axes(a, rank: int) -> list[int]:
    """`a` (None: every dimension) normalised to [0, rank), not repeating."""
    axes = list(range(rank)) if a is None else [fs.axis_in(int(v), rank, "axes") for v in a]
    if len(set(axes)) != len(axes):
        raise fs.ShapeError("axes must not repeat")
    return axes


def take(b, x: SSAValue, idx: np.ndarray, axis: int) -> SSAValue:
    """`x`'s elements at the constant indices `idx` along `axis` (`stablehlo.gather`)."""
    shape = ts.shape_of(x)
    if list(idx) == list(range(shape[axis])):
        return x
    r = len(shape)
    out = (*shape[:axis], len(idx), *shape[axis + 1:])
    ids = b.constant(np.asarray(idx, np.int64).reshape(-1, 1), IntegerType(64))
    dn = GatherDimensionNumbersAttr.get(
        offset_dims=[d for d in range(r) if d != axis], collapsed_slice_dims=[axis],
        start_index_map=[axis], index_vector_dim=1)
    sizes = [1 if d == axis else n for d, n in enumerate(shape)]
    return b.op(sh.GatherOp, [x, ids], ts.element_of(x), out, dimension_numbers=dn,
                slice_sizes=i64_array(sizes))


# -- Pad --------------------------------------------------------------------------------

def pad_widths(op, shape) -> list[tuple[int, int]]:
    """(begin, end) per dimension; ShapeError when pads are not constant or do not fit."""
    p = const_array(op.pads)
    if p is None:
        raise fs.ShapeError("pads must be a constant")
    if not is_none(op.axes) and const_array(op.axes) is None:
        raise fs.ShapeError("axes must be a constant")
    axes = _axes(None if is_none(op.axes) else const_array(op.axes), len(shape))
    if len(p) != 2 * len(axes):
        raise fs.ShapeError(f"pads has {len(p)} values for {len(axes)} axes")
    widths = [(0, 0)] * len(shape)
    for i, a in enumerate(axes):
        widths[a] = (int(p[i]), int(p[i + len(axes)]))
    for d, (lo, hi) in enumerate(widths):
        if shape[d] >= 0 and shape[d] + lo + hi < 0:
            raise fs.ShapeError(f"pads {lo}, {hi} crop more than dimension {d}'s {shape[d]}")
    return widths


def pad_indices(n: int, lo: int, hi: int, mode: str) -> np.ndarray:
    """The source index of each output element along one axis (edge / reflect / wrap):
    a negative pad crops first, then NumPy's pad of the indices in that mode."""
    kept = np.arange(n)[max(-lo, 0):n - max(-hi, 0)]
    if mode == "reflect" and len(kept) < 2 and max(lo, 0) + max(hi, 0) > 0:
        raise fs.ShapeError("reflect padding needs at least 2 elements along a padded axis")
    if len(kept) == 0 and max(lo, 0) + max(hi, 0) > 0:
        raise fs.ShapeError(f"{mode} padding of an empty axis")
    return np.pad(kept, (max(lo, 0), max(hi, 0)), mode=mode)


def requantized_as_input(x: SSAValue, y: SSAValue):
    """The per-tensor quantized type T when `x` is `uniform_dequantize` of a T value and
    `y`'s one use is `uniform_quantize` to T (a QDQ group around an element-moving op),
    else None."""
    dq = x.owner
    uses = list(y.uses)
    if not isinstance(dq, sh.UniformDequantizeOp) or len(uses) != 1:
        return None
    q = uses[0].operation
    t = quantized_element(dq.operands[0].type)
    if not isinstance(q, sh.UniformQuantizeOp) or t is None or t.is_per_axis or \
            quantized_element(q.results[0].type) != t:
        return None
    return t


def pad(b, op, out):
    """`stablehlo.pad` (constant), else a `stablehlo.gather` per padded axis."""
    x = ts.static(op.data, op)
    try:
        widths = pad_widths(op, x)
        mode = attr(op, "mode")
        e = ts.element_of(op.output)
        if mode == "constant":
            value = (b.splat(0, e, ()) if is_none(op.constant_value)
                     else b.reshape(op.constant_value, ()))
            qt = requantized_as_input(op.data, op.output)
            if qt is not None:
                # Q(DQ(Q(v))) = Q(v): the pad fuses (stablehlo-legalize-qdq-to-quantized-op)
                value = b.op(sh.UniformDequantizeOp,
                             [b.op(sh.UniformQuantizeOp, [value], qt, ())], e, ())
            return b.op(sh.PadOp, [op.data, value], e, out,
                        edge_padding_low=i64_array([lo for lo, _ in widths]),
                        edge_padding_high=i64_array([hi for _, hi in widths]),
                        interior_padding=i64_array([0] * len(x)))
        y = op.data
        for d, (lo, hi) in enumerate(widths):
            if lo or hi:
                y = take(b, y, pad_indices(x[d], lo, hi, mode), d)
        return y
    except fs.ShapeError as err:
        raise ts.Unsupported(f"{ts.PASS}: Pad: {err}") from None


@irdl_op_definition
class PadOp(OnnxOp):
    """`output = data padded` (see the module docstring)."""

    name = "onnx.Pad"
    data = operand_def()
    pads = operand_def()
    constant_value = operand_def()
    axes = operand_def()
    mode = opt_prop_def(StringAttr)
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Pad", (1, 2, 11, 13, 18, 19, 21, 23, 24, 25),
        ("data", "pads", "constant_value?", "axes?"), ("output",), {"mode": "constant"}),
        Lowering(pad, constants=(1, 3)), QdqRole("keep"), QuantizerForms(qoperator="integers"))

    def check(self) -> None:
        elements_in(self, self.data, "operand #0", DATA_T)
        elements_in(self, self.pads, "operand #1", ("int64",))
        elements_in(self, self.constant_value, "operand #2", DATA_T, optional=True)
        elements_in(self, self.axes, "operand #3", ("int32", "int64"), optional=True)
        _verify_str_attr(self, "mode", PAD_MODES)
        _same_element(self, [v for v in (self.data, self.constant_value, self.output)
                             if not is_none(v)])

    def infer(self):
        x = static_shape(self.data)
        if x is None or const_array(self.pads) is None:
            return None
        return tuple(n if n < 0 else n + lo + hi
                     for n, (lo, hi) in zip(x, pad_widths(self, x)))


# -- Resize -----------------------------------------------------------------------------

def resize_plan(op, shape) -> tuple[list[int], list[float]]:
    """The output shape and the scale per dimension (module docstring)."""
    rank = len(shape)
    axes = _axes(attr(op, "axes"), rank)
    scales = None if is_none(op.scales) else const_array(op.scales)
    sizes = None if is_none(op.sizes) else const_array(op.sizes)
    if scales is not None and scales.size == 0:
        scales = None
    if (scales is None) == (sizes is None):
        raise fs.ShapeError("exactly one of scales and sizes must be a (non-empty) constant")
    out, sc = list(shape), [1.0] * rank
    if scales is not None:
        if len(scales) != len(axes):
            raise fs.ShapeError(f"scales has {len(scales)} values for {len(axes)} axes")
        for a, s in zip(axes, np.float32(scales)):
            if s <= 0:
                raise fs.ShapeError("scales must be positive")
            sc[a] = float(s)
            out[a] = int(np.floor(np.float32(shape[a]) * s)) if shape[a] >= 0 else -1
        return out, sc
    if len(sizes) != len(axes):
        raise fs.ShapeError(f"sizes has {len(sizes)} values for {len(axes)} axes")
    policy = attr(op, "keep_aspect_ratio_policy")
    want = {a: int(v) for a, v in zip(axes, sizes)}
    if policy != "stretch":
        ratios = [np.float32(want[a]) / np.float32(shape[a]) for a in axes]
        r = min(ratios) if policy == "not_larger" else max(ratios)
        for a in axes:
            want[a] = int(np.floor(np.float32(shape[a]) * r + np.float32(0.5)))
            sc[a] = float(r)
    for a in axes:
        out[a] = want[a]
        if policy == "stretch":
            sc[a] = float(np.float32(want[a]) / np.float32(shape[a]))
    return out, sc


def original_coordinates(op, n: int, m: int, scale: float, roi=(0.0, 1.0)) -> np.ndarray:
    """x_original of each output index 0..m-1 along an axis of n (float32); `roi`: the
    axis's (start, end) for tf_crop_and_resize."""
    f = np.float32
    x, s, n32, m32 = np.arange(m, dtype=f), f(scale), f(n), f(m)
    mode = attr(op, "coordinate_transformation_mode")
    if mode == "tf_crop_and_resize":
        lo, hi = f(roi[0]), f(roi[1])
        if m == 1:
            return np.full(m, f(0.5) * (lo + hi) * (n32 - f(1)), f)
        return lo * (n32 - f(1)) + x * (hi - lo) * (n32 - f(1)) / (m32 - f(1))
    if mode == "half_pixel":
        return (x + f(0.5)) / s - f(0.5)
    if mode == "half_pixel_symmetric":
        adjustment = m32 / (s * n32)
        offset = n32 / f(2) * (f(1) - adjustment)
        return offset + (x + f(0.5)) / s - f(0.5)
    if mode == "pytorch_half_pixel":
        return (x + f(0.5)) / s - f(0.5) if m > 1 else np.zeros(m, f)
    if mode == "align_corners":
        return x * (n32 - f(1)) / (m32 - f(1)) if m > 1 else np.zeros(m, f)
    if mode == "asymmetric":
        return x / s
    raise ts.Unsupported(f"{ts.PASS}: Resize: coordinate_transformation_mode '{mode}'")


def cubic_weights(r: np.ndarray, a: float) -> np.ndarray:
    """Keys' cubic convolution weights of the taps -1, 0, 1, 2 at fraction r."""
    f = np.float32
    a = f(a)

    def near(t):  # |t| <= 1
        return ((a + f(2)) * t - (a + f(3))) * t * t + f(1)

    def far(t):  # 1 < |t| < 2
        return ((a * t - f(5) * a) * t + f(8) * a) * t - f(4) * a

    return np.stack([far(r + f(1)), near(r), near(f(1) - r), far(f(2) - r)])


def rois(op, rank: int) -> list[tuple[float, float]]:
    """(start, end) per dimension from `roi` (tf_crop_and_resize; else (0, 1))."""
    out = [(0.0, 1.0)] * rank
    if attr(op, "coordinate_transformation_mode") != "tf_crop_and_resize":
        return out
    r = None if is_none(op.roi) else const_array(op.roi)
    axes = _axes(attr(op, "axes"), rank)
    if r is None or len(r) != 2 * len(axes):
        raise fs.ShapeError(f"tf_crop_and_resize needs a constant roi of {2 * len(axes)} values")
    for i, a in enumerate(axes):
        out[a] = (float(r[i]), float(r[i + len(axes)]))
    return out


def taps(op, n: int, m: int, scale: float, roi=(0.0, 1.0)
         ) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """Per tap, the source indices of the m outputs and their weights (None: nearest)."""
    xo = original_coordinates(op, n, m, scale, roi)
    mode = attr(op, "mode")
    lo = np.floor(xo)
    if mode == "nearest":
        nm = attr(op, "nearest_mode")
        frac = xo - lo
        if nm == "round_prefer_floor":
            i = np.where(frac <= 0.5, lo, lo + 1)
        elif nm == "round_prefer_ceil":
            i = np.where(frac < 0.5, lo, lo + 1)
        elif nm == "floor":
            i = lo
        else:
            i = np.ceil(xo)
        return [(np.clip(i, 0, n - 1).astype(np.int64), None)]
    if attr(op, "antialias"):
        return antialias_taps(op, n, scale, xo)
    r = (xo - lo).astype(np.float32)
    if mode == "linear":
        offsets, w = (0, 1), np.stack([np.float32(1) - r, r])
    else:
        offsets, w = (-1, 0, 1, 2), cubic_weights(r, attr(op, "cubic_coeff_a"))
    idx = np.stack([lo.astype(np.int64) + k for k in offsets])
    if attr(op, "exclude_outside"):
        w = np.where((idx >= 0) & (idx < n), w, np.float32(0))
        with np.errstate(divide="ignore", invalid="ignore"):  # no tap inside: NaN, as ONNX's
            w = (w / w.sum(axis=0, dtype=np.float32)).astype(np.float32)
    return [(np.clip(i, 0, n - 1), wk) for i, wk in zip(idx, w)]


def antialias_taps(op, n: int, scale: float, xo: np.ndarray
                   ) -> list[tuple[np.ndarray, np.ndarray]]:
    """antialias = 1 (linear / cubic): onnxruntime's (Pillow's) filter, in float32. The
    filter's support widens by 1 / scale when downscaling: support = s0 / 2 * max(1,
    1 / scale) (s0 = 2 linear, 4 cubic); an output at x_original = xo reads the
    sources x in [floor(xo + 1 - support), floor(xo + 1 + support)) with weights
    filter((x - xo) * min(1, scale)) (the triangle 1 - |t|, or Keys' cubic of
    cubic_coeff_a), normalized to sum 1 (times the reciprocal of their sum); sources
    outside [0, n - 1] read the border (edge), or with exclude_outside weigh 0 before
    the normalization."""
    f = np.float32
    inverse = f(1) / f(scale)
    size = f(2) if attr(op, "mode") == "linear" else f(4)
    support = size * f(0.5) * inverse if inverse >= f(1) else size * f(0.5)
    ratio = f(1) / inverse if inverse >= f(1) else f(1)
    center = xo.astype(f) + f(0.5)
    first = np.floor(center - support + f(0.5)).astype(np.int64)
    count = np.floor(center + support + f(0.5)).astype(np.int64) - first
    outside = bool(attr(op, "exclude_outside"))
    idx = first + np.arange(int(count.max(initial=1)))[:, None]
    t = np.abs(((idx.astype(f) - center) + f(0.5)) * ratio)
    if attr(op, "mode") == "linear":
        w = np.where(t < f(1), f(1) - t, f(0))
    else:
        a = f(attr(op, "cubic_coeff_a"))
        w = np.where(t < f(1), ((a + f(2)) * t - (a + f(3))) * t * t + f(1),
                     np.where(t < f(2), (((t - f(5)) * t + f(8)) * t - f(4)) * a, f(0)))
    w = np.where(np.arange(len(idx))[:, None] < count, w, f(0)).astype(f)
    if outside:
        w = np.where((idx >= 0) & (idx < n), w, f(0))
    total = np.zeros(len(xo), f)
    for wk in w:  # in order, as onnxruntime sums them
        total = (total + wk).astype(f)
    w = (w * np.where(total == 0, f(1), f(1) / total)).astype(f)
    return [(np.clip(i, 0, n - 1), wk) for i, wk in zip(idx, w)]


def resize(b, op, out):
    """Per resized axis: a gather (nearest), else the taps' gathers times their weights,
    added (module docstring)."""
    x = ts.static(op.X, op)
    try:
        _, scales = resize_plan(op, x)
        roi = rois(op, len(x))
    except fs.ShapeError as err:
        raise ts.Unsupported(f"{ts.PASS}: Resize: {err}") from None
    e = ts.element_of(op.Y)
    integer = isinstance(e, IntegerType)
    if integer and attr(op, "antialias") and attr(op, "mode") != "nearest":
        return _fixed_point_antialias(b, op, x, out, scales, roi)
    y = op.X
    if integer and attr(op, "mode") != "nearest":
        y = b.convert(y, f32)
    crop = attr(op, "coordinate_transformation_mode") == "tf_crop_and_resize"
    outside = np.zeros(out, bool)
    for d, (n, m) in enumerate(zip(x, out)):
        if n == m and scales[d] == 1.0 and roi[d] == (0.0, 1.0):
            continue
        if crop:  # tf_crop_and_resize: outside [0, n - 1] is extrapolation_value
            xo = original_coordinates(op, n, m, scales[d], roi[d])
            view = [1] * len(out)
            view[d] = m
            outside |= ((xo < 0) | (xo > n - 1)).reshape(view)
        ts_ = taps(op, n, m, scales[d], roi[d])
        if ts_[0][1] is None:
            y = take(b, y, ts_[0][0], d)
            continue
        shape = (*ts.shape_of(y)[:d], m, *ts.shape_of(y)[d + 1:])
        fe = ts.element_of(y)
        total = None
        for idx, w in ts_:
            weight = b.broadcast_in_dim(b.constant(w, fe), shape, [d])
            term = b.op(sh.MultiplyOp, [take(b, y, idx, d), weight], fe, shape)
            total = term if total is None else b.op(sh.AddOp, [total, term], fe, shape)
        y = total
    if outside.any():
        fe = ts.element_of(y)
        mask = b.constant(outside, IntegerType(1))
        y = b.op(sh.SelectOp, [mask, b.splat(attr(op, "extrapolation_value"), fe, tuple(out)), y],
                 fe, tuple(out))
    if integer and attr(op, "mode") != "nearest":
        lo, hi = ts.lowest_highest(e)
        y = b.clamp(y, float(lo), float(hi))
        y = b.convert(y, e)
    return y


FIXED_BITS = 22
"""onnxruntime's antialias weights on 8-bit integers: round(w * 2**22) (`mag_factor`)."""


def _fixed_point_antialias(b, op, x, out, scales, roi):
    """antialias on 8-bit integers as onnxruntime's kernel: per resized axis, the last
    first, `clamp((2**21 + sum_k q[i_k] * round(w_k * 2**22)) >> 22)` in int32 to the
    type's range (round half away from zero, as std::round), each pass's result
    stored in the type."""
    if attr(op, "coordinate_transformation_mode") == "tf_crop_and_resize":
        raise ts.Unsupported(f"{ts.PASS}: Resize: antialias tf_crop_and_resize on integers "
                             "is not lowered")
    e = ts.element_of(op.Y)
    lo, hi = (int(v) for v in ts.lowest_highest(e))
    y = op.X
    for d in reversed(range(len(x))):
        n, m = x[d], out[d]
        if n == m:  # onnxruntime copies an axis of unchanged length
            continue
        shape = (*ts.shape_of(y)[:d], m, *ts.shape_of(y)[d + 1:])
        wide = b.convert(y, i32)
        total = b.splat(1 << (FIXED_BITS - 1), i32, shape)
        for idx, w in taps(op, n, m, scales[d], roi[d]):
            w64 = w.astype(np.float64) * (1 << FIXED_BITS)
            fixed = (np.sign(w64) * np.floor(np.abs(w64) + 0.5)).astype(np.int32)
            weight = b.broadcast_in_dim(b.constant(fixed, i32), shape, [d])
            term = b.op(sh.MultiplyOp, [take(b, wide, idx, d), weight], i32, shape)
            total = b.op(sh.AddOp, [total, term], i32, shape)
        shifted = b.op(sh.ShiftRightArithmeticOp, [total, b.splat(FIXED_BITS, i32, shape)], i32,
                       shape)
        y = b.convert(b.clamp(shifted, lo, hi), e)
    return y


def _nearest_only(op: Operation) -> str | None:
    """onnxruntime 1.32 drops a Resize's DequantizeLinear / QuantizeLinear only in
    `nearest` mode (its optimized session keeps linear and cubic groups in float: they
    compute new values, nearest only picks input elements)."""
    mode = attr(op, "mode")
    return None if mode == "nearest" else \
        f"mode {mode}: onnxruntime drops the pair only in nearest mode (it computes new values)"


@irdl_op_definition
class ResizeOp(OnnxOp):
    """`Y = X resized` (see the module docstring)."""

    name = "onnx.Resize"
    X = operand_def()
    roi = operand_def()
    scales = operand_def()
    sizes = operand_def()
    antialias = opt_prop_def(IntegerAttr)
    axes = opt_prop_def(ArrayAttr)
    coordinate_transformation_mode = opt_prop_def(StringAttr)
    cubic_coeff_a = opt_prop_def(FloatAttr)
    exclude_outside = opt_prop_def(IntegerAttr)
    extrapolation_value = opt_prop_def(FloatAttr)
    keep_aspect_ratio_policy = opt_prop_def(StringAttr)
    mode = opt_prop_def(StringAttr)
    nearest_mode = opt_prop_def(StringAttr)
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Resize", (10, 11, 13, 18, 19), ("X", "roi?", "scales?", "sizes?"), ("Y",),
        {"antialias": 0, "axes": None, "coordinate_transformation_mode": "half_pixel",
         "cubic_coeff_a": -0.75, "exclude_outside": 0, "extrapolation_value": 0.0,
         "keep_aspect_ratio_policy": "stretch", "mode": "nearest",
         "nearest_mode": "round_prefer_floor"}),
        Lowering(resize, constants=(1, 2, 3)),
        QdqRole("drop", data_inputs=(0,), condition=_nearest_only,
                condition_doc="nearest mode only; linear and cubic kept in float"))

    def check(self) -> None:
        elements_in(self, self.X, "operand #0", DATA_T)
        elements_in(self, self.roi, "operand #1", FLOAT_T, optional=True)
        elements_in(self, self.scales, "operand #2", ("float",), optional=True)
        elements_in(self, self.sizes, "operand #3", ("int64",), optional=True)
        _verify_str_attr(self, "mode", ("nearest", "linear", "cubic"))
        _verify_str_attr(self, "coordinate_transformation_mode", COORDINATE_MODES)
        _verify_str_attr(self, "nearest_mode", NEAREST_MODES)
        _verify_str_attr(self, "keep_aspect_ratio_policy", ("stretch", "not_larger",
                                                            "not_smaller"))
        verify_int_attr(self, "antialias", (0, 1))
        verify_int_attr(self, "exclude_outside", (0, 1))
        _verify_ints_attr(self, "axes")
        _same_element(self, [self.X, self.Y])

    def infer(self):
        x = static_shape(self.X)
        if x is None:
            return None
        if (not is_none(self.scales) and const_array(self.scales) is None) or \
                (not is_none(self.sizes) and const_array(self.sizes) is None):
            return None
        return tuple(resize_plan(self, x)[0])


RESIZE_PAD_OPS: list[type[IRDLOperation]] = [PadOp, ResizeOp]
