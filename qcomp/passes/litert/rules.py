"""The spec's rules, checked on one recognised TFLite operator (`recognise.Match`).

Each problem is `(op, message)`, the message naming the operator, the part and the
rule: `litert-verify-int8: CONV_2D weight [weight-zero-point]: ...`. Rules:

    activation-type         activations are signed i8 (i16 in 16x8 mode), quantized
    activation-granularity  activations are per-tensor
    activation-range        activations use the whole storage range [-128, 127]
    activation-zero-point   zero point in [-128, 127]; 0 in 16x8 mode
    weight-type             weights are signed i8, quantized
    weight-granularity      per-tensor or per-axis (not sub-channel)
    weight-zero-point       every weight zero point is 0 (symmetric)
    weight-range            stored weights lie in [-127, 127]
    weight-axis             per-axis on the output channel (see `weight_axes`)
    bias-type               bias is i32 (i32 or i64 in 16x8 mode), quantized; a 16x8
                            bias may be raw i64 integers (MLIR's quantized types
                            store at most 32 bits), its scale then implied
    bias-zero-point         bias zero points are 0
    bias-scale              bias scale[c] = input scale * weight scale[c]
    accumulator             an i32 dot/convolution result has bias's parameters
    fixed-output            the spec's fixed (scale, zero_point)
    same-params             inputs and output share (scale, zero_point)
    int16x8                 an op with int16 activations that has no 16x8 kernel,
                            or int8 and int16 activations mixed
    op-table                a quantized op that is no operator of the table

Scales compare with a relative tolerance of 1e-6 (TFLite stores scales as float32;
the product input scale * weight scale rounded to float32 differs from the exact one
by at most 6e-8 relatively). Zero points compare exactly.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import UniformQuantizedType, quantized_element
from qcomp.passes.litert.recognise import MOVES, Match, peel
from qcomp.passes.quant_to_math.dot import constant_values

PASS = "litert-verify-int8"
REL = 1e-6
_FRACTIONS = {1 / 256: "1/256", 1 / 128: "1/128", 16 / 256: "16/256", 1 / 32768: "1/32768"}

Problem = tuple[Operation, str]


def close(a, b) -> np.ndarray:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return np.abs(a - b) <= REL * np.maximum(np.abs(a), np.abs(b))


def _num(x: float) -> str:
    frac = next((t for v, t in _FRACTIONS.items() if x == v), None)
    return f"{x:.9g}" + (f" ({frac})" if frac else "")


def _params(q: UniformQuantizedType) -> str:
    return f"({_num(q.scale)}, {q.zero_point})"


def weight_axes(m: Match) -> tuple[set[int], str]:
    """The weight dimensions that are the output channel, and their name.

    dot_general: the rhs dimensions that are neither contracting nor batching (TFLite's
    [out, in] weight, dim 0). dot: dimension 1 of a 2-D rhs. convolution (CONV_2D and
    DEPTHWISE_CONV_2D): kernel_output_feature_dimension; for a depthwise convolution
    (feature_group_count = input features) the kernel is [H, W, 1, C*M] in HWIO, whose
    `o` dimension is TFLite's [1, H, W, C*M] dimension 3. A `composite "tfl.*"` has
    TFLite's layouts and the spec's dimensions: 0 ([out, in], OHWI), 3 (depthwise)."""
    op = m.anchor
    rank = len(m.weight.type.get_shape())
    if isinstance(op, sh.ConvolutionOp):
        return {op.dimension_numbers.kernel_output_feature_dimension}, \
            "kernel_output_feature_dimension"
    if isinstance(op, sh.DotGeneralOp):
        nums = op.dot_dimension_numbers
        used = set(nums.rhs_contracting_dimensions) | set(nums.rhs_batching_dimensions)
        return set(range(rank)) - used, "the rhs dimension that is neither contracting nor batching"
    if isinstance(op, sh.DotOp):
        return ({1} if rank == 2 else set()), "the rhs dimension 1"
    # a composite "tfl.*" takes TFLite's own layouts: the spec's dimensions
    if m.row.weights == "depthwise":
        return {3}, "TFLite's [1, H, W, C*M] dimension"
    return {0}, "TFLite's [out, in] / OHWI dimension"


class Checker:
    """Checks matches in program order; `seen` keeps each activation value's own rules
    from being reported at every user."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.seen: set[SSAValue] = set()

    def check(self, m: Match) -> None:
        row = m.row
        acts = [v for v in [*m.inputs, *([m.output] if row.output != "none" and m.output
                                         is not None else [])]
                if quantized_element(v.type) is not None]
        widths = {quantized_element(v.type).storage_bitwidth for v in acts
                  if not quantized_element(v.type).is_float_storage}
        converts = row.tflite in ("QUANTIZE", "DEQUANTIZE")
        wide = 16 in widths
        err = self._reporter(m)
        if wide and not converts:
            if not row.int16:
                err(m.anchor, "", "int16x8", "has no 16x8 kernel: its activations must be "
                    "i8")
            elif 8 in widths:
                err(m.anchor, "", "int16x8", "mixes i8 and i16 activations; in 16x8 mode "
                    "every activation is i16")
        for i, v in enumerate(m.inputs):
            width = self._width(v) if converts else (16 if wide else 8)
            part = "input" if len(m.inputs) == 1 else f"input {i}"
            if quantized_element(v.type) is None:
                if not (row.tflite == "QUANTIZE"):
                    err(m.anchor, part, "activation-type",
                        f"must be quantized i{width}, got {v.type.element_type}")
                continue
            self.activation(v, m.anchor, part, width, err)
        if row.weights is not None and m.weight is not None:
            self.weight(m, err)
            self.bias_and_accumulator(m, err, wide)
        out = m.output
        if row.output == "none" or out is None:
            return
        where = m.output_op or m.anchor
        width = self._width(out) if converts else (16 if wide else 8)
        if quantized_element(out.type) is None:
            err(where, "output", "activation-type", f"must be quantized i{width}, got "
                f"{getattr(out.type, 'element_type', out.type)}")
            return
        self.activation(out, where, "output", width, err)
        q = quantized_element(out.type)
        if row.output == "fixed" and q.is_per_tensor:
            want = row.fixed16 if width == 16 else row.fixed
            if want is not None and not (close(q.scale, want[0]) and q.zero_point == want[1]):
                err(where, "output", "fixed-output", f"(scale, zero_point) must be "
                    f"({_num(want[0])}, {want[1]}), got {_params(q)}")
        if row.output == "same" and q.is_per_tensor:
            for i, v in enumerate(m.inputs):
                qi = quantized_element(v.type)
                if qi is None or not qi.is_per_tensor:
                    continue
                if not (close(qi.scale, q.scale) and qi.zero_point == q.zero_point):
                    name = "input" if len(m.inputs) == 1 else f"input {i}"
                    err(where, "output", "same-params", f"(scale, zero_point) {_params(q)} "
                        f"differs from {name}'s {_params(qi)}")
                    break  # one report per op

    # -- parts ----------------------------------------------------------------------
    def _reporter(self, m: Match) -> Callable[[Operation, str, str, str], None]:
        def err(op: Operation, part: str, rule: str, text: str) -> None:
            what = f"{m.row.tflite} {part}".rstrip()
            self.problems.append((op, f"{PASS}: {what} [{rule}]: {text}"))
        return err

    @staticmethod
    def _width(v: SSAValue) -> int:
        q = quantized_element(v.type)
        return 16 if q is not None and not q.is_float_storage and q.storage_bitwidth == 16 else 8

    def activation(self, v: SSAValue, op: Operation, part: str, width: int, err) -> None:
        if v in self.seen:
            return
        self.seen.add(v)
        q = quantized_element(v.type)
        if q.is_float_storage or q.storage_bitwidth != width or not q.is_signed:
            err(op, part, "activation-type", f"must be i{width}, got {q.storage_spelling}")
            return
        if not q.is_per_tensor:
            err(op, part, "activation-granularity", "must be per-tensor")
            return
        lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
        if (q.storage_min, q.storage_max) != (lo, hi):
            err(op, part, "activation-range", f"storage range must be [{lo}, {hi}], got "
                f"[{q.storage_min}, {q.storage_max}]")
        if width == 16 and q.zero_point != 0:
            err(op, part, "activation-zero-point", f"16x8 mode: i16 activations are "
                f"symmetric, zero point must be 0, got {q.zero_point}")
        elif not lo <= q.zero_point <= hi:
            err(op, part, "activation-zero-point", f"zero point must lie in [{lo}, {hi}], "
                f"got {q.zero_point}")

    def weight(self, m: Match, err) -> None:
        w = m.weight
        q = quantized_element(w.type)
        if q is None or q.is_float_storage or q.storage_bitwidth != 8 or not q.is_signed:
            got = q.storage_spelling if q is not None else w.type.element_type
            err(m.anchor, "weight", "weight-type", f"must be quantized i8, got {got}")
            return
        if q.is_blockwise:
            err(m.anchor, "weight", "weight-granularity", "must be per-tensor or per-axis, "
                "got sub-channel")
            return
        zps = q.zero_points.reshape(-1)
        if np.any(zps != 0):
            c = int(np.flatnonzero(zps)[0])
            where = f" (channel {c})" if q.is_per_axis else ""
            err(m.anchor, "weight", "weight-zero-point", f"weights are symmetric: zero "
                f"point must be 0, got {int(zps[c])}{where}")
        values = constant_values(peel(w, (*MOVES, sh.TransposeOp)))
        if values is not None:
            bad = values[(values < -127) | (values > 127)]
            if bad.size:
                err(m.anchor, "weight", "weight-range", f"stored weights must lie in "
                    f"[-127, 127], got {int(bad.reshape(-1)[0])}")
        elif q.storage_min < -127:
            err(m.anchor, "weight", "weight-range", f"storage range must be within "
                f"[-127, 127], got [{q.storage_min}, {q.storage_max}] (declare i8<-127:127>)")
        if q.is_per_axis:
            axes, what = weight_axes(m)
            if q.quantized_dimension not in axes:
                want = ", ".join(str(a) for a in sorted(axes)) or "none"
                err(m.anchor, "weight", "weight-axis", f"per-axis on dimension "
                    f"{q.quantized_dimension}, must be on the output channel: {what} "
                    f"({want})")

    def bias_and_accumulator(self, m: Match, err, wide: bool) -> None:
        qi = quantized_element(m.inputs[0].type)
        qw = quantized_element(m.weight.type)
        expected = None
        if qi is not None and qi.is_per_tensor and qw is not None and not qw.is_blockwise:
            expected = qi.scale * qw.scales.reshape(-1)
        raw64 = wide and m.bias is not None and quantized_element(m.bias.type) is None \
            and getattr(m.bias.type, "element_type", None) == IntegerType(64)
        if m.bias is not None and not raw64:  # MLIR's quant types hold <= 32 bits
            self._scaled(m.bias, m.bias_op or m.anchor, "bias", expected, err,
                         ((32, 64) if wide else (32,)))
        if m.accumulator is not None:
            self._scaled(m.accumulator, m.anchor, "accumulator", expected, err, (32,))

    def _scaled(self, v: SSAValue, op: Operation, part: str, expected, err,
                widths: tuple[int, ...]) -> None:
        """bias / accumulator: (input scale * weight scale[c], 0), iN storage."""
        rule = "accumulator" if part == "accumulator" else "bias"
        q = quantized_element(v.type)
        names = " or ".join(f"i{w}" for w in widths)
        if q is None or q.is_float_storage or q.storage_bitwidth not in widths:
            got = q.storage_spelling if q is not None else getattr(v.type, "element_type", v.type)
            err(op, part, f"{rule}-type" if rule == "bias" else rule,
                f"must be quantized {names}, got {got}")
            return
        zps = q.zero_points.reshape(-1)
        if np.any(zps != 0):
            err(op, part, f"{rule}-zero-point" if rule == "bias" else rule,
                f"zero point must be 0, got {int(zps[np.flatnonzero(zps)[0]])}")
        if expected is None:
            return
        got = q.scales.reshape(-1)
        if got.size not in (1, expected.size) and expected.size != 1:
            err(op, part, f"{rule}-scale" if rule == "bias" else rule,
                f"has {got.size} scales, the weights {expected.size} channels")
            return
        a, b = np.broadcast_arrays(got, expected)
        ok = close(a, b)
        if not ok.all():
            c = int(np.flatnonzero(~ok)[0])
            where = f"[{c}]" if a.size > 1 else ""
            err(op, part, f"{rule}-scale" if rule == "bias" else rule,
                f"scale{where} must be input scale * weight scale{where} = "
                f"{b[c]:.9g}, got {a[c]:.9g}")


def check_unknown(op: Operation) -> Problem:
    return (op, f"{PASS}: '{op.name}' on quantized types is no operator of the LiteRT int8 "
                f"table [op-table]")
