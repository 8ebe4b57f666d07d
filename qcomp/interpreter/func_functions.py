"""Interpreter implementations of the `func` dialect: `func.func` (a callable: its body
runs, or an external function when it has none), `func.call`, and `func.return` for
both xDSL's op and the subclass qcomp's contexts parse `return` into
(`qcomp.dialects.func`). The same as xDSL's `xdsl.interpreters.func.FuncFunctions`,
written here because importing that module runs `xdsl.interpreters`' package
initialiser, which loads every xDSL interpreter (RISC-V, snitch, ...)."""

from __future__ import annotations

from typing import Any

from xdsl.dialects import func as xdsl_func
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_callable,
    impl_terminator,
    register_impls,
)

from qcomp.dialects import func


@register_impls
class FuncFunctions(InterpreterFunctions):
    @impl_terminator(func.ReturnOp)
    def run_return(self, interpreter: Interpreter, op: func.ReturnOp,
                   args: tuple[Any, ...]) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    @impl_terminator(xdsl_func.ReturnOp)
    def run_xdsl_return(self, interpreter: Interpreter, op: xdsl_func.ReturnOp,
                        args: tuple[Any, ...]) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    @impl(xdsl_func.CallOp)
    def run_call(self, interpreter: Interpreter, op: xdsl_func.CallOp,
                 args: tuple[Any, ...]) -> tuple[Any, ...]:
        return interpreter.call_op(op.callee, args)

    @impl_callable(xdsl_func.FuncOp)
    def call_func(self, interpreter: Interpreter, op: xdsl_func.FuncOp, args: tuple[Any, ...]):
        if (first_block := op.body.blocks.first) is None or not first_block.ops:
            return interpreter.call_external(op.sym_name.data, op, args)
        return interpreter.run_ssacfg_region(op.body, args, op.sym_name.data)
