"""The interpreter on onnx-mlir's float ops: each op runs as the StableHLO steps its
declared `Lowering` builds (`qcomp.dialects.onnx.to_stablehlo`), the steps
`onnx-legalize-to-stablehlo` makes of it, on the operands' run-time shapes, with the
StableHLO interpreter's kernels: every step rounds once to the result's element type, so
the lowered program gives the same bits (`--verify-numerics`). The op's `check` runs
first (the ONNX operator's run-time errors: integer division by zero, an index out of
bounds). `tests/interpreter/test_onnx_float_functions.py` checks the ops against
`onnx.reference.ReferenceEvaluator`.

`onnx_float_functions()` registers one `@impl` per ONNX op class declaring a `Lowering`
(the ops defined when the interpreter is made, an op added by docs/design.md's recipe
included); the steps are built once per op and operand shapes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.onnx import core
from qcomp.dialects.onnx.float_common import OnnxOp
from qcomp.interpreter.errors import RunError
from qcomp.passes.onnx_legalize_to_stablehlo import lower_op

_SMALL = 64
"""Integer operands of at most this many elements become constants in the steps of an op
whose result shape is not static (Reshape's shape, Squeeze's axes), for `infer()`."""


def _static(t) -> bool:
    return isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())


def _steps(op: Operation, args: tuple[Any, ...]) -> Region:
    """A region computing `op` on `args` (its present operands as block arguments) with
    the StableHLO ops its `Lowering` builds, ending in `func.return`."""
    declared = core.lowering(op)
    assert declared is not None
    by_operands = declared.shaped_by_operands
    dynamic = not by_operands and not all(_static(r.type) for r in op.results
                                          if not core.is_none(r))
    given = [(v, a) for v, a in zip(op.operands, args) if not core.is_none(v)]
    block = Block(arg_types=[TensorType(v.type.element_type, np.shape(a))  # type: ignore[attr-defined]
                             for v, a in given])
    block_args = iter(block.args)
    operands: list[SSAValue] = []
    none: SSAValue | None = None
    constants = declared.constants
    for i, (v, a) in enumerate(zip(op.operands, args)):
        if core.is_none(v):
            if none is None:
                none = core.NoValueOp().none_val
                block.add_op(none.owner)  # type: ignore[arg-type]
            operands.append(none)
            continue
        arg = next(block_args)
        a = np.asarray(a)
        if (dynamic and a.dtype.kind in "iu" and a.size <= _SMALL) or i in constants:
            c = sh.ConstantOp(DenseIntOrFPElementsAttr.from_list(arg.type, a.reshape(-1).tolist()))
            block.add_op(c)
            arg = c.results[0]
        operands.append(arg)
    result_type = op.results[0].type
    if dynamic:
        probe = op.create(operands=operands, result_types=[result_type],
                          properties=dict(op.properties), attributes=dict(op.attributes))
        shape = probe.infer() if isinstance(probe, OnnxOp) else None
        probe.drop_all_references()
        if shape is None or any(d < 0 for d in shape):
            raise RunError(f"'{op.name}': the result shape is not known from the operands")
        result_type = TensorType(result_type.element_type, tuple(shape))  # type: ignore[attr-defined]
    types = [result_type] if dynamic else [r.type for r in op.results]  # Split: several
    step = op.create(operands=operands, result_types=types,
                     properties=dict(op.properties), attributes=dict(op.attributes))
    block.add_op(step)
    block.add_op(func.ReturnOp(*(r for r in step.results if not core.is_none(r))))
    why = lower_op(step, PatternRewriter(step), [], any_results=by_operands)
    if why is not None:
        raise RunError(why.removeprefix("onnx-legalize-to-stablehlo: "))
    return Region(block)


def run_declared(ft: InterpreterFunctions, interpreter: Interpreter, op: Operation,
                 args: tuple[Any, ...]) -> tuple[Any, ...]:
    """`op` run as the StableHLO its `Lowering` builds, on `args`."""
    declared = core.lowering(op)
    assert declared is not None
    if declared.check is not None:
        try:
            declared.check(op, *args)
        except ValueError as e:
            raise RunError(f"{op.name}: {e}") from e
    key = (op, tuple(np.shape(a) for a in args))
    if not declared.shaped_by_operands and not all(
            _static(r.type) for r in op.results if not core.is_none(r)):  # small ints: constants
        key += tuple(tuple(np.ravel(a).tolist()) for a in args
                     if a is not None and np.asarray(a).dtype.kind in "iu"
                     and np.size(a) <= _SMALL)
    key += tuple(tuple(np.ravel(args[i]).tolist()) for i in declared.constants
                 if i < len(args) and args[i] is not None)
    cache: dict = ft.__dict__.setdefault("steps", {})
    if key not in cache:
        cache[key] = _steps(op, args)
    present = [a for v, a in zip(op.operands, args) if not core.is_none(v)]
    try:
        got = iter(interpreter.run_ssacfg_region(cache[key], present, op.name))
        return tuple(None if core.is_none(r) else next(got) for r in op.results)
    except RunError as e:
        e.op = op  # the steps are nowhere in the program: the diagnostic is at the op
        raise


def _declaring(cls: type) -> list[type[Operation]]:
    """The op classes under `cls` that declare a `Lowering` (family bases such as
    `UnaryOp` declare no traits)."""
    out = []
    for sub in cls.__subclasses__():
        if hasattr(sub, "traits") and core.lowering(sub) is not None:
            out.append(sub)
        out += _declaring(sub)
    return out


def onnx_float_functions() -> InterpreterFunctions:
    """Interpreter functions for every ONNX op class that declares a `Lowering`."""
    ops = dict.fromkeys(_declaring(OnnxOp))
    # one name per class (a test's class may share its __name__ with qcomp's own)
    impls = {f"run_{i}_{cls.__name__}": impl(cls)(run_declared) for i, cls in enumerate(ops)}
    return register_impls(type("OnnxFloatFunctions", (InterpreterFunctions,), impls))()
