"""Interpreter implementation of qcomp's `func.return` (`qcomp.dialects.func`): the
same as xDSL's, registered for the subclass qcomp's contexts parse `return` into
(xDSL's `FuncFunctions` runs `func.func`, `func.call` and xDSL's own `func.return`)."""

from __future__ import annotations

from typing import Any

from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl_terminator,
    register_impls,
)

from qcomp.dialects import func


@register_impls
class FuncReturnFunctions(InterpreterFunctions):
    @impl_terminator(func.ReturnOp)
    def run_return(self, interpreter: Interpreter, op: func.ReturnOp,
                   args: tuple[Any, ...]) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()
