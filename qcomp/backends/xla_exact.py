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

Each rewrite is an xDSL `RewritePattern` applied in one forward walk through
`qcomp.backends.xla_rewrite.rewrite_once` (each function returns how many ops it
rewrote): the four module-wide ones first, in one walk (`module_wide`: `SpellBoolean`,
`DropIdentityBitcast`, `KeepZeroSign`, `WidenSubByteContraction`), then on `@main` the constants hoisted
(`HoistFloatConstants`: arguments appended in the order the walk meets their first
arithmetic user) and last the fences (`Fence`, the top-level block only).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, IntegerType, ModuleOp, TensorType, f32, f64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from qcomp.backends.xla_rewrite import inserter, rewrite_once
from qcomp.dialects import stablehlo as sh
from qcomp.interpreter.values import (
    dense_to_array,
    element_type,
    is_bool,
    is_float,
    numpy_dtype,
    quant_of,
    shape_of,
)
from qcomp.ir.splat import is_held_splat, one_element_if_splat, splat_attr

_ARITHMETIC = (sh.AddOp, sh.SubtractOp, sh.MultiplyOp, sh.DivideOp, sh.RemainderOp, sh.PowerOp,
               sh.Atan2Op)
_MOVES = (sh.BroadcastInDimOp, sh.ReshapeOp, sh.TransposeOp, sh.ConvertOp)
_INVERTED_DIVISORS = (sh.DivideOp, sh.SqrtOp, sh.RsqrtOp, sh.ExponentialOp, sh.PowerOp)


def make_exact(module: ModuleOp, entry: func.FuncOp) -> list[np.ndarray]:
    """Apply every rewrite of the module docstring to `entry` (the `@main` XLA compiles)
    and return the values of the arguments they appended, in order."""
    module_wide(module)
    args = _TrailingArgs(entry)
    hoist_float_constants(entry, args)
    fence(entry, args)
    args.finish()
    return args.values


def module_wide(module: ModuleOp) -> int:
    """`SpellBoolean`, `DropIdentityBitcast`, `KeepZeroSign` and `WidenSubByteContraction`
    over `module` in one forward walk (what the four steps do one after the other: each
    matches its own op types, by their operands' types only, and rewrites in place);
    how many ops were rewritten."""
    return rewrite_once(module, SpellBoolean(), DropIdentityBitcast(), KeepZeroSign(),
                        WidenSubByteContraction())


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


class SpellBoolean(RewritePattern):
    """`add` / `multiply` on `i1` -> `or` / `and`: what the StableHLO spec says they
    are; XLA's CPU backend adds booleans modulo 2."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sh.AddOp | sh.MultiplyOp, rewriter: PatternRewriter) -> None:
        if is_bool(element_type(op.results[0].type)):
            cls = sh.OrOp if isinstance(op, sh.AddOp) else sh.AndOp
            rewriter.replace(op, cls(op.operands[0], op.operands[1], op.results[0].type))


def spell_booleans(module: ModuleOp) -> int:
    """`SpellBoolean` over `module`; how many ops were rewritten."""
    return rewrite_once(module, SpellBoolean())


class KeepZeroSign(RewritePattern):
    """Float `sign(x)` -> `select(x == 0, x, sign(x))`: the spec's `sign(-0.0)` is
    `-0.0`, XLA's is `+0.0`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sh.SignOp, rewriter: PatternRewriter) -> None:
        if not _is_float(op.results[0].type):
            return
        x, t = op.operands[0], op.results[0].type
        zero = sh.ConstantOp(splat_attr(t, 0.0))
        is_zero = sh.CompareOp(x, zero.results[0], "EQ")
        sign = sh.SignOp(x, t)
        rewriter.replace(op, [zero, is_zero, sign, sh.SelectOp(is_zero.results[0], x, sign.results[0], t)])


def keep_zero_signs(module: ModuleOp) -> int:
    """`KeepZeroSign` over `module`; how many ops were rewritten."""
    return rewrite_once(module, KeepZeroSign())


