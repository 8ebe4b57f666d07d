"""The `set-batch-size` pass."""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.facts import Elementwise
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.ir.splat import dense_attr, is_held_splat, one_element_if_splat
from qcomp.passes.utils.diagnostics import PassDiagnostic

PASS = "set-batch-size"

_SAME_SHAPE = (sh.ConvertOp, sh.CompareOp, sh.SelectOp, sh.ClampOp, sh.ComplexOp,
               sh.IsFiniteOp, sh.ReducePrecisionOp, sh.UniformQuantizeOp,
               sh.UniformDequantizeOp)
"""Ops whose tensor operands and results share one shape, besides the `Elementwise` ones
(rank-0 operands, as clamp's bounds, are scalars for every sample)."""


def _shape(v: SSAValue) -> tuple[int, ...] | None:
    t = v.type
    return tuple(t.get_shape()) if isinstance(t, TensorType) else None


def _batched_type(t: Attribute, n: int) -> TensorType:
    assert isinstance(t, TensorType)
    return TensorType(t.element_type, [n, *t.get_shape()[1:]], t.encoding)


@dataclass(frozen=True)
class SetBatchSizePass(ModulePass):
    """Rewrite the leading (batch) dimension of each public function's arguments from
    its size `B` to `n`, and of every value computed from them, so that one call runs
    `n` samples where the program ran `B`.

    Every argument must be a static tensor whose leading dimension is the same `B`.
    The pass follows the values that carry the batch dimension (as their dimension 0)
    and, op by op, checks that each treats the samples independently, rewriting the
    shapes and attributes that name the batch size:

    - element-wise ops (and convert, compare, select, clamp, uniform (de)quantize): an
      operand without the batch dimension is broadcast to it (`broadcast_in_dim`) when
      its leading dimension is 1 or it is a `broadcast_in_dim` along dimension 0 (a
      bias broadcast to the `B` rows); a splat constant becomes one of the batched
      shape; rank-0 operands are scalars;
    - `broadcast_in_dim` (operand dimension 0 to result dimension 0), `reshape` (the
      leading dimension kept, the rest the same size), `slice` (all of dimension 0),
      `pad` (none on dimension 0), `transpose` (dimension 0 stays first), `concatenate`
      (not along dimension 0), `reduce` and `reduce_window` (not over dimension 0),
      `convolution` (batch dimension 0 in and out, the kernel without it),
      `dot_general` (lhs dimension 0 free, no batching dimensions, the rhs without
      it), `gather` (of a table without the batch dimension, indices with it first);
    - every result of `func.return` carries the batch dimension.

    Any other op on a batched value, or one of these outside its condition, is an
    error at that op. Private functions are left as they are (a `func.call` of one on
    a batched value is an error). `n` equal to `B` changes nothing.
    """

    name = PASS
    n: int = 1

    def numerics_contract(self) -> tuple[str, int, bool, bool]:
        """For `qcomp-opt --verify-numerics`: bit for bit, each sample of the batch the
        per-sample program's result (a sample repeated across the new batch)."""
        return ("spec", 0, False, True)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.n < 1:
            raise PassDiagnostic(op, f"{PASS}: n must be at least 1, got {self.n}")
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and f.body.blocks and \
                    (f.sym_visibility is None or f.sym_visibility.data != "private"):
                _Batcher(f, self.n).run()


def leading_batch(f: func.FuncOp) -> int | None:
    """`B` when every argument of `f` is a static tensor of leading dimension `B` (what
    the pass asks of each public function's arguments), else None."""
    shapes = [_shape(a) for a in f.body.blocks.first.args] if f.body.blocks.first else []
    if not shapes or any(not s or min(s) < 0 or s[0] != shapes[0][0] for s in shapes):
        return None
    return shapes[0][0]


