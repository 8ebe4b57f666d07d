"""The `interpreter` dialect of StableHLO's reference interpreter tests:

    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@f], [@g]]} : (...) -> (...)

runs a grid of processes, `programs[replica][partition]` each, the inputs and results
flattened in row-major process order; `infeed = [@q0, @q1]` names functions whose
results feed `stablehlo.infeed`. Its attributes are discardable ones, as jaxlib (which
has no such dialect) prints them.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, SymbolRefAttr
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    opt_attr_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.facts import NO_QUANTIZATION


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


Interpreter = Dialect("interpreter", [RunParallelOp], [])
