"""StableHLO's complex-number ops and `is_finite`:

    %c = stablehlo.complex %re, %im : tensor<2xcomplex<f32>>
    %r = stablehlo.real %c : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
    %i = stablehlo.imag %c : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
    %f = stablehlo.is_finite %x : (tensor<2xf32>) -> tensor<2xi1>

`complex`'s type is upstream's custom<ComplexOpType>: the result type alone when both
operands have its real counterpart type, else the functional type.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    ComplexType,
    Float32Type,
    Float64Type,
    FunctionType,
    IntegerType,
    TensorType,
)
from xdsl.irdl import traits_def
from xdsl.irdl.operations import ParsePropInAttrDict
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoMemoryEffect

from qcomp.dialects.facts import NO_QUANTIZATION, Elementwise, Quantization, QuantSemantics
from qcomp.dialects.quant import element_type
from qcomp.dialects.stablehlo.assembly import FUNCTIONAL
from qcomp.dialects.stablehlo.elementwise import BinaryElementwiseOp, UnaryElementwiseOp
from qcomp.dialects.stablehlo.format import (
    build_op,
    parse_operand_list,
    print_attr_dict,
    print_functional_type,
    print_operand_list,
    resolve,
)
from qcomp.dialects.stablehlo.kinds import FP_Q, PRED, RANKED, ElementKinds, type_text, verify_value_kinds
from qcomp.dialects.stablehlo.parse_errors import custom_parser, op_error
from qcomp.dialects.stablehlo.verify_shapes import check_inferred, fail, shape, shapes_compatible
from qcomp.ir.lazy_format import irdl_op_definition

FP32_64 = ("F",)  # HLO_Fp32Or64Tensor: checked for f32/f64 in verify_complex


def real_type(t):
    """Upstream's createRealType: complex<f> elements become f."""
    e = element_type(t)
    inner = e.element_type if isinstance(e, ComplexType) else e
    return TensorType(inner, list(shape(t)), t.encoding) if isinstance(t, TensorType) else inner


def complex_type(t):
    return TensorType(ComplexType(element_type(t)), list(shape(t)), t.encoding)


@custom_parser
def _parse_complex(cls, parser: Parser):
    operands = parse_operand_list(parser, 2)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    pos = parser.pos
    t = parser.parse_type()
    if isinstance(t, FunctionType):
        ins, outs = list(t.inputs.data), list(t.outputs.data)
    else:
        if not (isinstance(t, TensorType) and isinstance(t.element_type, ComplexType)):
            op_error(parser, "expected tensor with complex element type", pos)
        ins, outs = [real_type(t)] * 2, [t]
    return build_op(cls, resolve(parser, operands, ins, pos), outs, attrs)


def _print_complex(op, printer: Printer) -> None:
    printer.print_string(" ")
    print_operand_list(printer, op.operands)
    print_attr_dict(printer, op)
    printer.print_string(" : ")
    real = real_type(op.result.type)
    if op.lhs.type != real or op.rhs.type != real:
        print_functional_type(printer, op)
    else:
        printer.print_attribute(op.result.type)


@irdl_op_definition
class ComplexOp(BinaryElementwiseOp):
    """`lhs + i * rhs`."""

    name = "stablehlo.complex"
    traits = traits_def(NoMemoryEffect(), ElementKinds(((RANKED, FP32_64),) * 2, (RANKED, ("C",))),
                        NO_QUANTIZATION)
    parse = classmethod(_parse_complex)
    print = _print_complex
    assembly_format = None

    def verify_(self) -> None:
        lt, rt = self.lhs.type, self.rhs.type
        for i, t in enumerate((lt, rt)):
            if not isinstance(element_type(t), Float32Type | Float64Type):
                fail(f"operand #{i} must be ranked tensor of 32/64-bit float "
                     f"values, but got '{type_text(t)}'")
        verify_value_kinds(self)
        if element_type(lt) != element_type(rt):
            fail("requires the same element type for all operands")
        if not (shapes_compatible(shape(lt), shape(rt))
                and shapes_compatible(shape(lt), shape(self.result.type))):
            fail("requires the same shape for all operands and results")
        check_inferred(complex_type(lt), self.result.type)


def _check_real_result(op) -> None:
    verify_value_kinds(op)
    check_inferred(real_type(op.operand.type), op.result.type)


@irdl_op_definition
class RealOp(UnaryElementwiseOp):
    """The real part (a float operand is its own real part)."""

    name = "stablehlo.real"
    traits = traits_def(NoMemoryEffect(), ElementKinds.unary(("F", "C"), ("F",)),
                        NO_QUANTIZATION, Elementwise(float=lambda x: x, complex=np.real))

    def verify_(self) -> None:
        _check_real_result(self)


@irdl_op_definition
class ImagOp(UnaryElementwiseOp):
    """The imaginary part (0 for a float operand)."""

    name = "stablehlo.imag"
    traits = traits_def(NoMemoryEffect(), ElementKinds.unary(("F", "C"), ("F",)),
                        NO_QUANTIZATION,
                        Elementwise(float=np.zeros_like, complex=np.imag))

    def verify_(self) -> None:
        _check_real_result(self)


@irdl_op_definition
class IsFiniteOp(UnaryElementwiseOp):
    """Whether `x` is neither infinite nor NaN (quantized: always true)."""

    name = "stablehlo.is_finite"
    traits = traits_def(NoMemoryEffect(), ElementKinds.unary(FP_Q, PRED),
                        Quantization(QuantSemantics.DEQUANTIZE_OP_QUANTIZE))
    assembly_format = FUNCTIONAL
    irdl_options = (ParsePropInAttrDict(),)
    custom_directives = ()

    def verify_(self) -> None:
        verify_value_kinds(self)
        want = TensorType(IntegerType(1), list(shape(self.operand.type)))
        if not shapes_compatible(shape(want), shape(self.result.type)):
            fail(f"inferred type(s) '{type_text(want)}' are incompatible with return type(s) "
                 f"of operation '{type_text(self.result.type)}'")


COMPLEX_OPS = [ComplexOp, RealOp, ImagOp, IsFiniteOp]