class DropIdentityBitcast(RewritePattern):
    """`bitcast_convert` to its operand's own type (what the lowering leaves where a
    quantized value was bitcast from its storage) -> its operand; XLA's CPU backend
    rejects it on `i4` ("custom element sizes on non-sub-byte types")."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sh.BitcastConvertOp, rewriter: PatternRewriter) -> None:
        if op.operands[0].type == op.results[0].type:
            rewriter.replace(op, [], [op.operands[0]])


def drop_identity_bitcasts(module: ModuleOp) -> int:
    """`DropIdentityBitcast` over `module`; how many ops were rewritten."""
    return rewrite_once(module, DropIdentityBitcast())


class WidenSubByteContraction(RewritePattern):
    """dot / dot_general / convolution on `i4` (or narrower) operands -> the same on
    them read as `i8` (same values), a sub-byte result computed in `i8` and converted
    (the same wrapped value); XLA's CPU backend fails to compile them on `i4` ("custom
    element sizes on non-sub-byte types")."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: sh.DotGeneralOp | sh.DotOp | sh.ConvolutionOp,
                          rewriter: PatternRewriter) -> None:
        if not any(_sub_byte(v.type) for v in (*op.operands, *op.results)):
            return
        add = inserter(rewriter)
        operands = [add(sh.ConvertOp(v, _with_element(v.type, _byte_of(element_type(v.type)))))
                    if _sub_byte(v.type) else v for v in op.operands]
        out_t = op.results[0].type
        wide_t = _with_element(out_t, _byte_of(element_type(out_t))) if _sub_byte(out_t) else out_t
        new = add(type(op).create(operands=operands, result_types=[wide_t],
                                  properties=dict(op.properties), attributes=dict(op.attributes)))
        if wide_t != out_t:
            rewriter.replace(op, sh.ConvertOp(new, out_t))
        else:
            rewriter.replace(op, [], [new])


def widen_sub_byte_contractions(module: ModuleOp) -> int:
    """`WidenSubByteContraction` over `module`; how many ops were rewritten."""
    return rewrite_once(module, WidenSubByteContraction())


def _sub_byte(t: Attribute) -> bool:
    e = element_type(t)
    return isinstance(e, IntegerType) and 1 < e.width.data < 8


def _byte_of(e: IntegerType) -> IntegerType:
    return IntegerType(8, e.signedness.data)


def _with_element(t: Attribute, e: Attribute) -> TensorType:
    return TensorType(e, shape_of(t))


class HoistFloatConstants(RewritePattern):
    """Float arithmetic -> the same, its float constant operands (directly or through a
    broadcast_in_dim / reshape) of the entry's top-level block made trailing arguments
    (`args`), in operand order: a splat one as a broadcast of a scalar argument, where
    it stood; the constant erased."""

    def __init__(self, args: _TrailingArgs) -> None:
        self.args = args

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, _ARITHMETIC) or not _is_float(op.results[0].type):
            return
        found: dict[int, sh.ConstantOp] = {}
        for v in op.operands:
            src = v.owner
            if isinstance(src, sh.BroadcastInDimOp | sh.ReshapeOp):
                src = src.operands[0].owner
            if isinstance(src, sh.ConstantOp) and src.parent_block() is self.args.block \
                    and quant_of(src.results[0].type) is None:
                found[id(src)] = src
        for c in found.values():
            t = c.results[0].type
            held = one_element_if_splat(c.value)
            if is_held_splat(held):  # one value: a scalar argument, broadcast by XLA
                scalar = TensorType(element_type(t), [])
                one = self.args.add(scalar, dense_to_array(held, scalar))
                arg = rewriter.insert(sh.BroadcastInDimOp(one, [], t), InsertPoint.before(c)).results[0]
            else:
                arg = self.args.add(t, dense_to_array(c.value, t))
            rewriter.replace_all_uses_with(c.results[0], arg)
            rewriter.erase(c)


def hoist_float_constants(entry: func.FuncOp, args: _TrailingArgs) -> int:
    """`HoistFloatConstants` over `entry`'s body: its float constants that feed float
    arithmetic become trailing arguments, in the order the walk first meets them; how
    many arithmetic ops had one hoisted."""
    return rewrite_once(entry, HoistFloatConstants(args))


