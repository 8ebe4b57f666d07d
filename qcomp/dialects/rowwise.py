"""The `rowwise` dialect: Caffe2's fused rowwise quantization and the bag reductions
that read it (the storage of embedding tables; PyTorch's `embedding_bag_*` ops).

Formats and formulas: `qcomp.quant.rowwise` (8-bit, 4/2-bit, fake 4/2-bit),
`qcomp.quant.rowwise_rand` (the random format), `qcomp.quant.rowwise_bags`. Fused rows
are `ui8` tensors; a float input `[..., C]` is rows x C and its fused form `[..., W]`:

    %q = rowwise.float_to_fused_8bit %x : tensor<5x2x4xf32> -> tensor<5x2x12xui8>
    %y = rowwise.fused_4bit_to_float %p : tensor<3x8xui8> -> tensor<3x8xf32>
    %r = rowwise.float_to_fused_rand %x {bitwidth = 2 : i64, random = true, seed = 7 : i64}
           : tensor<1x5xf32> -> tensor<1x12xui8>
    %s = rowwise.sparse_lengths_sum %t, %idx, %len {bits = 4 : i64}
           : (tensor<10x8xui8>, tensor<6xi64>, tensor<3xi32>) -> tensor<3x8xf32>
    %w = rowwise.sparse_lengths_weighted_sum %t, %wt, %idx, %len {bits = 8 : i64} : ...
    %e = rowwise.embedding_bag_rowwise_offsets %t, %idx, %off weights %psw
           {bits = 8 : i64, include_last_offset = true} : (...) -> tensor<2x4xf32>
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    BoolAttr,
    Float16Type,
    Float32Type,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.irdl.operations import ParsePropInAttrDict
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.facts import own_lowering
from qcomp.dialects.stablehlo.kinds import type_text
from qcomp.quant.rowwise import fused_width, packed_bytes
from qcomp.quant.rowwise_rand import rand_width

UNARY_FORMAT = "$input attr-dict `:` type($input) `->` type($output)"
ROWWISE = own_lowering(per_axis=False)
"""Rowwise ops carry their own quantization (no `!quant` types)."""


def _static_tensor(op: IRDLOperation, t: Attribute, what: str) -> TensorType:
    if not isinstance(t, TensorType) or any(d < 0 for d in t.get_shape()):
        raise VerifyException(f"'{op.name}' {what} must be a statically shaped tensor, got "
                              f"'{type_text(t)}'")
    return t


def _float(op: IRDLOperation, t: Attribute, what: str) -> TensorType:
    t = _static_tensor(op, t, what)
    if not isinstance(t.element_type, Float32Type | Float16Type) or t.get_num_dims() == 0:
        raise VerifyException(f"'{op.name}' {what} must be a tensor of f32 or f16 with at least "
                              f"one dimension, got '{type_text(t)}'")
    return t


def _fused(op: IRDLOperation, t: Attribute, what: str) -> TensorType:
    t = _static_tensor(op, t, what)
    e = t.element_type
    if (not isinstance(e, IntegerType) or e.width.data != 8
            or e.signedness.data != Signedness.UNSIGNED or t.get_num_dims() == 0):
        raise VerifyException(f"'{op.name}' {what} must be a tensor of ui8 (fused rows) with at "
                              f"least one dimension, got '{type_text(t)}'")
    return t


def _index(op: IRDLOperation, t: Attribute, what: str) -> TensorType:
    t = _static_tensor(op, t, what)
    e = t.element_type
    if (t.get_num_dims() != 1 or not isinstance(e, IntegerType) or e.width.data not in (32, 64)
            or e.signedness.data == Signedness.UNSIGNED):
        raise VerifyException(f"'{op.name}' {what} must be a 1-d tensor of i32 or i64, got "
                              f"'{type_text(t)}'")
    return t


def _rows_match(op: IRDLOperation, src: TensorType, dst: TensorType, width: int, how: str) -> None:
    want = (*src.get_shape()[:-1], width)
    if tuple(dst.get_shape()) != want:
        raise VerifyException(
            f"'{op.name}' result shape must be {list(want)} ({how}), got "
            f"'{type_text(dst)}'")


def _int(a: IntegerAttr | None, default: int = 0) -> int:
    return default if a is None else int(a.value.data)


class _Unary(IRDLOperation):
    input = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure(), ROWWISE)
    assembly_format = UNARY_FORMAT
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, input: SSAValue, result_type: Attribute,
                 properties: dict[str, Attribute] | None = None):
        super().__init__(operands=[input], result_types=[result_type], properties=properties or {})


class _Quantize(_Unary):
    """float rows -> fused rows."""

    BITS: ClassVar[int] = 8

    def _width(self, cols: int) -> tuple[int, str]:
        w = fused_width(cols, self.BITS)
        if self.BITS == 8:
            return w, f"{cols} + 8 bytes per row of {cols} columns"
        return w, f"ceil({cols} * {self.BITS} / 8) + 4 = {w} bytes per row of {cols} columns"

    def verify_(self) -> None:
        x = _float(self, self.input.type, "operand")
        y = _fused(self, self.output.type, "result")
        w, how = self._width(x.get_shape()[-1])
        _rows_match(self, x, y, w, how)


class _Dequantize(_Unary):
    """fused rows -> float rows."""

    BITS: ClassVar[int] = 8

    def verify_(self) -> None:
        x = _fused(self, self.input.type, "operand")
        y = _float(self, self.output.type, "result")
        cols = y.get_shape()[-1]
        w = fused_width(cols, self.BITS)
        if self.BITS == 8:
            how = f"{cols} + 8 bytes per row of {cols} columns"
        else:
            how = f"ceil({cols} * {self.BITS} / 8) + 4 = {w} bytes per row of {cols} columns"
        if tuple(x.get_shape()[:-1]) != tuple(y.get_shape()[:-1]) or x.get_shape()[-1] != w:
            raise VerifyException(
                f"'{self.name}' operand shape must be {[*y.get_shape()[:-1], w]} ({how}), got "
                f"'{type_text(x)}'")


@irdl_op_definition
class FloatToFused8BitRowwiseQuantizedOp(_Quantize):
    """Caffe2's FloatToFused8BitRowwiseQuantized: C uint8 values, f32 scale, f32 bias."""

    name = "rowwise.float_to_fused_8bit"


