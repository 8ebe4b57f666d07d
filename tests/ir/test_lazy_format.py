"""qcomp's `irdl_op_definition` reads an op's assembly format on first use
(`qcomp.ir.lazy_format`): every op's format still reads, the op parses and prints by
it, and a format that does not read is xDSL's definition error at the first use."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import TensorType, f32
from xdsl.irdl import IRDLOperation, operand_def, result_def
from xdsl.irdl.operations import PyRDLOpDefinitionError

from qcomp.ir import print_module
from qcomp.ir.lazy_format import irdl_op_definition, read_formats
from qcomp.registry import DIALECTS, make_context, parse_module


def test_every_format_reads():
    for factory in DIALECTS.values():
        for op in factory().operations:
            if "format_program" in vars(op):
                assert op.format_program() is op.format_program()
                assert op.get_irdl_definition().assembly_format is not None


def test_stablehlo_formats_are_read_on_first_use():
    from qcomp.dialects.stablehlo import StableHLO

    formats = [op for op in StableHLO.operations if op.get_irdl_definition().assembly_format]
    assert len(formats) == 62
    assert all("format_program" in vars(op) for op in formats)


def test_parsed_and_printed_by_the_format():
    text = ("func.func @f(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %0 = stablehlo.add %a, %b : tensor<2xf32>\n"
            "  %1 = stablehlo.uniform_quantize %0 : (tensor<2xf32>) -> "
            "tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>\n"
            "  %2 = stablehlo.uniform_dequantize %1 : (tensor<2x!quant.uniform<i8:f32, "
            "5.000000e-01:-3>>) -> tensor<2xf32>\n"
            "  return %2 : tensor<2xf32>\n}\n")
    printed = print_module(parse_module(text, make_context()))
    assert printed == "module {\n" + "".join(
        "  " + line + "\n" for line in text.replace("%a", "%arg0").replace("%b", "%arg1")
        .splitlines()) + "}\n"


@irdl_op_definition
class BadFormatOp(IRDLOperation):
    name = "test.bad_format"
    x = operand_def()
    y = result_def()
    assembly_format = "$x attr-dict `:` type($nothing)"


def test_a_bad_format_fails_at_first_use():
    op = BadFormatOp.create(operands=[], result_types=[TensorType(f32, [2])])
    with pytest.raises(PyRDLOpDefinitionError, match="assembly format"):
        BadFormatOp.format_program()
    with pytest.raises(PyRDLOpDefinitionError):
        read_formats([BadFormatOp])
    assert op.name == "test.bad_format"