def rebatched(module: ModuleOp, n: int) -> ModuleOp | None:
    """A copy of `module` with batch size `n` (the pass on a clone), or None where the
    pass refuses it (an op that mixes samples, an argument without the batch dimension)."""
    copy = module.clone()
    try:
        SetBatchSizePass(n=n).apply(Context(), copy)  # the pass reads no dialect from it
    except Exception:  # noqa: BLE001 - PassDiagnostic, or an op the rules never met: no copy
        return None
    return copy


class _Batcher:
    def __init__(self, f: func.FuncOp, n: int) -> None:
        self.f, self.n = f, n
        self.batched: set[SSAValue] = set()
        self.old = 0

    def fail(self, op: Operation, why: str) -> PassDiagnostic:
        return PassDiagnostic(op, f"{PASS}: '{op.name}' {why}")

    def run(self) -> None:
        f = self.f
        block = f.body.blocks.first
        assert block is not None
        sizes = set()
        for i, a in enumerate(block.args):
            s = _shape(a)
            if not s or any(d < 0 for d in s):
                raise PassDiagnostic(f, f"{PASS}: argument {i} of @{f.sym_name.data} has no "
                                        f"static leading dimension ({a.type})")
            sizes.add(s[0])
        if len(sizes) != 1:
            raise PassDiagnostic(f, f"{PASS}: the arguments of @{f.sym_name.data} have "
                                    f"different leading dimensions {sorted(sizes)}")
        self.old = sizes.pop()
        if self.old == self.n:
            return
        for a in list(block.args):
            self.batched.add(Rewriter.replace_value_with_new_type(a, _batched_type(a.type, self.n)))
        self.block(block)
        ret = block.last_op
        f.function_type = FunctionType.from_lists(
            [a.type for a in block.args],
            [v.type for v in ret.operands] if ret is not None else [])

    def block(self, block: Block) -> None:
        for op in list(block.ops):
            if not any(o in self.batched for o in op.operands):
                if any(o in self.batched for r in op.regions for inner in r.walk()
                       for o in inner.operands):
                    raise self.fail(op, "uses a batched value inside its region")
                continue
            if isinstance(op, func.ReturnOp):
                for i, o in enumerate(op.operands):
                    if o not in self.batched:
                        raise self.fail(op, f"returns value {i} without the batch dimension")
                continue
            for i in self.rule(op):
                r = op.results[i]
                self.batched.add(Rewriter.replace_value_with_new_type(r, _batched_type(r.type, self.n)))

    def broadcast_operands(self, op: Operation) -> None:
        """Operands of an element-wise op that lack the batch dimension, broadcast."""
        for i, o in enumerate(op.operands):
            s = _shape(o)
            if o in self.batched or not s:
                continue
            source, dims = o, list(range(len(s)))
            wide = TensorType(o.type.element_type, [self.n, *s[1:]])
            if isinstance(o.owner, sh.ConstantOp) and math.prod(s) > 1 \
                    and is_held_splat(one := one_element_if_splat(o.owner.value)):
                c = sh.ConstantOp(dense_attr(wide, one.data.data))  # one value: as wide
                Rewriter.insert_op(c, InsertPoint.before(op))
                op.operands[i] = c.results[0]
                continue
            if s[0] != 1:  # the same for every sample if broadcast along dimension 0
                p = o.owner
                if not (isinstance(p, sh.BroadcastInDimOp) and _along_dim0(p)):
                    raise self.fail(op, f"takes operand {i} without the batch dimension and "
                                        f"leading dimension {s[0]} (only 1 broadcasts)")
                source, dims = p.operand, list(p.broadcast_dimensions)
            b = sh.BroadcastInDimOp.create(
                operands=[source],
                result_types=[wide], properties={"broadcast_dimensions": i64_array(dims)})
            Rewriter.insert_op(b, InsertPoint.before(op))
            op.operands[i] = b.results[0]

    def rule(self, op: Operation) -> range | list[int]:
        """The results that carry the batch dimension; attributes rewritten; an error if
        the op mixes samples."""
        every = range(len(op.results))
        ins = [o in self.batched for o in op.operands]
        if op.has_trait(Elementwise) or isinstance(op, _SAME_SHAPE):
            self.broadcast_operands(op)
            return every
        if isinstance(op, sh.BroadcastInDimOp):
            if tuple(op.broadcast_dimensions[:1]) != (0,):
                raise self.fail(op, "moves the batch dimension (broadcast_dimensions[0] != 0)")
            return every
        if isinstance(op, sh.ReshapeOp):
            a, b = _shape(op.operand), _shape(op.result)
            if not b or b[0] != self.old or math.prod(a[1:]) != math.prod(b[1:]):
                raise self.fail(op, f"does not keep the batch dimension "
                                    f"({(self.old, *a[1:])} -> {b})")
            return every
        if isinstance(op, sh.SliceOp):
            start, limit, strides = list(op.start_indices), list(op.limit_indices), list(op.strides)
            if (start[0], limit[0], strides[0]) != (0, self.old, 1):
                raise self.fail(op, "slices the batch dimension")
            limit[0] = self.n
            op.properties["limit_indices"] = i64_array(limit)
            return every
        if isinstance(op, sh.PadOp):
            if ins[1] or (op.edge_padding_low[0], op.edge_padding_high[0],
                          op.interior_padding[0]) != (0, 0, 0):
                raise self.fail(op, "pads the batch dimension")
            return every
        if isinstance(op, sh.TransposeOp):
            if tuple(op.permutation[:1]) != (0,):
                raise self.fail(op, "moves the batch dimension")
            return every
        if isinstance(op, sh.ConcatenateOp):
            if op.dimension == 0:
                raise self.fail(op, "concatenates along the batch dimension")
            self.broadcast_operands(op)
            return every
        if isinstance(op, sh.ReduceOp | sh.ReduceWindowOp):
            k = len(op.inputs)
            if not all(ins[:k]) or any(ins[k:]):
                raise self.fail(op, "reduces values with and without the batch dimension")
            if isinstance(op, sh.ReduceOp) and 0 in op.dimensions:
                raise self.fail(op, "reduces over the batch dimension")
            if isinstance(op, sh.ReduceWindowOp) and not _window_keeps_dim0(op):
                raise self.fail(op, "has a window across the batch dimension")
            return every
        if isinstance(op, sh.ConvolutionOp):
            d = op.dimension_numbers
            if ins[1] or d.input_batch_dimension != 0 or d.output_batch_dimension != 0 \
                    or int(op.batch_group_count) != 1:
                raise self.fail(op, "does not keep the batch dimension first (or its kernel "
                                    "has it)")
            return every
        if isinstance(op, sh.DotGeneralOp):
            if ins[1] or op.lhs_batching_dimensions or 0 in op.lhs_contracting_dimensions:
                raise self.fail(op, "does not keep lhs dimension 0 free (or its rhs has the "
                                    "batch dimension)")
            return every
        if isinstance(op, sh.GatherOp):
            d = op.dimension_numbers
            if ins[0] or d.index_vector_dim == 0 or 0 in d.offset_dims or \
                    d.operand_batching_dims:
                raise self.fail(op, "does not keep the indices' batch dimension first")
            return every
        raise self.fail(op, "does not allow a new batch size")


def _along_dim0(op: sh.BroadcastInDimOp) -> bool:
    """Whether `op` repeats its operand along result dimension 0."""
    dims = list(op.broadcast_dimensions)
    return 0 not in dims or _shape(op.operand)[dims.index(0)] == 1


def _window_keeps_dim0(op: sh.ReduceWindowOp) -> bool:
    return (op.window_dimensions[0] == 1 and op.window_strides[0] == 1
            and op.base_dilations[0] == 1 and op.window_dilations[0] == 1
            and tuple(op.padding[0]) == (0, 0))
