"""Quantized types at function boundaries replaced by storage types, with `quant.scast`
bridging old and new values. Shared by `strip-func-quant-types` and
`stablehlo-legalize-quant-to-math`; `lowered` maps a type to its storage form (types
it leaves unchanged are left alone)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, TensorType, TupleType, UnrankedTensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from qcomp.dialects.quant import AnyQuantizedType, StorageCastOp, UniformQuantizedType
from qcomp.passes.utils.builder import Builder

TypeMap = Callable[[Attribute], Attribute]


def stripped_type(t: Attribute) -> Attribute:
    """`t` with a quantized element type replaced by its storage type (in each element
    of a tuple)."""
    if isinstance(t, TupleType):
        return TupleType([stripped_type(e) for e in t.types])
    if isinstance(t, UniformQuantizedType | AnyQuantizedType):
        return t.storage
    if isinstance(t, TensorType):
        e = t.element_type
        if isinstance(e, UniformQuantizedType | AnyQuantizedType):
            return TensorType(e.storage, t.shape, t.encoding)
    if isinstance(t, UnrankedTensorType):
        e = t.element_type
        if isinstance(e, UniformQuantizedType | AnyQuantizedType):
            return UnrankedTensorType(e.storage)
    return t


def retype_block_args(block: Block, rewriter: PatternRewriter,
                      lowered: TypeMap = stripped_type) -> None:
    """Block arguments take their `lowered` types; a `quant.scast` back to the old
    type at the top of the block for each changed one."""
    b = Builder(rewriter, point=InsertPoint.at_start(block))
    for index, old in enumerate(list(block.args)):
        new_type = lowered(old.type)
        if new_type == old.type:
            continue
        new = rewriter.insert_block_argument(block, index, new_type)
        new.name_hint = old.name_hint
        cast = b.insert(StorageCastOp(new, old.type))
        rewriter.replace_all_uses_with(old, cast.res)
        rewriter.erase_block_argument(old)


def _lowered_value(v: SSAValue, rewriter: PatternRewriter, op: Operation,
                   lowered: TypeMap) -> SSAValue:
    """`v` itself if `lowered` keeps its type, else a `quant.scast` of it before `op`."""
    t = lowered(v.type)
    if t == v.type:
        return v
    return Builder(rewriter, op).emit(StorageCastOp(v, t))


def lower_func_signature(op: func.FuncOp, rewriter: PatternRewriter,
                         lowered: TypeMap = stripped_type) -> None:
    """`lowered` types in the signature; entry arguments cast back at the top."""
    ft = op.function_type
    ins = [lowered(t) for t in ft.inputs.data]
    outs = [lowered(t) for t in ft.outputs.data]
    if ins == list(ft.inputs.data) and outs == list(ft.outputs.data):
        return
    op.function_type = FunctionType.from_lists(ins, outs)
    rewriter.notify_op_modified(op)
    if op.body.blocks:
        retype_block_args(op.body.blocks[0], rewriter, lowered)


def lower_return(op: func.ReturnOp, rewriter: PatternRewriter,
                 lowered: TypeMap = stripped_type) -> None:
    """Operands of `func.return` cast to their `lowered` types."""
    if all(lowered(v.type) == v.type for v in op.arguments):
        return
    rewriter.replace(op, func.ReturnOp(*[_lowered_value(v, rewriter, op, lowered)
                                         for v in op.arguments]))


def lower_call(op: func.CallOp, rewriter: PatternRewriter,
               lowered: TypeMap = stripped_type) -> None:
    """`func.call` on `lowered` values; changed results cast back after the call."""
    types = [lowered(r.type) for r in op.results]
    if types == [r.type for r in op.results] and all(
            lowered(v.type) == v.type for v in op.arguments):
        return
    args = [_lowered_value(v, rewriter, op, lowered) for v in op.arguments]
    b = Builder(rewriter, op)
    call = b.insert(func.CallOp(op.callee, args, types))
    results = [n if n.type == o.type else b.emit(StorageCastOp(n, o.type))
               for o, n in zip(op.results, call.results)]
    rewriter.replace(op, [], results)


def lower_function_boundary(op: Operation, rewriter: PatternRewriter,
                            lowered: TypeMap = stripped_type) -> None:
    """`lower_func_signature`, `lower_return` or `lower_call`, by the kind of `op`."""
    if isinstance(op, func.FuncOp):
        lower_func_signature(op, rewriter, lowered)
    elif isinstance(op, func.ReturnOp):
        lower_return(op, rewriter, lowered)
    elif isinstance(op, func.CallOp):
        lower_call(op, rewriter, lowered)
