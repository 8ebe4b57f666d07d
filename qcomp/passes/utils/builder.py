"""`Builder`: how every qcomp pass inserts new IR.

A `Builder` inserts ops before one anchor op (the op being rewritten; or at another
`InsertPoint`) through the pattern's `PatternRewriter`, each after the previous one.
Ops are built by class (`b.op(sh.AddOp, [x, y], i32)`,
`b.emit(arith.AddiOp(x, y))`); tensor results are `tensor<shape x element>`, the
shape defaulting to the first operand's. Constants hold exactly the values of their
element type (floats rounded to it first: 65535 is inf in f16, as the spec's
convert gives).

Dynamic shapes (a `?` in the target shape): `broadcast` / `full` leave the value
small and remember its broadcast dimensions; the next elementwise op on it becomes
its `chlo.broadcast_*` twin with those `broadcast_dimensions` (upstream's
StablehloLegalizeQuantToMath does the same with every scale and zero point), so the
IR never needs the run-time shape.

Given a `Folds` (`qcomp.passes.utils.folding`), a Builder folds as it emits (MLIR's
`createOrFold`): one splat constant for a broadcast value, no clamp that cannot change
its operand, no convert back from a widening convert, constant adds combined.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TypeVar

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from qcomp.dialects import chlo
from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import float_kind
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.ir.splat import dense_array, dense_attr, is_held_splat, is_splat_array, splat_attr
from qcomp.passes.utils.folding import (
    Folds,
    constant_values,
    int_range,
    single_use_chain,
    storage_source,
    value_range,
    wrapped,
)
from qcomp.quant.uniform import expressed_numpy_dtype

OpT = TypeVar("OpT", bound=Operation)


def is_dynamic(shape) -> bool:
    return any(d < 0 for d in shape)


def shape_of(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def element_of(v: SSAValue) -> Attribute:
    t = v.type
    assert isinstance(t, TensorType)
    return t.element_type


@lru_cache(maxsize=4096)
def tensor_type(element: Attribute, shape: tuple[int, ...]) -> TensorType:
    """`TensorType(element, shape)`, built once per distinct pair (attributes are immutable)."""
    return TensorType(element, shape)


@lru_cache(maxsize=4096)
def _dense(element: Attribute, shape: tuple[int, ...], flat: tuple) -> DenseIntOrFPElementsAttr:
    return DenseIntOrFPElementsAttr.from_list(tensor_type(element, shape), list(flat))


def dense_ints(t: TensorType, values) -> DenseIntOrFPElementsAttr:
    """A dense attribute of the integer tensor type `t` holding `values` (through
    bytes: no Python list, for large weights)."""
    raw = np.asarray(values).astype(np.dtype(t.get_element_type().format))  # type: ignore[attr-defined]
    return dense_attr(t, np.ascontiguousarray(raw).tobytes())


def dense_values(a: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The values of a dense attribute as an array of its shape: integers (int64) read
    from its bytes, the rest as float64 (`qcomp.ir.splat.dense_array`); a held splat is
    a read-only broadcast view."""
    e = a.get_element_type()
    if not isinstance(e, IntegerType) or e.width.data == 1 or is_held_splat(a):
        return dense_array(a, np.int64 if isinstance(e, IntegerType) else np.float64)
    flat = np.frombuffer(a.data.data, np.dtype(e.format)).astype(np.int64)
    return flat.reshape(tuple(a.get_type().get_shape()))


def in_element_type(values, element: Attribute) -> np.ndarray:
    """`values` rounded to the float type `element` (as float64); integers unchanged."""
    kind = float_kind(element)
    if kind is None:
        return np.asarray(values)
    rounded = np.asarray(values, dtype=np.float64).astype(expressed_numpy_dtype(kind))
    return rounded.astype(np.float64)


