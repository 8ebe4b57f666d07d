"""Rewrites that make XLA compute the numbers qcomp's interpreter computes.

XLA's CPU backend (jaxlib 0.10.2, default options, fast math off) changes float
arithmetic in ways that move quantized values sitting next to a rounding tie; each
rewrite below stops one of them without changing a value (all measured here):

| XLA does | so the backend |
|---|---|
| `x / c` → `x * (1/c)` for a constant `c`, `(x * c1) * c2` → `x * (c1 * c2)`: the algebraic simplifier (`algsimp`) folds constants | makes float constants that feed arithmetic trailing arguments of `@main` (`hoist_float_constants`) |
| `x / broadcast(b)` → `x * broadcast(1/b)`, for any `b` (also an argument) | divides by `broadcast(b) + Z` with `Z = reshape(iota(n)) * broadcast(z)`, `z` a scalar `-0.0` argument: `-0.0` everywhere (`i * -0.0` is `-0.0` for every finite `i >= 0`, and `x + -0.0 = x` for every `x`, `-0.0` included), which XLA cannot fold (`z` is an argument) nor take for a broadcast (the flat iota varies along every dimension; `iota` along one dimension of a bigger shape would be); it fuses into the divide's loop where a full-shaped `-0.0` argument was read from memory (`unfoldable_negative_zero`) |
| `(a / b) / c` → `a / (b * c)`, `a / (b / c)` → `(a * c) / b`, `a / sqrt(b)` → `a * rsqrt(b)`, `a / exp(b)`, `a / pow(b, c)` | fences the inner result with `+ broadcast(z)` (`z` a scalar `-0.0` argument) |
| `a * b + c` → `fma(a, b, c)` (LLVM contracts multiply-add; one rounding instead of two) | fences a multiply whose result reaches an add or subtract: `fma(a, b, -0.0)` is `a * b` rounded once |
| `sign(-0.0)` is `+0.0` (the spec: `-0.0`) | `select(x == 0, x, sign(x))` (`keep_zero_signs`) |
| rejects `bitcast_convert` from `i4` to `i4`, and dot / convolution on `i4` | drops bitcasts to the operand's own type (`drop_identity_bitcasts`); contracts `i4` as `i8` (`widen_sub_byte_contractions`) |
| `add` / `multiply` on `i1` add modulo 2 (`true + true = false`) | writes them as the spec's `or` / `and` (`spell_booleans`) |

Only the entry function's top-level block is fenced (values of `@main` cannot reach
the isolated bodies of reduce, sort or scatter). What no rewrite can change: XLA's
exp, log, tanh, logistic, sine, cosine and the other transcendental functions are
polynomial approximations within a few ulp (qcomp rounds the float64 result once);
float reductions, dot_general and convolution sum in XLA's order; subnormal floats
are flushed to zero (XLA sets FTZ/DAZ on its threads).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, IntegerType, ModuleOp, TensorType, f32, f64
from xdsl.ir import Attribute, Block, Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.interpreter.values import dense_to_array, element_type, is_float, numpy_dtype, quant_of, shape_of
from qcomp.ir.splat import is_held_splat, one_element_if_splat, splat_attr

_ARITHMETIC = (sh.AddOp, sh.SubtractOp, sh.MultiplyOp, sh.DivideOp, sh.RemainderOp, sh.PowerOp,
               sh.Atan2Op)
_MOVES = (sh.BroadcastInDimOp, sh.ReshapeOp, sh.TransposeOp, sh.ConvertOp)
_INVERTED_DIVISORS = (sh.DivideOp, sh.SqrtOp, sh.RsqrtOp, sh.ExponentialOp, sh.PowerOp)


def make_exact(module: ModuleOp, entry: func.FuncOp) -> list[np.ndarray]:
    """Apply every rewrite of the module docstring to `entry` (the `@main` XLA compiles)
    and return the values of the arguments they appended, in order."""
    spell_booleans(module)
    drop_identity_bitcasts(module)
    keep_zero_signs(module)
    widen_sub_byte_contractions(module)
    args = _TrailingArgs(entry)
    hoist_float_constants(entry, args)
    fence(entry, args)
    args.finish()
    return args.values


class _TrailingArgs:
    """Arguments appended to `entry`, with the values the host passes for them."""

    def __init__(self, entry: func.FuncOp):
        self.entry = entry
        self.block: Block = entry.body.blocks.first  # type: ignore[assignment]
        self.values: list[np.ndarray] = []
        self._zeros: dict[tuple, SSAValue] = {}

    def add(self, t: Attribute, value: np.ndarray) -> SSAValue:
        self.values.append(value)
        return self.block.insert_arg(t, len(self.block.args))

    def negative_zero(self, t: Attribute) -> SSAValue:
        """An argument of type `t` holding `-0.0` everywhere (one per type)."""
        key = (str(t),)
        if key not in self._zeros:
            dt = numpy_dtype(element_type(t))
            self._zeros[key] = self.add(t, np.full(shape_of(t), -0.0, dtype=dt))
        return self._zeros[key]

    def finish(self) -> None:
        if self.values:
            self.entry.function_type = FunctionType.from_lists(
                list(self.block.arg_types), list(self.entry.function_type.outputs.data))
            self.entry.arg_attrs = None


def spell_booleans(module: ModuleOp) -> None:
    """`add` / `multiply` on `i1` as `or` / `and`: what the StableHLO spec says they
    are; XLA's CPU backend adds booleans modulo 2."""
    for op in list(module.walk()):
        if isinstance(op, sh.AddOp | sh.MultiplyOp) and _is_bool(op.results[0].type):
            cls = sh.OrOp if isinstance(op, sh.AddOp) else sh.AndOp
            _replace(op, cls(op.operands[0], op.operands[1], op.results[0].type))


