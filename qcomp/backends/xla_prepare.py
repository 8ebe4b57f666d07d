"""What the xla backend does to a module before XLA sees it (no jax needed here).

1. `unsupported_op(module, entry)`: the first op of the entry function (or a function
   it calls) that XLA cannot take — tosa, quant, arith, math or unregistered ops,
   custom_calls that are not checks, a check inside control flow or in a called
   function, a check whose result is used — as a `RunError` at that op.
2. `lower(module, semantics)`: a copy of the module lowered by the pipeline that
   matches the semantics (`spec` → `stablehlo-legalize-quant-to-math{rescale=float}`,
   `stablehlo` → `{rescale=stablehlo}`, then `canonicalize,cse`: what
   `qcomp-opt -p stablehlo-lower-quant` does), after `ONNX_LOWERING` when the module
   has `onnx` ops; an `onnx` op left is a `RunError` at that op.
3. `for_entry(lowered, name, semantics)`: one module per entry function, as XLA wants
   it: the entry renamed `@main`, every other function private and dropped unless
   `@main` calls it, and each check op removed, its operands returned as extra results
   of `@main` (judged on the host by `qcomp.interpreter.checks.judge_check`); then the
   rewrites that make XLA compute the interpreter's numbers (`xla_exact`) and faster
   forms of the same integer contractions (`xla_contractions`; with `unsigned_dots`,
   the int8 dot_generals as `ui8 x i8` for XLA's VNNI kernels, `xla_dots`).
4. `print_module` prints it; jaxlib's MLIR reads qcomp's pretty form as it is
   (`builtin.module`, `func.return`, hex `dense<"0x...">` constants included).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    Float4E2M1FNType,
    Float6E2M3FNType,
    Float6E3M2FNType,
    FunctionType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    UnregisteredOp,
    f32,
)
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from qcomp.backends import xla_contractions, xla_convolutions, xla_dots, xla_exact, xla_rescale, xla_same_scale
from qcomp.dialects.stablehlo import ConstantOp, ConvertOp
from qcomp.interpreter import RunError
from qcomp.interpreter.checks import is_check
from qcomp.ir.splat import splat_attr
from qcomp.registry import XDSL_PASSES, make_context

LOWERING = {
    "spec": "stablehlo-legalize-quant-to-math{rescale=float},canonicalize,cse",
    "stablehlo": "stablehlo-legalize-quant-to-math{rescale=stablehlo},canonicalize,cse",
}
"""The pipeline the xla backend lowers a program with, per `--semantics`."""

ONNX_LOWERING = ("onnx-legalize-qdq-to-quant", "onnx-legalize-to-stablehlo")
"""Run first on a program with `onnx` ops (an imported `.onnx` model): the documented
pipeline's ONNX passes, then `LOWERING`."""

_XLA_DIALECTS = frozenset({"builtin", "func", "stablehlo", "chlo", "check"})
_WHY = {
    "tosa": "XLA has no TOSA dialect",
    "quant": "XLA has no quant dialect (stablehlo-legalize-quant-to-math lowers only "
             "stablehlo ops on quantized types)",
    "arith": "XLA takes no arith ops on tensors",
    "math": "XLA takes no math ops on tensors",
    "interpreter": "interpreter.probe records values in StableHLO's reference interpreter "
                   "only",
}


def _name(f: func.FuncOp) -> str:
    return f.sym_name.data


def _functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {_name(op): op for op in module.ops if isinstance(op, func.FuncOp)}


def called_functions(module: ModuleOp, root: func.FuncOp) -> list[func.FuncOp]:
    """`root` and every function it calls, directly or not (in discovery order)."""
    funcs = _functions(module)
    seen = {_name(root): root}
    todo = [root]
    while todo:
        f = todo.pop()
        for op in f.walk():
            for callee in _symbol_uses(op):  # func.call, stablehlo.composite's decomposition
                if callee in funcs and callee not in seen:
                    seen[callee] = funcs[callee]
                    todo.append(funcs[callee])
    return list(seen.values())


def _symbol_uses(op: Operation) -> list[str]:
    """The functions an op names in its properties (callee, decomposition)."""
    return [v.root_reference.data for v in op.properties.values() if isinstance(v, SymbolRefAttr)]


def _unsupported_reason(op: Operation) -> str | None:
    if isinstance(op, UnregisteredOp):
        return f"XLA cannot run the unregistered op '{op.op_name.data}'"
    dialect = op.name.split(".", 1)[0]
    if dialect == "onnx":
        return None  # lowered first (`ONNX_LOWERING`); what stays is refused after `lower`
    if dialect not in _XLA_DIALECTS:
        why = _WHY.get(dialect, f"XLA has no '{dialect}' dialect")
        return f"the xla backend cannot run '{op.name}': {why}; run it with --backend numpy"
    target = getattr(op, "call_target_name", None)
    if target is not None and not is_check(op):
        return (f"the xla backend cannot run '{op.name}' @{target}: only the check targets "
                f"are known")
    return None