@irdl_op_definition
class Fused8BitRowwiseQuantizedToFloatOp(_Dequantize):
    """Caffe2's Fused8BitRowwiseQuantizedToFloat: `fma(q, scale, bias)`; also reads the
    fake 4/2-bit format."""

    name = "rowwise.fused_8bit_to_float"


@irdl_op_definition
class FloatToFused4BitRowwiseQuantizedOp(_Quantize):
    """Caffe2's FloatToFused4BitRowwiseQuantized: packed nibbles, f16 scale and bias."""

    name = "rowwise.float_to_fused_4bit"
    BITS: ClassVar[int] = 4


@irdl_op_definition
class FloatToFused2BitRowwiseQuantizedOp(_Quantize):
    """Caffe2's FloatToFused2BitRowwiseQuantized: packed crumbs, f16 scale and bias."""

    name = "rowwise.float_to_fused_2bit"
    BITS: ClassVar[int] = 2


@irdl_op_definition
class Fused4BitRowwiseQuantizedToFloatOp(_Dequantize):
    """Caffe2's Fused4BitRowwiseQuantizedToFloat: `fma(scale, q, bias)`."""

    name = "rowwise.fused_4bit_to_float"
    BITS: ClassVar[int] = 4


@irdl_op_definition
class Fused2BitRowwiseQuantizedToFloatOp(_Dequantize):
    """Caffe2's Fused2BitRowwiseQuantizedToFloat: `fma(scale, q, bias)`."""

    name = "rowwise.fused_2bit_to_float"
    BITS: ClassVar[int] = 2


class _QuantizeFake(_Quantize):
    def _width(self, cols: int) -> tuple[int, str]:
        return cols + 8, f"the 8-bit layout: {cols} + 8 bytes per row of {cols} columns"


@irdl_op_definition
class FloatToFused4BitFakeRowwiseQuantizedOp(_QuantizeFake):
    """Caffe2's FloatToFused4BitFakeRowwiseQuantized: 4-bit values in the 8-bit layout."""

    name = "rowwise.float_to_fused_4bit_fake"
    BITS: ClassVar[int] = 4


@irdl_op_definition
class FloatToFused2BitFakeRowwiseQuantizedOp(_QuantizeFake):
    """Caffe2's FloatToFused2BitFakeRowwiseQuantized: 2-bit values in the 8-bit layout."""

    name = "rowwise.float_to_fused_2bit_fake"
    BITS: ClassVar[int] = 2


def _check_bitwidth(op: IRDLOperation, bits: int, allowed: tuple[int, ...], what: str) -> None:
    if bits not in allowed:
        choices = ", ".join(str(b) for b in allowed[:-1]) + f" or {allowed[-1]}"
        raise VerifyException(f"'{op.name}' {what} must be {choices}, got {bits}")


