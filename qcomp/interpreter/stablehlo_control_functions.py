"""Interpreter functions of StableHLO's control flow and structure ops: while, if, case,
map, tuple, get_tuple_element, after_all, composite.

Tuples are Python tuples of their elements' values; a token is `values.TOKEN`.
`while` runs its body once per iteration (sequential by definition); `map` runs its
computation once on whole arrays when the computation works element by element
(`regions.vectorisable`), else once per element.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects import stablehlo as sh
from qcomp.interpreter import regions
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.values import TOKEN, shape_of

# the most iterations one `while` may run, or None for no limit: `--verify-numerics` sets
# one, since its random inputs can make an input-dependent loop run for ~2**31 iterations
WHILE_ITERATION_LIMIT: ContextVar[int | None] = ContextVar("qcomp_while_limit", default=None)


def _scalar(v) -> bool:
    return bool(np.asarray(v).reshape(()))


@register_impls
class StablehloControlFunctions(InterpreterFunctions):
    """Control flow and structure ops of `stablehlo`."""

    @impl(sh.WhileOp)
    def run_while(self, interpreter: Interpreter, op: sh.WhileOp, args: tuple[Any, ...]):
        values = tuple(args)
        limit, count = WHILE_ITERATION_LIMIT.get(), 0
        while _scalar(regions.run(interpreter, op.cond, values)[0]):
            if limit is not None and count == limit:
                raise RunError(f"'{op.name}' ran {limit} iterations without ending "
                               "(the limit of this run)", op)
            values = regions.run(interpreter, op.body, values)
            count += 1
        return values

    @impl(sh.IfOp)
    def run_if(self, interpreter: Interpreter, op: sh.IfOp, args: tuple[Any, ...]):
        branch = op.true_branch if _scalar(args[0]) else op.false_branch
        return regions.run(interpreter, branch, ())

    @impl(sh.CaseOp)
    def run_case(self, interpreter: Interpreter, op: sh.CaseOp, args: tuple[Any, ...]):
        index = int(np.asarray(args[0]).reshape(()))
        branches = list(op.branches)
        if not 0 <= index < len(branches):
            index = len(branches) - 1  # the spec: out of range runs the last branch
        return regions.run(interpreter, branches[index], ())

    @impl(sh.MapOp)
    def run_map(self, interpreter: Interpreter, op: sh.MapOp, args: tuple[Any, ...]):
        out_shape = shape_of(op.result.type)
        flat = [np.asarray(a).reshape(-1) for a in args]
        size = int(np.prod(out_shape, dtype=np.int64))
        (r,) = regions.call_each(interpreter, op.computation, flat, size)
        return (np.ascontiguousarray(r).reshape(out_shape),)

    @impl(sh.TupleOp)
    def run_tuple(self, interpreter: Interpreter, op: sh.TupleOp, args: tuple[Any, ...]):
        return (tuple(args),)

    @impl(sh.GetTupleElementOp)
    def run_get_tuple_element(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (args[0][op.index.value.data],)

    @impl(sh.AfterAllOp)
    def run_after_all(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (TOKEN,)

    @impl(sh.CompositeOp)
    def run_composite(self, interpreter: Interpreter, op: sh.CompositeOp,
                      args: tuple[Any, ...]):
        """The decomposition function, called with the composite's operands."""
        try:
            target = interpreter.get_op_for_symbol(op.decomposition)
        except Exception as e:  # xDSL's lookup error, reported at the op
            raise RunError(f"cannot find the decomposition "
                           f"@{op.decomposition.root_reference.data}: {e}") from e
        return tuple(interpreter.call_op(target, tuple(args)))