def keep_zero_signs(module: ModuleOp) -> None:
    """Float `sign(x)` as `select(x == 0, x, sign(x))`: the spec's `sign(-0.0)` is `-0.0`,
    XLA's is `+0.0`."""
    for op in list(module.walk()):
        if isinstance(op, sh.SignOp) and _is_float(op.results[0].type):
            x, t = op.operands[0], op.results[0].type
            zero = sh.ConstantOp(splat_attr(t, 0.0))
            is_zero = sh.CompareOp(x, zero.results[0], "EQ")
            sign = sh.SignOp(x, t)
            for new in (zero, is_zero, sign):
                op.parent_block().insert_op_before(new, op)
            _replace(op, sh.SelectOp(is_zero.results[0], x, sign.results[0], t))


def drop_identity_bitcasts(module: ModuleOp) -> None:
    """`bitcast_convert` to its operand's own type (what the lowering leaves where a
    quantized value was bitcast from its storage) is its operand; XLA's CPU backend
    rejects it on `i4` ("custom element sizes on non-sub-byte types")."""
    for op in list(module.walk()):
        if isinstance(op, sh.BitcastConvertOp) and op.operands[0].type == op.results[0].type:
            op.results[0].replace_all_uses_with(op.operands[0])
            op.detach()
            op.erase()


def widen_sub_byte_contractions(module: ModuleOp) -> None:
    """dot / dot_general / convolution on `i4` (or narrower) operands read them as `i8`
    (same values), and a sub-byte result is computed in `i8` and converted (the same
    wrapped value); XLA's CPU backend fails to compile them on `i4` ("custom element
    sizes on non-sub-byte types")."""
    for op in list(module.walk()):
        if not isinstance(op, sh.DotGeneralOp | sh.DotOp | sh.ConvolutionOp):
            continue
        if not any(_sub_byte(v.type) for v in (*op.operands, *op.results)):
            continue
        operands = []
        for v in op.operands:
            if _sub_byte(v.type):
                cv = sh.ConvertOp(v, _with_element(v.type, _byte_of(element_type(v.type))))
                op.parent_block().insert_op_before(cv, op)
                v = cv.results[0]
            operands.append(v)
        out_t = op.results[0].type
        wide_t = _with_element(out_t, _byte_of(element_type(out_t))) if _sub_byte(out_t) else out_t
        new = type(op).create(operands=operands, result_types=[wide_t],
                              properties=dict(op.properties), attributes=dict(op.attributes))
        op.parent_block().insert_op_before(new, op)
        _replace(op, sh.ConvertOp(new.results[0], out_t) if wide_t != out_t else None, new)


def _sub_byte(t: Attribute) -> bool:
    e = element_type(t)
    return isinstance(e, IntegerType) and 1 < e.width.data < 8


def _byte_of(e: IntegerType) -> IntegerType:
    return IntegerType(8, e.signedness.data)


def _with_element(t: Attribute, e: Attribute) -> TensorType:
    return TensorType(e, shape_of(t))


def hoist_float_constants(entry: func.FuncOp, args: _TrailingArgs) -> None:
    """Float constants of `entry`'s body that feed float arithmetic (directly or through
    a broadcast_in_dim / reshape) become trailing arguments."""
    found: dict[int, sh.ConstantOp] = {}
    for op in entry.walk():
        if not isinstance(op, _ARITHMETIC) or not _is_float(op.results[0].type):
            continue
        for v in op.operands:
            src = v.owner
            if isinstance(src, sh.BroadcastInDimOp | sh.ReshapeOp):
                src = src.operands[0].owner
            if isinstance(src, sh.ConstantOp) and src.parent_block() is args.block \
                    and quant_of(src.results[0].type) is None:
                found[id(src)] = src
    for c in found.values():
        t = c.results[0].type
        held = one_element_if_splat(c.value)
        if is_held_splat(held):  # one value: a scalar argument, broadcast by XLA
            scalar = TensorType(element_type(t), [])
            one = args.add(scalar, dense_to_array(held, scalar))
            wide = sh.BroadcastInDimOp(one, [], t)
            c.parent_block().insert_op_before(wide, c)
            arg = wide.results[0]
        else:
            arg = args.add(t, dense_to_array(c.value, t))
        c.results[0].replace_all_uses_with(arg)
        c.detach()
        c.erase()