MAX_CALL_DEPTH = 100
"""Calls nested deeper than this are refused: XLA's CPU compiler overflows its stack
(SIGSEGV) on a chain of about 180 nested `func.call`s (jaxlib 0.8, measured)."""


def call_problem(module: ModuleOp, entry: func.FuncOp) -> RunError | None:
    """A call reachable from `entry` that XLA cannot take: one that names a function
    already being called (a cycle of the call graph: `func.call`, a composite's
    decomposition), or one nested past `MAX_CALL_DEPTH`. A depth-first walk with its
    own stack, so a long call chain is no Python recursion."""
    funcs = _functions(module)

    def calls(f: func.FuncOp):
        return ((op, callee) for op in f.walk() for callee in _symbol_uses(op)
                if callee in funcs)

    on_path, done = {_name(entry)}, set()
    stack = [(_name(entry), calls(entry))]
    while stack:
        name, todo = stack[-1]
        step = next(todo, None)
        if step is None:
            stack.pop()
            on_path.discard(name)
            done.add(name)
            continue
        op, callee = step
        if callee in on_path:
            return RunError(f"the xla backend cannot run the recursive call to @{callee}: "
                            "XLA has no recursion; run it with --backend numpy", op)
        if callee not in done:
            if len(stack) >= MAX_CALL_DEPTH:
                return RunError(f"the xla backend cannot run calls nested more than "
                                f"{MAX_CALL_DEPTH} deep (XLA's compiler overflows its stack); "
                                "run it with --backend numpy", op)
            on_path.add(callee)
            stack.append((callee, calls(funcs[callee])))
    return None


def unsupported_op(module: ModuleOp, entry: func.FuncOp) -> RunError | None:
    """The first reason XLA cannot run `entry` of `module`, as a RunError at its op."""
    problem = call_problem(module, entry)
    if problem is not None:
        return problem
    for f in called_functions(module, entry):
        if f.body.blocks.first is None:
            return RunError(f"the xla backend cannot call the external function @{_name(f)}", f)
        for op in f.walk():
            if op is f:
                continue
            why = _unsupported_reason(op)
            if why is not None:
                return RunError(why, op)
            if is_check(op):
                if f is not entry or op.parent_op() is not entry:
                    where = "inside control flow" if f is entry else f"in the called function @{_name(f)}"
                    return RunError(f"the xla backend cannot run '{op.name}' {where}: checks run "
                                    f"only in the entry function's body, where their operands "
                                    f"become results", op)
                if any(not isinstance(u.operation, func.ReturnOp) for r in op.results for u in r.uses):
                    return RunError(f"the xla backend cannot run '{op.name}' whose result is used "
                                    f"by the program (only returning it is supported)", op)
    return None


def entry_checks(entry: func.FuncOp) -> list[Operation]:
    """The check ops of `entry`'s body, in program order."""
    return [op for op in entry.body.ops if is_check(op)]


def lowering_passes(semantics: str) -> list[ModulePass]:
    """The passes of `LOWERING[semantics]`, in order."""
    from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass

    if semantics not in LOWERING:
        raise RunError(f"unknown semantics '{semantics}' (spec or stablehlo)")
    rescale = "float" if semantics == "spec" else "stablehlo"
    return [LegalizeQuantToMathPass(rescale=rescale)] + [XDSL_PASSES[n]()() for n in ("canonicalize", "cse")]


def lower(module: ModuleOp, semantics: str, ctx: Context | None = None) -> ModuleOp:
    """A lowered copy of `module` (see module docstring); a pass error is a RunError at
    the op of `module` it is about, where that op is one of the input's."""
    ctx = ctx or make_context()
    copy = module.clone()
    copied = list(copy.walk())  # kept alive so that ids stay unique during the passes
    originals = dict(zip((id(op) for op in copied), module.walk()))
    passes = lowering_passes(semantics)
    if any(op.dialect_name() == "onnx" for op in copied):
        from qcomp.registry import PASSES

        passes = [PASSES[name]()() for name in ONNX_LOWERING] + passes
    for p in passes:
        try:
            p.apply(ctx, copy)
        except DiagnosticException as e:
            op = originals.get(id(getattr(e, "op", None)))
            msg = getattr(e, "message", None) or str(e).strip().splitlines()[0]
            raise RunError(f"{p.name} failed: {msg}", op) from None
    left = next((op for op in copy.walk() if op.dialect_name() == "onnx"), None)
    if left is not None:
        raise RunError(f"the xla backend cannot run '{left.name}': {', '.join(ONNX_LOWERING)} "
                       f"leave it (qcomp-opt prints their remark saying why); run it with "
                       f"--backend numpy", originals.get(id(left))) from None
    return copy