@irdl_op_definition
class FloatToFusedRandRowwiseQuantizedOp(_Unary):
    """Caffe2's FloatToFusedRandRowwiseQuantized: `[bitwidth][tail][min][max][data]`,
    segment-interleaved packing, stochastic rounding from SplitMix64(`seed`) when
    `random` (default true), round to nearest even otherwise."""

    name = "rowwise.float_to_fused_rand"
    bitwidth_attr = prop_def(IntegerAttr, prop_name="bitwidth")
    random_attr = opt_prop_def(BoolAttr, prop_name="random")
    seed_attr = opt_prop_def(IntegerAttr, prop_name="seed")

    @property
    def bitwidth(self) -> int:
        return _int(self.bitwidth_attr)

    @property
    def random(self) -> bool:
        return True if self.random_attr is None else bool(self.random_attr.value.data)

    @property
    def seed(self) -> int:
        return _int(self.seed_attr)

    def verify_(self) -> None:
        _check_bitwidth(self, self.bitwidth, (1, 2, 4, 8), "bitwidth")
        x = _float(self, self.input.type, "operand")
        y = _fused(self, self.output.type, "result")
        cols = x.get_shape()[-1]
        if cols == 0:
            raise VerifyException(f"'{self.name}' operand rows must have at least one column")
        w = rand_width(cols, self.bitwidth)
        _rows_match(self, x, y, w, f"10 + ceil({cols} * {self.bitwidth} / 8) = {w} bytes per "
                    f"row of {cols} columns")


@irdl_op_definition
class FusedRandRowwiseQuantizedToFloatOp(_Unary):
    """Caffe2's FusedRandRowwiseQuantizedToFloat: `fma(q, gap, min)`. The rows' headers
    must hold `bitwidth` and the tail of the result's column count (checked when run)."""

    name = "rowwise.fused_rand_to_float"
    bitwidth_attr = prop_def(IntegerAttr, prop_name="bitwidth")

    @property
    def bitwidth(self) -> int:
        return _int(self.bitwidth_attr)

    def verify_(self) -> None:
        _check_bitwidth(self, self.bitwidth, (1, 2, 4, 8), "bitwidth")
        x = _fused(self, self.input.type, "operand")
        y = _float(self, self.output.type, "result")
        cols = y.get_shape()[-1]
        w = rand_width(cols, self.bitwidth)
        if tuple(x.get_shape()[:-1]) != tuple(y.get_shape()[:-1]) or x.get_shape()[-1] != w:
            raise VerifyException(
                f"'{self.name}' operand shape must be {[*y.get_shape()[:-1], w]} (10 + ceil("
                f"{cols} * {self.bitwidth} / 8) = {w} bytes per row of {cols} columns), got "
                f"'{type_text(x)}'")


# ---------------------------------------------------------------------------
# Bag reductions
# ---------------------------------------------------------------------------
class _Bag(IRDLOperation):
    """Common checks: data [R, W] ui8 fused rows of `bits`, result [B, C] f32."""

    bits_attr = prop_def(IntegerAttr, prop_name="bits")
    result = result_def(TensorType)
    traits = traits_def(Pure(), ROWWISE)
    irdl_options = (ParsePropInAttrDict(),)

    @property
    def bits(self) -> int:
        return _int(self.bits_attr)

    def _verify_bag(self, data: SSAValue, indices: SSAValue, weights: SSAValue | None,
                    segments: int) -> None:
        _check_bitwidth(self, self.bits, (8, 4, 2), "bits")
        d = _fused(self, data.type, "data")
        if d.get_num_dims() != 2:
            raise VerifyException(f"'{self.name}' data must be a 2-d tensor of fused rows, got "
                                  f"'{type_text(d)}'")
        idx = _index(self, indices.type, "indices")
        r = _static_tensor(self, self.result.type, "result")
        if not isinstance(r.element_type, Float32Type) or r.get_num_dims() != 2:
            raise VerifyException(f"'{self.name}' result must be a 2-d tensor of f32, got "
                                  f"'{type_text(r)}'")
        segs, cols = r.get_shape()
        w = fused_width(cols, self.bits)
        if d.get_shape()[1] != w:
            how = (f"{cols} + 8" if self.bits == 8 else
                   f"ceil({cols} * {self.bits} / 8) + 4 = {packed_bytes(cols, self.bits) + 4}")
            raise VerifyException(f"'{self.name}' data rows must have {how} bytes for {cols} "
                                  f"result columns at {self.bits} bits, got '{type_text(d)}'")
        if segs != segments:
            raise VerifyException(f"'{self.name}' result must have {segments} rows (one per "
                                  f"segment), got '{type_text(r)}'")
        if weights is not None:
            wt = _static_tensor(self, weights.type, "weights")
            if (not isinstance(wt.element_type, Float32Type)
                    or tuple(wt.get_shape()) != tuple(idx.get_shape())):
                raise VerifyException(f"'{self.name}' weights must be f32 shaped like the "
                                      f"indices {list(idx.get_shape())}, got '{type_text(wt)}'")