def fence(entry: func.FuncOp, args: _TrailingArgs) -> None:
    """Fence the divides and multiply-adds of `entry`'s top-level block (docstring)."""
    for op in list(args.block.ops):
        if not _is_float(op.results[0].type if op.results else None):
            continue
        if isinstance(op, sh.DivideOp):
            lhs, rhs = op.operands
            if isinstance(rhs.owner, sh.BroadcastInDimOp):
                _set_operand(op, 1, _add_before(op, rhs, unfoldable_negative_zero(op, rhs.type, args)))
            elif isinstance(rhs.owner, _INVERTED_DIVISORS):
                _set_operand(op, 1, _scalar_fence(op, rhs, args))
            if isinstance(lhs.owner, sh.DivideOp):
                _set_operand(op, 0, _scalar_fence(op, lhs, args))
        elif isinstance(op, sh.MultiplyOp) and _reaches(op.results[0], _is_add):
            _fence_result(op, args)


def unfoldable_negative_zero(before: Operation, t: Attribute, args: _TrailingArgs) -> SSAValue:
    """`-0.0` of float type `t` everywhere, computed before `before` as
    `convert(reshape(iota(n)) * broadcast(z))` (`n` the element count, iota and `z` in
    f64 for f64 `t`, else f32, so no index overflows to inf; `z` the scalar `-0.0`
    argument): an op XLA can neither fold nor rewrite as a broadcast. A scalar or
    dynamically shaped `t` takes a `-0.0` argument of type `t`."""
    shape = shape_of(t)
    if not shape or any(d < 0 for d in shape):
        return args.negative_zero(t)
    e = element_type(t)
    f = e if e == f64 else f32
    n = int(np.prod(shape))
    new: list[Operation] = [sh.IotaOp(0, TensorType(f, [n]))]
    new.append(sh.ReshapeOp(new[-1].results[0], TensorType(f, shape)))
    new.append(sh.BroadcastInDimOp(args.negative_zero(TensorType(f, [])), [], TensorType(f, shape)))
    new.append(sh.MultiplyOp(new[-2].results[0], new[-1].results[0]))
    if f != e:
        new.append(sh.ConvertOp(new[-1].results[0], t))
    for o in new:
        before.parent_block().insert_op_before(o, before)
    return new[-1].results[0]


def _is_add(op: Operation) -> bool:
    return isinstance(op, sh.AddOp | sh.SubtractOp)


def _reaches(v: SSAValue, pred: Callable[[Operation], bool]) -> bool:
    """Whether a user of `v`, or of a move/convert of it, satisfies `pred`."""
    todo, seen = [v], set()
    while todo:
        x = todo.pop()
        for use in x.uses:
            user = use.operation
            if pred(user):
                return True
            if isinstance(user, _MOVES) and id(user) not in seen:
                seen.add(id(user))
                todo.append(user.results[0])
    return False


def _fence_result(op: Operation, args: _TrailingArgs) -> None:
    v = op.results[0]
    users = [u for u in list(v.uses)]
    after = op.next_op
    assert after is not None  # a block ends with its terminator
    fenced = _scalar_fence(after, v, args)
    for use in users:
        _set_operand(use.operation, use.index, fenced)


def _scalar_fence(before: Operation, v: SSAValue, args: _TrailingArgs) -> SSAValue:
    """`v + broadcast(z)` (z a scalar `-0.0` argument), inserted before `before`."""
    t = v.type
    z = args.negative_zero(TensorType(element_type(t), []))
    b = sh.BroadcastInDimOp(z, [], t)
    before.parent_block().insert_op_before(b, before)
    return _add_before(before, v, b.results[0])


def _add_before(before: Operation, v: SSAValue, zero: SSAValue) -> SSAValue:
    add = sh.AddOp(v, zero, v.type)
    before.parent_block().insert_op_before(add, before)
    return add.results[0]


def _set_operand(op: Operation, index: int, value: SSAValue) -> None:
    ops = list(op.operands)
    ops[index] = value
    op.operands = ops


def _replace(old: Operation, new: Operation | None, value_of: Operation | None = None) -> None:
    """`old`'s results replaced by `new`'s (inserted before `old`), or by `value_of`'s
    when `new` is None."""
    if new is not None:
        old.parent_block().insert_op_before(new, old)
    for a, b in zip(old.results, (new or value_of).results):
        a.replace_all_uses_with(b)
    old.detach()
    old.erase()


def _is_float(t: Attribute | None) -> bool:
    return t is not None and is_float(element_type(t))


def _is_bool(t: Attribute) -> bool:
    e = element_type(t)
    return isinstance(e, IntegerType) and e.width.data == 1
