"""StableHLO's `interpreter` dialect (stablehlo/reference/InterpreterOps.td):

    %r = interpreter.probe %x, probe_id = "p0" : tensor<3xi32>
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@f], [@g]]} : (...) -> (...)

    interpreter.print %x : tensor<2xi32>

`print` writes `%name = ` (the operand's defining op's result names, as MLIR prints
them) and the value as the reference interpreter prints tensors to stdout.
`probe` returns its operand unchanged and records its value under `probe_id` (once per
time it runs); `check.expect_serialized_eq %v, probe_id = "p0", iter = K` compares a
value with the K-th record. With `--probe-output-dir` each record is also written
as upstream writes it (`probe_functions.py`).

`run_parallel` runs a grid of processes, `programs[replica][partition]` each, the inputs
and results flattened in row-major process order; `infeed = [@q0, @q1]` names functions
whose results feed `stablehlo.infeed`. Its attributes are discardable ones, as jaxlib
(which has no such dialect) prints them.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, StringAttr, SymbolRefAttr, TensorType
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
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


@irdl_op_definition
class PrintOp(IRDLOperation):
    """Prints `operand` to stdout."""

    name = "interpreter.print"
    operand = operand_def(TensorType)
    traits = traits_def(MemoryWriteEffect(), NO_QUANTIZATION)

    @classmethod
    def parse(cls, parser: Parser) -> PrintOp:
        operand = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls.build(operands=[parser.resolve_operand(operand, t)], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.operand.type)


@irdl_op_definition
class RunParallelOp(IRDLOperation):
    """Runs `programs` (replicas x partitions) in parallel."""

    name = "interpreter.run_parallel"
    inputs = var_operand_def()
    results_ = var_result_def()
    programs = attr_def(ArrayAttr[ArrayAttr[SymbolRefAttr]])
    infeed = opt_attr_def(ArrayAttr[SymbolRefAttr])
    traits = traits_def(NO_QUANTIZATION)

    @property
    def grid(self) -> list[list[str]]:
        """Function names, [replica][partition]."""
        return [[p.root_reference.data for p in row.data] for row in self.programs.data]

    def verify_(self) -> None:
        rows = self.grid
        if not rows or not rows[0]:
            raise VerifyException("`programs` attribute cannot be empty")
        if any(len(r) != len(rows[0]) for r in rows):
            raise VerifyException("Sizes of second dimension of `programs` should all match "
                                  f"{len(rows[0])}")


Interpreter = Dialect("interpreter", [PrintOp, ProbeOp, RunParallelOp], [])