@dataclass
class EntryModule:
    """The module XLA compiles for one entry function."""

    module: ModuleOp
    n_results: int
    """Results of the function itself; the check operands follow them."""
    check_arity: list[int]
    """Operands each check returned, in check order."""
    verdicts: list[tuple[int, int]]
    """(result index, check index): results that are a check's verdict (an `i1` that
    the host fills in; XLA returns a placeholder)."""
    constants: list[np.ndarray]
    """Values of the trailing arguments `xla_exact.make_exact` gave `@main` (after the
    function's own arguments)."""


_SUB_BYTE_FLOATS = (Float4E2M1FNType, Float6E2M3FNType, Float6E3M2FNType)


def _widen_sub_byte_results(entry: func.FuncOp) -> None:
    """Results of f4 / f6 element types are returned as f32 (XLA's CPU client aborts on
    them; f32 holds every such value exactly and the host converts back)."""
    ret = entry.get_return_op()
    assert ret is not None
    outs = list(entry.function_type.outputs.data)
    operands = list(ret.operands)
    changed = False
    for i, v in enumerate(operands):
        t = v.type
        if isinstance(t, TensorType) and isinstance(t.element_type, _SUB_BYTE_FLOATS):
            wide = ConvertOp(v, TensorType(f32, t.get_shape()))
            ret.parent_block().insert_op_before(wide, ret)
            operands[i] = wide.results[0]
            outs[i] = wide.results[0].type
            changed = True
    if changed:
        ret.parent_block().insert_op_before(func.ReturnOp(*operands), ret)
        ret.detach()
        ret.erase()
        entry.function_type = FunctionType.from_lists(list(entry.function_type.inputs.data), outs)


def for_entry(lowered: ModuleOp, name: str, semantics: str = "spec",
              unsigned_dots: bool = False) -> EntryModule:
    """A copy of `lowered` holding what XLA needs to run `@name` (module docstring, 3);
    `unsigned_dots`: int8 dot_generals in XLA's VNNI form (`qcomp.backends.xla_dots`)."""
    module = lowered.clone()
    funcs = _functions(module)
    entry = funcs[name]
    keep = {_name(f) for f in called_functions(module, entry)}
    for fname, f in funcs.items():
        if fname not in keep:
            f.detach()
            f.erase()
    if name != "main":
        if "main" in keep:  # a function called by the entry is named main: give it another name
            _rename(module, "main", _fresh(keep, "main"))
        _rename(module, name, "main")
    for f in _functions(module).values():
        f.sym_visibility = None if f is entry else StringAttr("private")
    checks = entry_checks(entry)
    ret = entry.get_return_op()
    if ret is None:
        raise RunError(f"@{name} has no func.return", entry)
    n_results = len(ret.operands)
    returned = list(ret.operands)
    verdicts = []
    for k, c in enumerate(checks):
        for r in c.results:
            for use in list(r.uses):
                placeholder = ConstantOp(splat_attr(r.type, 0))
                ret.parent_block().insert_op_before(placeholder, ret)
                returned[use.index] = placeholder.results[0]
                verdicts.append((use.index, k))
    extra = [v for c in checks for v in c.operands]
    if checks:
        new_ret = func.ReturnOp(*returned, *extra)
        ret.parent_block().insert_op_before(new_ret, ret)
        ret.detach()
        ret.erase()
        for c in checks:
            c.detach()
            c.erase()
        outs: list[Attribute] = [*entry.function_type.outputs.data, *(v.type for v in extra)]
        entry.function_type = FunctionType.from_lists(list(entry.function_type.inputs.data), outs)
        if entry.res_attrs is not None:
            entry.res_attrs = None
    _widen_sub_byte_results(entry)
    xla_same_scale.same_scale(entry)
    constants = xla_exact.make_exact(module, entry)
    xla_contractions.depthwise_as_elementwise(module)
    if unsigned_dots:
        xla_convolutions.convolutions_as_dots(module)
        xla_dots.unsigned_lhs_dots(module)
    xla_contractions.float_contractions(module)
    xla_rescale.fixed_point_as_float(module)
    return EntryModule(module, n_results, [len(c.operands) for c in checks], verdicts, constants)


def _fresh(taken: set[str], base: str) -> str:
    i = 0
    while f"{base}_{i}" in taken:
        i += 1
    return f"{base}_{i}"


def _rename(module: ModuleOp, old: str, new: str) -> None:
    for op in module.walk():
        if isinstance(op, func.FuncOp) and _name(op) == old:
            op.sym_name = StringAttr(new)
        else:
            for key, v in list(op.properties.items()):
                if isinstance(v, SymbolRefAttr) and v.root_reference.data == old:
                    op.properties[key] = SymbolRefAttr(new)
