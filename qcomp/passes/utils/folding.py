"""Folds a `Builder` applies as it emits (MLIR's `createOrFold`), and the ops they orphan.

A `Builder` given a `Folds` (`Builder(..., folds=Folds())`) returns an existing value, or
emits fewer ops, where the op it is asked for is known to give that value element for
element (every fold is exact; integers only where values are combined):

| asked for                                        | gives                                   |
|--------------------------------------------------|-----------------------------------------|
| `full(c)` / `broadcast_in_dim` of one value      | one splat `stablehlo.constant`          |
| `clamp(lo, x, hi)`, `[lo, hi]` holding x's range | `x`                                     |
| `convert(x)` to x's own type                     | `x`                                     |
| `convert(convert(y: iN -> iM) -> iN)`, iM holding y's range | `y`                          |
| `x + 0`, `0 + x`, `x - 0` (integers)             | `x`                                     |
| `(y + c1) + c2` (integers, constants)            | `y + (c1 + c2)`, wrapped to the type    |
| a constant equal to an earlier one of the block  | that one                                |

x's range (`value_range`): its integer type's, or narrower when x is an integer convert
that holds its operand's range (then that range), a clamp to constants (the bounds) or
an `i1`. Values are
read through `quant.scast` chains (the storage integers are the same) and constants
through `broadcast_in_dim`. An op a fold leaves unused (the inner convert, the inner add
and its constant) is recorded in `orphans`; `erase_orphans` erases those still unused
once the pass is done (their Python values may still be used by the code that built
them: then they stay), and the producers that leaves unused. Static shapes only: a
dynamic shape is built as without folds.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerType, Signedness, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import StorageCastOp
from qcomp.ir.splat import dense_array, element_count, is_held_splat, is_splat_array
from qcomp.quant.ranges import storage_range, wrap

MAX_FOLDED = 1 << 16
"""Constants with more elements than this (and not held splats) are not read for folds."""

_PURE = (sh.ConstantOp, sh.BroadcastInDimOp, sh.AddOp, sh.SubtractOp, sh.ConvertOp,
         sh.ClampOp, StorageCastOp)
"""The op classes `erase_orphans` erases once unused (no effects, no regions)."""


def int_range(t) -> tuple[int, int] | None:
    """(lo, hi) of an integer tensor type's elements (i1: [0, 1]); None otherwise."""
    e = t.element_type if isinstance(t, TensorType) else t
    if not isinstance(e, IntegerType):
        return None
    w = e.width.data
    return (0, 1) if w == 1 else storage_range(w, e.signedness.data != Signedness.UNSIGNED)


def storage_source(v: SSAValue) -> SSAValue:
    """`v` read back through `quant.scast` chains to the value it reinterprets."""
    while isinstance(v.owner, StorageCastOp):
        v = v.owner.arg
    return v


def _static(v: SSAValue) -> bool:
    t = v.type
    return isinstance(t, TensorType) and all(d >= 0 for d in t.get_shape())


def constant_values(v: SSAValue) -> np.ndarray | None:
    """The values of `v` when it is an integer constant (read through scasts and one
    broadcast_in_dim), as an int64 array of v's rank with size-1 dimensions where it is
    uniform; None otherwise."""
    if not _static(v) or int_range(v.type) is None:
        return None
    rank = len(v.type.get_shape())  # type: ignore[attr-defined]
    src = storage_source(v)
    op = src.owner
    dims = None
    if isinstance(op, sh.BroadcastInDimOp):
        dims = list(op.broadcast_dimensions)
        src = storage_source(op.operands[0])
        op = src.owner
    if not isinstance(op, sh.ConstantOp):
        return None
    e = op.value.get_element_type()
    if int_range(e) is None:
        return None
    if is_held_splat(op.value):
        return np.full((1,) * rank, dense_array(op.value, np.int64).reshape(-1)[0])
    if element_count(op.value) > MAX_FOLDED:
        return None
    if e.width.data in (8, 16, 32, 64):  # type: ignore[attr-defined]
        a = np.frombuffer(op.value.data.data, np.dtype(e.format)).astype(np.int64)  # type: ignore[attr-defined]
        a = a.reshape(tuple(op.value.get_type().get_shape()))
    else:
        a = dense_array(op.value, np.int64)
    if a.size == 1 or is_splat_array(a):
        return np.full((1,) * rank, a.reshape(-1)[0])
    if a.size > MAX_FOLDED:
        return None
    if dims is None:
        return np.array(a) if a.ndim == rank else None
    shape = [1] * rank
    for i, d in enumerate(dims):
        shape[d] = a.shape[i]
    return np.array(a).reshape(shape)