class _Lengths(_Bag):
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    lengths = operand_def(TensorType)
    assembly_format = ("$data `,` $indices `,` $lengths attr-dict `:` "
                       "functional-type(operands, results)")
    MEAN: ClassVar[bool] = False

    def __init__(self, data: SSAValue, indices: SSAValue, lengths: SSAValue, bits: int,
                 result_type: Attribute):
        super().__init__(operands=[data, indices, lengths], result_types=[result_type],
                         properties={"bits": IntegerAttr(bits, i64)})

    @property
    def weights(self) -> SSAValue | None:
        return None

    def verify_(self) -> None:
        lt = _index(self, self.lengths.type, "lengths")
        self._verify_bag(self.data, self.indices, self.weights, lt.get_shape()[0])


@irdl_op_definition
class SparseLengthsSumOp(_Lengths):
    """Caffe2's SparseLengthsSumFused{8,4,2}BitRowwise: one output row per segment, the
    sum of the dequantized rows `data[indices[j]]` of its `lengths[m]` entries."""

    name = "rowwise.sparse_lengths_sum"


@irdl_op_definition
class SparseLengthsMeanOp(_Lengths):
    """Caffe2's SparseLengthsMeanFused{8,4,2}BitRowwise: the sum times 1/length."""

    name = "rowwise.sparse_lengths_mean"
    MEAN: ClassVar[bool] = True


@irdl_op_definition
class SparseLengthsWeightedSumOp(_Bag):
    """Caffe2's SparseLengthsWeightedSumFused{8,4,2}BitRowwise: each row scaled by its
    entry's weight (operands in Caffe2's order: data, weights, indices, lengths)."""

    name = "rowwise.sparse_lengths_weighted_sum"
    data = operand_def(TensorType)
    weights = operand_def(TensorType)
    indices = operand_def(TensorType)
    lengths = operand_def(TensorType)
    assembly_format = ("$data `,` $weights `,` $indices `,` $lengths attr-dict `:` "
                       "functional-type(operands, results)")
    MEAN: ClassVar[bool] = False

    def __init__(self, data: SSAValue, weights: SSAValue, indices: SSAValue, lengths: SSAValue,
                 bits: int, result_type: Attribute):
        super().__init__(operands=[data, weights, indices, lengths], result_types=[result_type],
                         properties={"bits": IntegerAttr(bits, i64)})

    def verify_(self) -> None:
        lt = _index(self, self.lengths.type, "lengths")
        self._verify_bag(self.data, self.indices, self.weights, lt.get_shape()[0])


@irdl_op_definition
class EmbeddingBagRowwiseOffsetsOp(_Bag):
    """PyTorch's `embedding_bag_{byte,4bit,2bit}_rowwise_offsets` (the sum: PyTorch
    ignores `mode`): bag m is `indices[offsets[m]:offsets[m+1]]`, the last running to
    the end unless `include_last_offset`; optional per-sample weights."""

    name = "rowwise.embedding_bag_rowwise_offsets"
    data = operand_def(TensorType)
    indices = operand_def(TensorType)
    offsets = operand_def(TensorType)
    weights = opt_operand_def(TensorType)
    include_last_offset_attr = opt_prop_def(BoolAttr, prop_name="include_last_offset")
    assembly_format = ("$data `,` $indices `,` $offsets (`weights` $weights^)? attr-dict `:` "
                       "functional-type(operands, results)")
    MEAN: ClassVar[bool] = False

    @property
    def include_last_offset(self) -> bool:
        a = self.include_last_offset_attr
        return False if a is None else bool(a.value.data)

    def verify_(self) -> None:
        ot = _index(self, self.offsets.type, "offsets")
        n = ot.get_shape()[0]
        if self.include_last_offset and n == 0:
            raise VerifyException(f"'{self.name}' include_last_offset needs at least one offset")
        self._verify_bag(self.data, self.indices, self.weights,
                         n - 1 if self.include_last_offset else n)


ROWWISE_OPS = [
    FloatToFused8BitRowwiseQuantizedOp, Fused8BitRowwiseQuantizedToFloatOp,
    FloatToFused4BitRowwiseQuantizedOp, FloatToFused2BitRowwiseQuantizedOp,
    Fused4BitRowwiseQuantizedToFloatOp, Fused2BitRowwiseQuantizedToFloatOp,
    FloatToFused4BitFakeRowwiseQuantizedOp, FloatToFused2BitFakeRowwiseQuantizedOp,
    FloatToFusedRandRowwiseQuantizedOp, FusedRandRowwiseQuantizedToFloatOp,
    SparseLengthsSumOp, SparseLengthsWeightedSumOp, SparseLengthsMeanOp,
    EmbeddingBagRowwiseOffsetsOp,
]

Rowwise = Dialect("rowwise", ROWWISE_OPS, [])

__all__ = ["Rowwise", "ROWWISE_OPS"] + [op.__name__ for op in ROWWISE_OPS]
