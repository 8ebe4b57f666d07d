"""Verifiers of StableHLO's region and control-flow ops, with upstream's messages
(TypeInference.cpp): scatter, select_and_scatter, sort, while, if, case, map, tuple.

`check_reducer_shape` is upstream's `verifyReducerShape`: a body taking `2 * n` scalar
arguments (accumulators first, then elements) and returning `n` values whose types
match the accumulators.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerType, TensorType, TupleType
from xdsl.ir import Attribute, Block, Region

from qcomp.dialects.quant import element_type
from qcomp.dialects.stablehlo.kinds import RANKED, ElementKinds, describe, fits, type_text
from qcomp.dialects.stablehlo.verify_shapes import (
    compatible_types,
    fail,
    fmt_dims,
    shape,
    shapes_compatible,
)


def types_text(types: Sequence[Attribute]) -> str:
    """Types as MLIR's diagnostics stream them: `'a', 'b'`."""
    return ", ".join(f"'{type_text(t)}'" for t in types)


def check_group_kinds(op, groups: Sequence[tuple[Sequence, bool]],
                      result_variadic: bool) -> None:
    """The op's declared element kinds (`ElementKinds.same`) on its operand groups
    `(values, variadic)`, numbered by ODS operand group as upstream's messages are
    (`operand #2 must be variadic of ...`)."""
    declared = op.get_trait(ElementKinds)
    prefix, kinds = declared.result or (RANKED, ())
    for i, (values, variadic) in enumerate(groups):
        for v in values:
            if not fits(v.type, prefix, kinds):
                what = ("variadic of " if variadic else "") + describe(prefix, kinds)
                fail(f"operand #{i} must be {what}, but got '{type_text(v.type)}'")
    for r in op.results:
        if not fits(r.type, prefix, kinds):
            what = ("variadic of " if result_variadic else "") + describe(prefix, kinds)
            fail(f"result #0 must be {what}, but got '{type_text(r.type)}'")


def _scalar(e: Attribute) -> TensorType:
    return TensorType(element_type(e), [])


def _is_i1_scalar(t: Attribute) -> bool:
    return (isinstance(t, TensorType) and not t.get_shape()
            and isinstance(t.element_type, IntegerType) and t.element_type.width.data == 1)


def terminator_types(block: Block) -> list[Attribute]:
    last = block.last_op
    return [v.type for v in last.operands] if last is not None else []


def check_reducer_shape(block: Block, input_types: Sequence[Attribute],
                        init_types: Sequence[Attribute]) -> None:
    """Upstream's verifyReducerShape with no allowed dimensions (scalar accumulators)."""
    n = len(input_types)
    args = block.args
    if len(args) != 2 * n:
        fail(f"Reduction-region must take {2 * n} parameters, but takes {len(args)} "
             "parameter(s)")
    acc = terminator_types(block)
    if not acc:
        fail("The reduction-region expected to return some value(s)")
    if len(acc) != n:
        fail(f"Reduction-region here must produce {n} tensors, but produces {len(acc)} "
             "instead")
    for i in range(n):
        if not compatible_types(acc[i], args[i].type):
            fail(f"The type of reduction-region's parameter at index {i} is different than "
                 f"the corresponding result type: '{type_text(args[i].type)}' vs "
                 f"'{type_text(acc[i])}'")
        if not shapes_compatible(shape(acc[i]), shape(args[n + i].type)):
            fail(f"The type of reduction-region's parameter at index {n + i} is different "
                 f"than the corresponding result type: '{type_text(args[n + i].type)}' vs "
                 f"'{type_text(acc[i])}'")
        if not shapes_compatible(shape(init_types[i]), shape(acc[i])):
            fail(f"The shape of reduction-region's result type at index {i} differs from the "
                 f"op's corresponding init-value type: '{type_text(acc[i])}' vs "
                 f"'{type_text(init_types[i])}'")
        if shape(args[n + i].type):
            fail(f"The rank of reduction-region's argument at index {n + i} is expected to be "
                 f"<= 0, got {len(shape(args[n + i].type))}")


def check_dims_sorted_unique(dims: Sequence[int], name: str, unique: bool = True) -> None:
    if list(dims) != sorted(dims):
        fail(f"Expects {name} to be sorted; got: [{', '.join(map(str, dims))}].")
    if unique and len(set(dims)) != len(dims):
        fail(f"Expects {name} to not repeat; got: [{', '.join(map(str, dims))}].")


def check_dim_in_bounds(dim: int, bound: int, name: str, bound_name: str,
                        inclusive: bool = False) -> None:
    """Upstream's checkDimInBounds."""
    end = "]" if inclusive else ")"
    if dim < 0 or dim >= bound + (1 if inclusive else 0):
        fail(f"Expects {name} to be in range [0, {bound_name}{end} i.e. [0, {bound}{end}. "
             f"got: {dim}.")


def check_dims_in_bounds(dims: Sequence[int], bound: int, name: str, bound_name: str) -> None:
    """Upstream's checkDimsInBounds."""
    for d in dims:
        if d < 0 or d >= bound:
            fail(f"Expects each element of {name} to be in range [0, {bound_name}) i.e. "
                 f"[0, {bound}). got: {d}.")


def check_dims_distinct(a: Sequence[int], b: Sequence[int], name_a: str, name_b: str) -> None:
    """Upstream's checkDimsDistinct."""
    seen: set[int] = set()
    for d in (*a, *b):
        if d in seen:
            fail(f"has duplicated dimension from {name_a} and {name_b}: {d}")
        seen.add(d)


