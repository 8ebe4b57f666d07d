"""MLIR's quant ops: `quant.qcast` (float -> quantized), `quant.dcast` (quantized ->
float) and `quant.scast` (quantized <-> storage integers), with MLIR's verifiers.

`%q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5:3>>`
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    IntegerType,
    Signedness,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.facts import own_lowering
from qcomp.dialects.quant.types import (
    AnyQuantizedType,
    CalibratedQuantizedType,
    UniformQuantizedType,
    _type_text,
    element_type,
    quantized_element,
)
from qcomp.ir.errors import UnprefixedVerifyException


def _verify_tensor_quant(t: Attribute) -> None:
    """MLIR's verifyPerAxisQuantization and verifySubChannelQuantization of the
    quantized type in `t`: scalars take neither, unranked tensors per-axis only."""
    q = quantized_element(t)
    if q is None or q.is_per_tensor:
        return
    flavour = "per-axis" if q.is_per_axis else "sub-channel"
    if not isinstance(t, TensorType | UnrankedTensorType):
        raise UnprefixedVerifyException(f"scalar types may not use {flavour} quantization")
    if isinstance(t, UnrankedTensorType):
        if q.is_per_axis:
            return
        raise UnprefixedVerifyException(
            "tensor containing the sub-channel quantized type must be ranked")
    try:
        q.verify_for_shape(t.get_shape())
    except VerifyException as e:
        raise UnprefixedVerifyException(str(e)) from None


def _any_quant_element(t: Attribute) -> Attribute | None:
    """The quant-dialect element type (uniform, any or calibrated) of `t`, if any."""
    e = element_type(t)
    return e if isinstance(e, UniformQuantizedType | AnyQuantizedType
                           | CalibratedQuantizedType) else None


def _expressed(q: Attribute) -> Attribute | None:
    if isinstance(q, UniformQuantizedType):
        return q.expressed_type
    if isinstance(q, AnyQuantizedType):
        return None if isinstance(q.expressed, ArrayAttr) else q.expressed
    if isinstance(q, CalibratedQuantizedType):
        return q.expressed
    return None


def _storage_matches(q: Attribute | None, integer: Attribute) -> bool:
    """MLIR: the quantized type's storage type is the integer type (`i8` for `i8` and
    `u8`). qcomp also lets the unsigned `uiN` stand for the storage of unsigned `uN` and
    `uiN` types: its passes keep unsigned storage in `uiN` (see docs/design.md)."""
    if not isinstance(q, UniformQuantizedType | AnyQuantizedType):
        return False
    if q.storage_type == integer:
        return True
    return (isinstance(integer, IntegerType) and not q.is_signed and not q.is_float_storage
            and integer.signedness.data == Signedness.UNSIGNED
            and integer.width.data == q.storage_bitwidth)


def _require(op: IRDLOperation, what: str, index: int, ok: bool, summary: str) -> None:
    """ODS-style operand/result constraint, in MLIR's words."""
    if not ok:
        t = (op.operands if what == "operand" else op.results)[index].type
        raise VerifyException(
            f"{what} #{index} must be scalar or tensor of {summary}, but got "
            f"'{_type_text(t)}'")


def _is_float(t: Attribute) -> bool:
    return isinstance(element_type(t), AnyFloat)


def _is_int_or_quant(t: Attribute, other: Attribute) -> bool:
    """MLIR: a signless integer or a quantized type. qcomp also takes an unsigned `uiN`
    where `other` holds unsigned storage it stands for (see `_storage_matches`), and
    the float type of float storage (`f8E4M3FN` for `!quant.uniform<f8E4M3FN:f32, ...>`;
    MLIR has no storage cast for float storage, qcomp's lower-quant-ops needs one)."""
    e = element_type(t)
    if (isinstance(e, IntegerType) and e.signedness.data == Signedness.UNSIGNED) or \
            isinstance(e, AnyFloat):
        return _storage_matches(_any_quant_element(other), e)
    return (isinstance(e, IntegerType) and e.signedness.data == Signedness.SIGNLESS) \
        or _any_quant_element(t) is not None


class _CastBase(IRDLOperation):
    arg = operand_def()
    res = result_def()
    traits = traits_def(NoMemoryEffect(), own_lowering())
    assembly_format = "$arg attr-dict `:` type($arg) `to` type($res)"

    def __init__(self, arg, result_type: Attribute):
        super().__init__(operands=[arg], result_types=[result_type])

    def _verify_shapes(self) -> None:
        """MLIR's quant_SameScalarOrTensorShape: two scalars, two unranked tensors, or two
        ranked tensors of the same shape (`?` matches only `?`)."""
        in_t, out_t = self.arg.type, self.res.type
        kinds = {type(t) if isinstance(t, TensorType | UnrankedTensorType) else None
                 for t in (in_t, out_t)}
        same = len(kinds) == 1
        if same and isinstance(in_t, TensorType) and isinstance(out_t, TensorType):
            same = tuple(in_t.get_shape()) == tuple(out_t.get_shape())
        if not same:
            raise VerifyException(
                "failed to verify that input and result are both scalars or both tensors "
                "with matching shape")

    def _verify_quantized(self, quantized: Attribute, float_type: Attribute) -> None:
        """MLIR's verifyQuantizationOp: expressed types agree, then the parameters
        fit the tensor shape."""
        q = _any_quant_element(quantized)
        if _expressed(q) != element_type(float_type):
            raise UnprefixedVerifyException(
                "expressed type in quantized type expected to match float type")
        _verify_tensor_quant(quantized)


@irdl_op_definition
class QuantizeCastOp(_CastBase):
    """`quant.qcast`: expressed float → quantized, `q = clamp(round(x / scale) + zp)`."""

    name = "quant.qcast"

    def verify_(self) -> None:
        _require(self, "operand", 0, _is_float(self.arg.type), "floating-point")
        _require(self, "result", 0, _any_quant_element(self.res.type) is not None,
                 "quantized type")
        self._verify_shapes()
        self._verify_quantized(self.res.type, self.arg.type)


@irdl_op_definition
class DequantizeCastOp(_CastBase):
    """`quant.dcast`: quantized → expressed float, `x = (q - zp) * scale`."""

    name = "quant.dcast"

    def verify_(self) -> None:
        _require(self, "operand", 0, _any_quant_element(self.arg.type) is not None,
                 "quantized type")
        _require(self, "result", 0, _is_float(self.res.type), "floating-point")
        self._verify_shapes()
        self._verify_quantized(self.arg.type, self.res.type)


@irdl_op_definition
class StorageCastOp(_CastBase):
    """`quant.scast`: reinterpret between a quantized type and its storage type."""

    name = "quant.scast"

    def verify_(self) -> None:
        summary = "signless integer or quantized type"
        _require(self, "operand", 0, _is_int_or_quant(self.arg.type, self.res.type), summary)
        _require(self, "result", 0, _is_int_or_quant(self.res.type, self.arg.type), summary)
        self._verify_shapes()
        qi, qo = _any_quant_element(self.arg.type), _any_quant_element(self.res.type)
        if (qi is None) == (qo is None):
            raise VerifyException(
                "failed to verify that input must be integer and result must be quantized, "
                "or vice versa")
        q = qi or qo
        other = element_type(self.res.type if qi is not None else self.arg.type)
        if not _storage_matches(q, other):
            raise UnprefixedVerifyException(
                "storage type in quantized type expected to match integer type")
        _verify_tensor_quant(self.arg.type if qi is not None else self.res.type)
