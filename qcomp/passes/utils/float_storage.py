"""Quantized types with float storage (`!quant.uniform<f8E4M3FN:f32, 2.0:3>`) have a
meaning in lower-quant-ops, the function boundaries of the quant-to-math passes and the
interpreter (`qcomp.quant.float_storage`), none in tosa.rescale's integer arithmetic or
the rowwise formats: those passes refuse the program at the first op using one,
instead of treating the storage as an integer."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, FunctionType, ModuleOp
from xdsl.ir import Attribute, Operation

from qcomp.dialects.quant import AnyQuantizedType, UniformQuantizedType, element_type
from qcomp.passes.utils.diagnostics import PassDiagnostic


def float_storage_of(t: Attribute) -> str | None:
    """The float storage type's name of the quantized element of `t` (also inside a
    function type), if it has one."""
    if isinstance(t, FunctionType):
        for part in (*t.inputs.data, *t.outputs.data):
            if (name := float_storage_of(part)) is not None:
                return name
        return None
    if isinstance(t, ArrayAttr):
        return next((n for x in t.data if (n := float_storage_of(x)) is not None), None)
    e = element_type(t)
    if isinstance(e, UniformQuantizedType | AnyQuantizedType) and e.is_float_storage:
        return e.storage_spelling
    return None


def _types(op: Operation):
    yield from (v.type for v in op.operands)
    yield from (v.type for v in op.results)
    for region in op.regions:
        for block in region.blocks:
            yield from (a.type for a in block.args)
    if isinstance(op, func.FuncOp):
        yield op.function_type


def refuse_float_storage(module: ModuleOp, pass_name: str) -> None:
    """A PassDiagnostic at the first op whose operands, results, block arguments or
    function type hold a quantized type with float storage."""
    for op in module.walk():
        for t in _types(op):
            name = float_storage_of(t)
            if name is not None:
                raise PassDiagnostic(
                    op, f"{pass_name}: float storage type {name} in a quantized type is not "
                    "supported yet")