class Builder:
    """Inserts ops through `rewriter` before `anchor` (the op being rewritten, which
    diagnostics are about), or at `point` when given (`InsertPoint.after(op)`,
    `InsertPoint.at_start(block)`, ...); with `folds`, folding as it emits (the module
    docstring)."""

    def __init__(self, rewriter: PatternRewriter, anchor: Operation | None = None, *,
                 point: InsertPoint | None = None, folds: Folds | None = None):
        if point is None:
            assert anchor is not None, "a Builder needs an anchor op or an insertion point"
            point = InsertPoint.before(anchor)
        self.rewriter = rewriter
        self.anchor = anchor
        self.point = point
        self.pending: dict[SSAValue, list[int]] = {}
        """Small values awaiting a broadcast to a dynamic shape: their broadcast dims."""
        self.folds = folds

    # -- any op -------------------------------------------------------------------
    def insert(self, op: OpT) -> OpT:
        self.rewriter.insert(op, self.point)
        return op

    def emit(self, op: Operation) -> SSAValue:
        """Inserts `op` and returns its (first) result."""
        return self.insert(op).results[0]

    def op(self, cls: type[Operation], operands: list[SSAValue], element: Attribute,
           shape: tuple[int, ...] | None = None, **props: Attribute) -> SSAValue:
        """`cls` on `operands` with one `tensor<shape x element>` result (shape: the
        first operand's unless given) and properties `props`."""
        if len(operands) == 2 and any(v in self.pending for v in operands):
            return self._broadcasting(cls, operands, element, props)
        if shape is None:
            shape = shape_of(operands[0])
        return self.emit(cls.create(operands=operands,
                                    result_types=[tensor_type(element, tuple(shape))],
                                    properties=props))

    def _broadcasting(self, cls: type[Operation], operands: list[SSAValue], element: Attribute,
                      props: dict[str, Attribute]) -> SSAValue:
        """The `chlo.broadcast_*` twin of `cls` on a dynamic operand and a pending one."""
        a, b = operands
        if a in self.pending and b in self.pending:
            raise ValueError("both operands await a dynamic broadcast")
        small, big = (a, b) if a in self.pending else (b, a)
        dims = self.pending[small]
        if dims and len(shape_of(small)) < len(shape_of(big)):
            props = {**props, "broadcast_dimensions": i64_array(dims)}
        return self.emit(chlo.BROADCASTING_TWIN[cls].create(
            operands=operands, result_types=[tensor_type(element, shape_of(big))],
            properties=props))

    # -- StableHLO tensors ----------------------------------------------------------
    def constant(self, values, element: Attribute) -> SSAValue:
        """`stablehlo.constant` of the array `values` (its shape) in `element` (folding:
        the same constant as an earlier one of this block, `Folds.constant`)."""
        a = np.asarray(values)
        t = tensor_type(element, tuple(a.shape))
        if is_splat_array(a):  # one element (held as one when large: qcomp.ir.splat)
            one = a.reshape(-1)[:1]
            v = int(one[0]) if isinstance(element, IntegerType) else \
                float(in_element_type(one, element)[0])
            return self._constant(splat_attr(t, v))
        if isinstance(element, IntegerType):
            flat = [int(v) for v in a.reshape(-1)]
            if a.size <= 64:
                return self._constant(_dense(element, tuple(a.shape), tuple(flat)))
        else:
            flat = [float(v) for v in in_element_type(a, element).reshape(-1)]
        return self._constant(DenseIntOrFPElementsAttr.from_list(t, flat))

    def _constant(self, attr: DenseIntOrFPElementsAttr) -> SSAValue:
        if self.folds is None or self.anchor is None or self.point.insert_before is not self.anchor:
            return self.emit(sh.ConstantOp(attr))
        return self.folds.constant(attr, self.anchor, lambda: self.emit(sh.ConstantOp(attr)))

    def broadcast_in_dim(self, x: SSAValue, shape: tuple[int, ...], dims: list[int]) -> SSAValue:
        """`stablehlo.broadcast_in_dim` of `x` to `shape`, operand dim i to result dim dims[i]
        (folding: a splat constant when `x` is a constant of one value)."""
        if self.folds is not None and not is_dynamic(shape) and x not in self.pending \
                and isinstance(x.owner, sh.ConstantOp) \
                and isinstance(element_of(x), IntegerType | AnyFloat):
            a = dense_values(x.owner.value)
            if a.size == 1 or is_splat_array(a):
                self.folds.orphan(x)
                return self.constant(np.broadcast_to(a.reshape(-1)[0], shape), element_of(x))
        return self.op(sh.BroadcastInDimOp, [x], element_of(x), tuple(shape),
                       broadcast_dimensions=i64_array(dims))

    def broadcast(self, x: SSAValue, shape: tuple[int, ...], dims: list[int]) -> SSAValue:
        """`x` broadcast to `shape` (operand dim i to result dim dims[i]): nothing when
        that is the identity, a transpose first when `dims` is not increasing. A
        dynamic `shape` leaves `x` as it is, pending (see the module docstring)."""
        if is_dynamic(shape) and shape_of(x) != tuple(shape):
            self.pending[x] = list(dims)
            return x
        if shape_of(x) == shape and dims == list(range(len(shape))):
            return x
        if dims != sorted(dims):
            perm = sorted(range(len(dims)), key=lambda k: dims[k])
            in_shape = shape_of(x)
            x = self.op(sh.TransposeOp, [x], element_of(x), tuple(in_shape[p] for p in perm),
                        permutation=i64_array(perm))
            dims = sorted(dims)
            if shape_of(x) == shape and dims == list(range(len(shape))):
                return x
        return self.broadcast_in_dim(x, shape, dims)

    def dimension_size(self, x: SSAValue, dim: int) -> SSAValue:
        """`stablehlo.get_dimension_size` of `x` along `dim`: a `tensor<i32>`."""
        return self.op(sh.GetDimensionSizeOp, [x], IntegerType(32), (),
                       dimension=IntegerAttr(dim, IntegerType(64)))

    def dynamic_broadcast(self, x: SSAValue, like: SSAValue, dims: list[int]) -> SSAValue:
        """`x` broadcast to the run-time shape of `like` (operand dim i to result dim
        dims[i]), as upstream builds it: each size a `get_dimension_size` (or a constant
        for a static one) as `tensor<1xi64>`, concatenated, then
        `stablehlo.dynamic_broadcast_in_dim`."""
        shape = shape_of(like)
        sizes = []
        for d, n in enumerate(shape):
            if n < 0:
                v = self.convert(self.dimension_size(like, d), IntegerType(64))
                sizes.append(self.op(sh.ReshapeOp, [v], IntegerType(64), (1,)))
            else:
                sizes.append(self.constant(np.array([n]), IntegerType(64)))
        out = sizes[0] if len(sizes) == 1 else self.op(
            sh.ConcatenateOp, sizes, IntegerType(64), (len(sizes),),
            dimension=IntegerAttr(0, IntegerType(64)))
        return self.op(sh.DynamicBroadcastInDimOp, [x, out], element_of(x), shape,
                       broadcast_dimensions=i64_array(dims))

    def full(self, values, element: Attribute, shape: tuple[int, ...],
             axis: int | None = None) -> SSAValue:
        """A rank-0 (axis None) or rank-1 constant broadcast to `shape` (along `axis`);
        folding, one splat constant of `shape` when the values are one value."""
        a = np.asarray(values)
        if self.folds is not None and not is_dynamic(shape) and (a.size == 1
                                                                  or is_splat_array(a)):
            return self.constant(np.broadcast_to(a.reshape(-1)[0], shape), element)
        if axis is None or (a.size == 1 and a.ndim == 0):
            return self.broadcast(self.constant(a.reshape(()), element), shape, [])
        return self.broadcast(self.constant(a.reshape(-1), element), shape, [axis])

    def convert(self, x: SSAValue, element: Attribute) -> SSAValue:
        """`stablehlo.convert` of `x` to `element` (folding: x itself in that type, and
        `y` for a convert back to y's type from an integer convert of y that holds
        y's values, `qcomp.passes.utils.folding.value_range`)."""
        if self.folds is not None:
            if element_of(x) == element:
                return x
            inner = storage_source(x).owner
            if isinstance(inner, sh.ConvertOp) and element_of(inner.operand) == element \
                    and inner.result.type == x.type:
                r, middle = value_range(inner.operand), int_range(x.type)
                if r is not None and middle is not None and middle[0] <= r[0] \
                        and r[1] <= middle[1]:
                    self.folds.orphan(x)
                    return inner.operand
        return self.op(sh.ConvertOp, [x], element)

    def binary(self, cls: type[Operation], a: SSAValue, b: SSAValue) -> SSAValue:
        """`cls(a, b)` in the element type of `a` (folding integers: `a + 0`, `0 + a`,
        `a - 0` are `a`; `(y + c1) + c2` is `y + (c1 + c2)`, constants)."""
        if self.folds is not None and cls in (sh.AddOp, sh.SubtractOp) \
                and int_range(a.type) is not None and a.type == b.type:
            folded = self._fold_add(cls, a, b)
            if folded is not None:
                return folded
        return self.op(cls, [a, b], element_of(a))

    def _fold_add(self, cls: type[Operation], a: SSAValue, b: SSAValue) -> SSAValue | None:
        assert self.folds is not None
        if cls is sh.AddOp and (c0 := constant_values(a)) is not None and not np.any(c0):
            self.folds.orphan(a)
            return b
        c2 = constant_values(b)
        if c2 is None:
            return None
        if not np.any(c2):
            self.folds.orphan(b)
            return a
        s = storage_source(a)
        inner = s.owner
        if cls is not sh.AddOp or not isinstance(inner, sh.AddOp) or s.type != a.type \
                or not single_use_chain(s, a, self.anchor):
            return None
        for y, c in (inner.operands, reversed(inner.operands)):
            c1 = constant_values(c)
            if c1 is None:
                continue
            total = wrapped(c1 + c2, a.type)
            axes = [d for d, n in enumerate(total.shape) if n != 1]
            shape = shape_of(a)
            if len(axes) > 1:
                return None
            c = self.full(total.reshape(-1), element_of(a), shape, axes[0]) if axes else \
                self.full(total.reshape(()), element_of(a), shape)
            self.folds.orphan(a)
            self.folds.orphan(b)
            return self.op(sh.AddOp, [y, c], element_of(a))
        return None

    def clamp(self, x: SSAValue, lo, hi) -> SSAValue:
        """`stablehlo.clamp(lo, x, hi)` with rank-0 bounds (folding: `x` when its values
        are known to lie within [lo, hi], `qcomp.passes.utils.folding.value_range`)."""
        e = element_of(x)
        if self.folds is not None and (r := value_range(x)) is not None \
                and int(lo) <= r[0] and r[1] <= int(hi):
            return x
        return self.op(sh.ClampOp, [self.constant(np.array(lo), e), x,
                                    self.constant(np.array(hi), e)], e, shape_of(x))

    def clamp_by(self, lo: SSAValue, x: SSAValue, hi: SSAValue) -> SSAValue:
        """`stablehlo.clamp(lo, x, hi)` of values (folding: `x` when the bounds are
        constants that hold its values)."""
        if self.folds is not None and (r := value_range(x)) is not None:
            low, high = constant_values(lo), constant_values(hi)
            if low is not None and high is not None and low.max() <= r[0] \
                    and r[1] <= high.min():
                self.folds.orphan(lo)
                self.folds.orphan(hi)
                return x
        return self.emit(sh.ClampOp(lo, x, hi, x.type))

    # -- scalars ------------------------------------------------------------------------
    def arith_constant(self, value: float | int, t: Attribute) -> SSAValue:
        """`arith.constant value : t` (a float rounded to `t` first)."""
        if isinstance(t, IntegerType):
            return self.emit(arith.ConstantOp(IntegerAttr(int(value), t)))
        rounded = float(in_element_type(value, t))
        return self.emit(arith.ConstantOp(FloatAttr(rounded, t)))  # pyright: ignore


__all__ = ["Builder", "element_of", "in_element_type", "shape_of", "tensor_type"]