def verify_while(operand_types: Sequence[Attribute], cond: Region, body: Region) -> None:
    cond_args = [a.type for a in cond.block.args]
    body_args = [a.type for a in body.block.args]
    if not _all_compatible(operand_types, cond_args):
        fail("expect operands to be compatible with condition block arguments but got "
             f"{types_text(operand_types)} vs {types_text(cond_args)}")
    if not _all_compatible(operand_types, body_args):
        fail("expect operands to be compatible with body block arguments but got "
             f"{types_text(operand_types)} vs {types_text(body_args)}")
    rets = terminator_types(body.block)
    if not _all_compatible(operand_types, rets):
        fail("expect operands to be compatible with body block return types but got "
             f"{types_text(operand_types)} vs {types_text(rets)}")
    cond_rets = terminator_types(cond.block)
    if len(cond_rets) != 1:
        fail(f"expect condition body returns a single value but got {len(cond_rets)}")
    if not _is_i1_scalar(cond_rets[0]):
        fail("expect condition block return a zero-ranked tensor of i1 but got "
             f"'{type_text(cond_rets[0])}'")


def _all_compatible(a: Sequence[Attribute], b: Sequence[Attribute]) -> bool:
    return len(a) == len(b) and all(_compatible(x, y) for x, y in zip(a, b))


def _compatible(a: Attribute, b: Attribute) -> bool:
    """isCompatibleForHloTypeInference for tensors, tuples and tokens."""
    if isinstance(a, TupleType) or isinstance(b, TupleType):
        return (isinstance(a, TupleType) and isinstance(b, TupleType)
                and _all_compatible(a.types.data, b.types.data))
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        return compatible_types(a, b)
    return a == b


def verify_branches(branches: Sequence[Region], result_types: Sequence[Attribute],
                    what: str) -> None:
    """if / case: every branch takes nothing and returns the op's result types."""
    for i, region in enumerate(branches):
        block = region.block
        if block.args:
            fail(f"expect {what} {i} to have 0 arguments, but got {len(block.args)}")
    first = terminator_types(branches[0].block) if branches else []
    for i, region in enumerate(branches):
        rets = terminator_types(region.block)
        if not _all_compatible(first, rets):
            fail(f"{what} 0 and {what} {i} have mismatched return types: "
                 f"{types_text(first)} vs {types_text(rets)}")
    if not _all_compatible(first, result_types):
        fail(f"inferred type(s) {types_text(first)} are incompatible with return type(s) of "
             f"operation {types_text(result_types)}")


def verify_sort(input_types: Sequence[Attribute], dimension: int, comparator: Region) -> None:
    rank = len(shape(input_types[0])) if input_types else 0
    if not -rank <= dimension < rank:
        fail(f"dimension attribute value must be in range [-{rank}, {rank}), but found "
             f"{dimension}")
    block = comparator.block
    n = len(input_types)
    if len(block.args) != 2 * n:
        fail(f"comparator block should have {2 * n} arguments")
    for k, t in enumerate(input_types):
        want = _scalar(t)
        for i in (2 * k, 2 * k + 1):
            if block.args[i].type != want:
                fail(f"comparator block argument #{i} should be of type '{type_text(want)}' "
                     f"but got '{type_text(block.args[i].type)}'")
    rets = terminator_types(block)
    if len(rets) != 1:
        fail(f"comparator must return single output but got {len(rets)}")
    if not _is_i1_scalar(rets[0]):
        fail(f"comparator must return tensor<i1> but got '{type_text(rets[0])}'")


def verify_map(input_types: Sequence[Attribute], dims: Sequence[int], body: Region,
               result_type: Attribute) -> None:
    block = body.block
    if len(block.args) != len(input_types):
        fail(f"expects number of operands to match the arity of map computation, but got: "
             f"{len(input_types)} and {len(block.args)}")
    for i, (arg, t) in enumerate(zip(block.args, input_types)):
        if shape(arg.type):
            fail(f"computation arguments must be 0-rank tensor, but got: arg #{i} of type "
                 f"'{type_text(arg.type)}'")
        if element_type(arg.type) != element_type(t):
            fail(f"element type of operands and computation arguments must match, but got: "
                 f"'{type_text(element_type(t))}' and '{type_text(element_type(arg.type))}'")
    rets = terminator_types(block)
    if len(rets) != 1:
        fail(f"computation must return single output, but got: {len(rets)}")
    if shape(rets[0]):
        fail(f"computation must return 0-rank tensor, but got: '{type_text(rets[0])}'")
    rank = len(shape(input_types[0])) if input_types else 0
    if list(dims) != list(range(rank)):
        fail("requires monotonically increasing dimension numbers, but got: "
             f"{', '.join(map(str, dims))}")
    expected = TensorType(element_type(rets[0]), shape(input_types[0]))
    if not compatible_types(expected, result_type):
        fail(f"inferred type(s) '{type_text(expected)}' are incompatible with return type(s) of "
             f"operation '{type_text(result_type)}'")


def window_output_shape(in_shape: Sequence[int], window: Sequence[int],
                        strides: Sequence[int], padding: Sequence[tuple[int, int]]) -> list[int]:
    out = []
    for size, w, s, (lo, hi) in zip(in_shape, window, strides, padding):
        padded = size + lo + hi
        out.append(-1 if size < 0 else (0 if padded < w else (padded - w) // s + 1))
    return out


def fmt_shape(dims: Sequence[int]) -> str:
    return fmt_dims(dims)