def value_range(v: SSAValue, depth: int = 4) -> tuple[int, int] | None:
    """Bounds on the integer values of `v` (module docstring), or None (not integers)."""
    r = int_range(v.type)
    if r is None or depth == 0:
        return r
    src = storage_source(v)
    if src is not v:
        inner = value_range(src, depth - 1)
        return r if inner is None else (max(r[0], inner[0]), min(r[1], inner[1]))
    op = v.owner
    inner = None
    if isinstance(op, sh.ConvertOp):
        inner = value_range(op.operands[0], depth - 1)
        if inner is not None and not (r[0] <= inner[0] and inner[1] <= r[1]):
            inner = None  # a narrowing convert wraps
    elif isinstance(op, sh.ClampOp):
        lo, hi = constant_values(op.operands[0]), constant_values(op.operands[2])
        if lo is not None and hi is not None:
            inner = int(lo.min()), int(hi.max())
    if inner is None:
        return r
    return max(r[0], inner[0]), min(r[1], inner[1])


def wrapped(values: np.ndarray, t) -> np.ndarray:
    """Integer `values` (int64, already wrapped to 64 bits) modulo 2^width into the
    range of `t`'s integer element type (`int_range`), as int64."""
    e = t.element_type if isinstance(t, TensorType) else t
    w = e.width.data
    return wrap(values, w, w != 1 and e.signedness.data != Signedness.UNSIGNED).astype(np.int64)


def single_use_chain(v: SSAValue, user: SSAValue, anchor: Operation | None) -> bool:
    """`user` reads `v` through scasts nobody else reads (or is `v`), and `user` has no
    uses yet: a fold that replaces `user`'s use leaves v unused (uses by `anchor`, the
    op being rewritten, do not count)."""
    if user.uses:
        return False
    while user is not v:
        if not isinstance(user.owner, StorageCastOp):
            return False
        user = user.owner.arg
        if sum(u.operation is not anchor for u in user.uses) != 1:
            return False
    return True


class Folds:
    """The emission-time folds of the Builders that share it (module docstring)."""

    def __init__(self) -> None:
        self.orphans: list[Operation] = []
        self.constants: dict[tuple[Block, Attribute], SSAValue] = {}
        """Each block's constants by value (module docstring)."""

    def constant(self, value: Attribute, anchor: Operation, make) -> SSAValue:
        """The constant `value` for an op inserted before `anchor`: one made (`make()`)
        before an earlier anchor of the same block, still there, else a new one. (The
        pass rewrites a block's ops in order, so an earlier constant dominates.)"""
        key = (anchor.parent_block(), value)
        v = self.constants.get(key)
        if v is None or v.owner.parent is None:  # type: ignore[union-attr]
            v = self.constants[key] = make()
        return v

    def orphan(self, v: SSAValue) -> None:
        """`v`'s producer may be left unused by a fold."""
        if isinstance(v.owner, Operation):
            self.orphans.append(v.owner)

    def erase_orphans(self, rewriter: PatternRewriter | None = None) -> None:
        """Erase the recorded ops that are unused, then the producers that leaves unused
        (through `rewriter` while a pattern walk runs)."""
        todo, self.orphans = self.orphans[::-1], []
        while todo:
            op = todo.pop()
            if op.parent is None or not isinstance(op, _PURE) or any(r.uses for r in op.results):
                continue
            producers = [v.owner for v in op.operands if isinstance(v.owner, Operation)]
            if rewriter is not None:
                rewriter.erase(op)
            else:
                op.detach()
                op.erase()
            todo.extend(producers)


__all__ = ["Folds", "constant_values", "int_range", "single_use_chain", "storage_source",
           "value_range", "wrapped"]
