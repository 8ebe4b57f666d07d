"""MLIR's quant ops: `quant.qcast` (float -> quantized), `quant.dcast` (quantized ->
float) and `quant.scast` (quantized <-> storage integers), with MLIR's verifiers.

`%q = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5:3>>`
"""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloat, ArrayAttr, IntegerType, TensorType
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


def _verify_tensor_quant(t: Attribute) -> None:
    q = quantized_element(t)
    if q is not None and isinstance(t, TensorType):
        q.verify_for_shape(t.get_shape())


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


def _storage_width(q: Attribute) -> int | None:
    if isinstance(q, UniformQuantizedType | AnyQuantizedType):
        return q.storage.width.data
    return None


def _require(op: IRDLOperation, what: str, index: int, ok: bool, summary: str) -> None:
    """ODS-style operand/result constraint, in MLIR's words."""
    if not ok:
        t = (op.operands if what == "operand" else op.results)[index].type
        raise VerifyException(
            f"{what} #{index} must be scalar or tensor of {summary}, but got "
            f"'{_type_text(t)}'")


def _is_float(t: Attribute) -> bool:
    return isinstance(element_type(t), AnyFloat)


def _is_int_or_quant(t: Attribute) -> bool:
    # MLIR wants a signless integer here; qcomp also lets `uiN` stand for the
    # storage of a `uN` type (see docs/design.md)
    return isinstance(element_type(t), IntegerType) or _any_quant_element(t) is not None


class _CastBase(IRDLOperation):
    arg = operand_def()
    res = result_def()
    traits = traits_def(NoMemoryEffect(), own_lowering())
    assembly_format = "$arg attr-dict `:` type($arg) `to` type($res)"

    def __init__(self, arg, result_type: Attribute):
        super().__init__(operands=[arg], result_types=[result_type])

    def _verify_shapes(self) -> None:
        in_t, out_t = self.arg.type, self.res.type
        same = isinstance(in_t, TensorType) == isinstance(out_t, TensorType)
        if same and isinstance(in_t, TensorType) and isinstance(out_t, TensorType):
            a, b = in_t.get_shape(), out_t.get_shape()
            same = len(a) == len(b) and all(x == y or -1 in (x, y) for x, y in zip(a, b))
        if not same:
            raise VerifyException(
                "failed to verify that input and result are both scalars or both tensors "
                "with matching shape")

    def _verify_quantized(self, quantized: Attribute, float_type: Attribute) -> None:
        """MLIR's verifyQuantizationOp: expressed types agree, then the parameters
        fit the tensor shape."""
        q = _any_quant_element(quantized)
        if _expressed(q) != element_type(float_type):
            raise VerifyException("expressed type in quantized type expected to match float type")
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
        _require(self, "operand", 0, _is_int_or_quant(self.arg.type), summary)
        _require(self, "result", 0, _is_int_or_quant(self.res.type), summary)
        self._verify_shapes()
        qi, qo = _any_quant_element(self.arg.type), _any_quant_element(self.res.type)
        if (qi is None) == (qo is None):
            raise VerifyException(
                "failed to verify that input must be integer and result must be quantized, "
                "or vice versa")
        q = qi or qo
        other = element_type(self.res.type if qi is not None else self.arg.type)
        if not isinstance(other, IntegerType) or other.width.data != _storage_width(q):
            raise VerifyException("storage type in quantized type expected to match integer type")
        _verify_tensor_quant(self.arg.type if qi is not None else self.res.type)
