"""StableHLO's `interpreter` dialect (stablehlo/reference/InterpreterOps.td): `probe`.

    %r = interpreter.probe %x, probe_id = "p0" : tensor<3xi32>

`probe` returns its operand unchanged and records its value under `probe_id` (once per
time it runs); `check.expect_serialized_eq %v, probe_id = "p0", iter = K` compares a
value with the K-th record. Upstream writes the records to NumPy files in
`--probe-output-dir`; qcomp keeps them with the run.
"""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.facts import NO_QUANTIZATION


@irdl_op_definition
class ProbeOp(IRDLOperation):
    """`operand`, recorded under `probe_id`."""

    name = "interpreter.probe"
    operand = operand_def(TensorType)
    probe_id = prop_def(StringAttr)
    result = result_def(TensorType)
    traits = traits_def(MemoryWriteEffect(), NO_QUANTIZATION)

    @classmethod
    def parse(cls, parser: Parser) -> ProbeOp:
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("probe_id")
        parser.parse_punctuation("=")
        probe_id = parser.parse_str_literal()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.build(operands=[parser.resolve_operand(operand, t)], result_types=[t],
                         properties={"probe_id": StringAttr(probe_id)}, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        printer.print_string(", probe_id = ")
        printer.print_string_literal(self.probe_id.data)
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        if self.operand.type != self.result.type:
            raise VerifyException("requires the same type for all operands and results")


Interpreter = Dialect("interpreter", [ProbeOp], [])