class Fence(RewritePattern):
    """A float divide or a multiply of the entry's top-level block -> fenced (module
    docstring): a divisor that is a broadcast gets `+ unfoldable_negative_zero`, an
    inverted divisor (and a dividend that is a divide) `+ broadcast(z)`; a multiply whose
    result reaches an add or subtract has its result `+ broadcast(z)` for every user."""

    def __init__(self, args: _TrailingArgs) -> None:
        self.args = args

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.parent is not self.args.block or not _is_float(op.results[0].type if op.results else None):
            return
        if isinstance(op, sh.DivideOp):
            add = inserter(rewriter)
            lhs, rhs = op.operands
            if isinstance(rhs.owner, sh.BroadcastInDimOp):
                zero = unfoldable_negative_zero(rhs.type, self.args, add)
                _set_operand(rewriter, op, 1, add(sh.AddOp(rhs, zero, rhs.type)))
            elif isinstance(rhs.owner, _INVERTED_DIVISORS):
                _set_operand(rewriter, op, 1, _scalar_fence(rhs, self.args, add))
            if isinstance(lhs.owner, sh.DivideOp):
                _set_operand(rewriter, op, 0, _scalar_fence(lhs, self.args, add))
        elif isinstance(op, sh.MultiplyOp) and _reaches(op.results[0], _is_add):
            v = op.results[0]
            users = list(v.uses)
            after = op.next_op
            assert after is not None  # a block ends with its terminator
            fenced = _scalar_fence(v, self.args, lambda new: rewriter.insert(
                new, InsertPoint.before(after)).results[0])
            for use in users:
                _set_operand(rewriter, use.operation, use.index, fenced)


def fence(entry: func.FuncOp, args: _TrailingArgs) -> int:
    """`Fence` over `entry`'s top-level block; how many ops were fenced."""
    return rewrite_once(entry, Fence(args))


def unfoldable_negative_zero(t: Attribute, args: _TrailingArgs,
                             add: Callable[[Operation], SSAValue]) -> SSAValue:
    """`-0.0` of float type `t` everywhere, computed as `convert(reshape(iota(n)) *
    broadcast(z))` (`n` the element count, iota and `z` in f64 for f64 `t`, else f32, so
    no index overflows to inf; `z` the scalar `-0.0` argument), its ops emitted with
    `add` (`xla_rewrite.inserter`): an op XLA can neither fold nor rewrite as a
    broadcast. A scalar or dynamically shaped `t` takes a `-0.0` argument of type `t`."""
    shape = shape_of(t)
    if not shape or any(d < 0 for d in shape):
        return args.negative_zero(t)
    e = element_type(t)
    f = e if e == f64 else f32
    n = int(np.prod(shape))
    iota = sh.IotaOp(0, TensorType(f, [n]))
    reshape = sh.ReshapeOp(iota.results[0], TensorType(f, shape))
    z = sh.BroadcastInDimOp(args.negative_zero(TensorType(f, [])), [], TensorType(f, shape))
    add(iota)
    add(reshape)
    product = add(sh.MultiplyOp(reshape.results[0], add(z)))
    return add(sh.ConvertOp(product, t)) if f != e else product


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


def _scalar_fence(v: SSAValue, args: _TrailingArgs, add: Callable[[Operation], SSAValue]) -> SSAValue:
    """`v + broadcast(z)` (z a scalar `-0.0` argument), its two ops emitted with `add`."""
    t = v.type
    z = args.negative_zero(TensorType(element_type(t), []))
    return add(sh.AddOp(v, add(sh.BroadcastInDimOp(z, [], t)), t))


def _set_operand(rewriter: PatternRewriter, op: Operation, index: int, value: SSAValue) -> None:
    ops = list(op.operands)
    ops[index] = value
    op.operands = ops
    rewriter.notify_op_modified(op)


def _is_float(t: Attribute | None) -> bool:
    return t is not None and is_float(element_type(t))
