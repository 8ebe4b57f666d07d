"""Straight-line block programs: a block's ops run from a flat list of values.

After a block has run once through the interpreter (each op planned,
`runner.Preparation.block_plans`), its program is made (`compile_block`) and kept in the
preparation; later runs of the block execute the program (`run_block`):

- every SSA value of the block gets a slot in a list, so operands are read and results
  written by index, not through xDSL's scoped dictionary; values defined outside the
  block (a region capturing its parent's values, a dominating block's values) are read
  from the scope when the block starts, and only values used outside the block (by an
  op of a nested region or of another block) are written to it;
- ops whose value cannot depend on the run are folded: a `FOLDABLE` op whose operands
  are all folded (constants first, then broadcasts of constants, ...) is evaluated once
  (an integer one of one value kept as a broadcast view of it),
  by its own interpreter function, when the program is made, and its result is a
  read-only array prefilled in every run (an op whose evaluation fails is left to run,
  so it fails each run as before);
- the other ops run either through their interpreter function (`_call`, the same
  diagnostics) or, for plain (not quantized) integer element-wise ops of 8/16/32/64-bit
  container types, through a kernel made for the op (`fast_kernel`) that gives the same
  array with fewer NumPy calls: `+ - * & | ^ max min` in the container type (their
  results modulo 2^width are the int64-then-wrap results), integer `convert`s as one
  `astype` (NumPy's integer cast keeps the low bits: `qcomp.quant.ranges.wrap`),
  shifts and divisions by a folded operand whose amounts allow it; float32
  `dot_general` under `--semantics spec` through `structured_kernels.float_dot_kernel`,
  float32 add-reduces through `reduce_plain` with a reused float64 work array.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.ir import Block, Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.quantized_kernels import quantized_kernel
from qcomp.interpreter.stablehlo_functions import StablehloFunctions, _reducer_kinds, reduce_plain
from qcomp.interpreter.structured_kernels import SCRATCH, conv_kernel, float_dot_kernel, pad_kernel
from qcomp.interpreter.values import element_type, int_info, is_bool, is_int, numpy_dtype, quant_of
from qcomp.ir.splat import is_splat_array

FOLDABLE = (sh.ConstantOp, sh.IotaOp, sh.BroadcastInDimOp, sh.ReshapeOp, sh.TransposeOp,
            sh.ConvertOp, sh.AddOp, sh.SubtractOp, sh.MultiplyOp, sh.AndOp, sh.OrOp, sh.XorOp,
            sh.MaximumOp, sh.MinimumOp, sh.NegateOp, sh.NotOp, sh.CompareOp, sh.SelectOp,
            sh.ClampOp, sh.SliceOp, sh.ConcatenateOp, sh.PadOp)
"""Ops whose result is a function of their operands alone (no state, no output)."""

_MODULAR = {sh.AddOp: np.add, sh.SubtractOp: np.subtract, sh.MultiplyOp: np.multiply,
            sh.AndOp: np.bitwise_and, sh.OrOp: np.bitwise_or, sh.XorOp: np.bitwise_xor,
            sh.MaximumOp: np.maximum, sh.MinimumOp: np.minimum}
"""Binary ops whose integer result in the container type equals the int64 result
wrapped to the width."""

_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "GE": np.greater_equal, "GT": np.greater,
            "LE": np.less_equal, "LT": np.less}

Kernel = Callable[[list], np.ndarray]


def _int_dtype(t, scalar: bool = False) -> np.dtype | None:
    """The container dtype of `t` if it is a plain signed or signless integer tensor
    type whose width is the container's (8/16/32/64 bits), of rank >= 1 unless
    `scalar`."""
    shape = getattr(t, "get_shape", None)
    if quant_of(t) is not None or shape is None or not (scalar or shape()):
        return None
    e = element_type(t)
    if not is_int(e) or is_bool(e):
        return None
    width, signed = int_info(e)
    if not signed or width not in (8, 16, 32, 64):
        return None
    return numpy_dtype(e)


def _bool_tensor(t) -> bool:
    shape = getattr(t, "get_shape", None)
    return quant_of(t) is None and shape is not None and is_bool(element_type(t))


def _checked(fn: Kernel, dt: np.dtype) -> Kernel:
    """`fn`, or None (run the op's interpreter function instead) when `fn`'s result is
    not of dtype `dt` (operands of another dtype than their type's container)."""
    def run(v: list) -> np.ndarray | None:
        r = fn(v)
        return r if r.dtype == dt else None
    return run


def _trunc_divide_by_power_of_two(k: int, sign_shift: int) -> Callable:
    """`a / 2**k` rounded toward zero: `(a + ((a >> (width-1)) & (2**k - 1))) >> k`."""
    mask = (1 << k) - 1

    def div(a):
        return (a + ((a >> sign_shift) & mask)) >> k
    return div


def fast_kernel(op: Operation, plan: tuple, slots: list[int], known: list[Any]) -> Kernel | None:
    """A kernel for `op` (reading its operands from `slots` of the value list) that
    returns what its interpreter function would (or None: then that function runs), or
    None when there is none. `known`: each operand's folded value, or None."""
    if not isinstance(plan[0], StablehloFunctions) or len(op.results) != 1:
        return None
    if any(quant_of(v.type) is not None for v in (*op.operands, op.results[0])):
        return None if plan[0].sem.upstream else quantized_kernel(op, slots, known)
    cls = type(op)
    if cls is sh.BroadcastInDimOp:  # run_broadcast_in_dim, its shapes precomputed
        (s,) = slots
        it, ot = op.operands[0].type, op.results[0].type
        if not hasattr(it, "get_shape") or not hasattr(ot, "get_shape"):
            return None
        out, dims = tuple(ot.get_shape()), tuple(op.broadcast_dimensions)
        if len(dims) != len(it.get_shape()) or any(d < 0 for d in out):
            return None
        shape = [1] * len(out)
        for i, d in enumerate(dims):
            shape[d] = it.get_shape()[i]
        shape = tuple(shape)
        if any(d < 0 for d in shape):
            return None
        return lambda v: np.broadcast_to(v[s].reshape(shape), out)
    if cls is sh.PadOp:
        return pad_kernel(op, slots)
    if cls is sh.DotGeneralOp and not plan[0].sem.upstream:
        return float_dot_kernel(op, slots)
    if cls is sh.ReduceOp and not plan[0].sem.upstream:
        return _float_sum_kernel(op, slots)
    if cls is sh.ConvolutionOp:
        lhs_dt, rhs_dt, dt = (_int_dtype(v.type) for v in (*op.operands, op.results[0]))
        if lhs_dt is None or rhs_dt is None or dt is None or \
                not isinstance(known[1], np.ndarray) or known[1].dtype != rhs_dt:
            return None
        return conv_kernel(op, slots, known[1], lhs_dt, dt)
    if cls is sh.CompareOp:  # elementwise.compare on integers
        ct = op.compare_type.data.value if op.compare_type is not None else None
        compare = _COMPARE.get(op.comparison_direction)
        a, b = slots
        if compare is None or ct == "UNSIGNED" or _int_dtype(op.operands[0].type) is None \
                or _int_dtype(op.operands[1].type) is None:
            return None
        return lambda v: compare(v[a], v[b])
    dt = _int_dtype(op.results[0].type)
    if dt is None:
        return None
    types = [o.type for o in op.operands]
    if cls is sh.ConvertOp:
        (s,) = slots
        if _int_dtype(types[0]) is None and not _bool_tensor(types[0]):
            return None
        return _checked(lambda v: v[s].astype(dt), dt)
    if cls is sh.SelectOp:  # run_select as it is
        p, a, b = slots
        if _int_dtype(types[1]) != dt or _int_dtype(types[2]) != dt:
            return None
        return lambda v: np.where(v[p], v[a], v[b]).astype(v[a].dtype)
    if cls is sh.ClampOp:  # min(max(x, lo), hi)
        lo, x, hi = slots
        if any(_int_dtype(t, scalar=True) != dt for t in types):
            return None
        return _checked(lambda v: np.minimum(np.maximum(v[x], v[lo]), v[hi]), dt)
    if len(slots) != 2 or any(_int_dtype(t) != dt for t in types):
        return None
    a, b = slots
    fn = _MODULAR.get(cls)
    if fn is not None:
        return _checked(lambda v: fn(v[a], v[b]), dt)
    width = dt.itemsize * 8
    amount = known[1]
    if not isinstance(amount, np.ndarray) or amount.dtype != dt or not amount.size:
        return None
    if cls in (sh.ShiftRightArithmeticOp, sh.ShiftLeftOp):
        if not ((amount >= 0) & (amount < width)).all():
            return None
        shift = np.right_shift if cls is sh.ShiftRightArithmeticOp else np.left_shift
        return _checked(lambda v: shift(v[a], v[b]), dt)
    if cls is sh.DivideOp:
        first = int(amount.flat[0])
        k = first.bit_length() - 1
        if first <= 0 or first & (first - 1) or not (amount == first).all():
            return None
        div = _trunc_divide_by_power_of_two(k, width - 1)
        return _checked(lambda v: div(v[a]), dt)
    return None


def _float_sum_kernel(op: sh.ReduceOp, slots: list[int]) -> Kernel | None:
    """A float32 add-reduce of one input under `--semantics spec` (`reduce_plain`, as
    `run_reduce` calls it), its float64 widening in a reused work array."""
    try:
        if len(op.inputs) != 1 or _reducer_kinds(op) != [sh.AddOp]:
            return None
    except RunError:  # a malformed body: the interpreter function reports it each run
        return None
    it, ot = op.inputs[0].type, op.results[0].type
    if not hasattr(it, "get_shape") or quant_of(it) is not None or quant_of(ot) is not None:
        return None
    shape, e = tuple(it.get_shape()), element_type(ot)
    if any(d < 0 for d in shape) or element_type(it) != e or numpy_dtype(e) != np.float32:
        return None
    x, init = slots
    axes = tuple(op.dimensions)

    def run(v: list) -> np.ndarray | None:
        a = v[x]
        if a.dtype != np.float32 or a.shape != shape:
            return None
        return reduce_plain(sh.AddOp, a, v[init], axes, e, SCRATCH.get("sum64", shape, np.float64))
    return run


class BlockProgram:
    """A block's straight-line program (module docstring)."""

    __slots__ = ("args", "externals", "published", "steps", "template")

    def __init__(self, template: list, args: list[int], externals: list[tuple[int, SSAValue]],
                 steps: list[tuple], published: list[tuple[int, SSAValue]]) -> None:
        self.template = template
        """The value list with the folded values filled in."""
        self.args = args
        """The slots of the block's arguments."""
        self.externals = externals
        """`(slot, value)` of the values defined outside the block (read from the scope)."""
        self.steps = steps
        """`(kernel, op, plan, operand slots, result slots, published results)` of each op
        left to run; `kernel` None: the op's interpreter function runs."""
        self.published = published
        """`(slot, value)` of the block's arguments and folded values used outside it."""


def _used_outside(value: SSAValue, block: Block) -> bool:
    return any(use.operation.parent_block() is not block for use in value.uses)


def compile_block(interpreter: Any, block: Block, planned: list[tuple[Operation, tuple]]
                  ) -> BlockProgram:
    """The program of `block`, whose ops are `planned` (`(op, plan)` in order), folding
    with `interpreter` (module docstring)."""
    slots: dict[SSAValue, int] = {}
    template: list = []

    def slot(v: SSAValue) -> int:
        s = slots.get(v)
        if s is None:
            s = slots[v] = len(template)
            template.append(None)
        return s

    args = [slot(a) for a in block.args]
    externals: list[tuple[int, SSAValue]] = []
    steps: list[tuple] = []
    folded: set[int] = set()
    for op, plan in planned:
        ins = []
        for v in op.operands:
            if v not in slots:
                externals.append((slot(v), v))
            ins.append(slots[v])
        outs = [slot(r) for r in op.results]
        if isinstance(op, FOLDABLE) and not op.regions and all(i in folded for i in ins):
            values = _fold(interpreter, op, plan, [template[i] for i in ins])
            if values is not None:
                for s, value in zip(outs, values):
                    template[s] = value
                folded.update(outs)
                continue
        kernel = fast_kernel(op, plan, ins, [template[i] if i in folded else None for i in ins])
        published = tuple((s, r) for s, r in zip(outs, op.results) if _used_outside(r, block))
        steps.append((kernel, op, plan, tuple(ins), tuple(outs), published))
    published = [(slots[v], v) for v in block.args if _used_outside(v, block)]
    published += [(s, r) for op, _ in planned for r in op.results
                  if (s := slots[r]) in folded and _used_outside(r, block)]
    return BlockProgram(template, args, externals, steps, published)


def _fold(interpreter: Any, op: Operation, plan: tuple, operands: list) -> list | None:
    """`op`'s results on its folded operands, read-only; None if it fails (the op is then
    left to run and to fail in every run, as without folding)."""
    try:
        result = interpreter._call(op, plan, tuple(operands))
    except RunError:
        return None
    if result.terminator_value is not None or \
            not all(isinstance(v, np.ndarray) for v in result.values):
        return None
    values = [_one_value_view(v) for v in result.values]
    for v in values:
        v.flags.writeable = False
    return values


def _one_value_view(a: np.ndarray) -> np.ndarray:
    """A constant of one value (a splat) as a broadcast view of that value: NumPy's
    loops then read it as a scalar (`x + c` reads one array, not two)."""
    if a.size > 1 and a.dtype.kind in "iub" and any(a.strides) and is_splat_array(a):
        return np.broadcast_to(a.reshape(-1)[:1].reshape(()), a.shape)
    return a


def run_block(interpreter: Any, program: BlockProgram, args) -> Any:
    """Run `program` on the block's `args` in the interpreter's current scope; the
    terminator's value (`ReturnedValues`, `Successor` or None)."""
    vals = program.template.copy()
    for s, a in zip(program.args, args):
        vals[s] = a
    if program.externals:
        outer = interpreter.get_values(v for _, v in program.externals)
        for (s, _), value in zip(program.externals, outer):
            vals[s] = value
    if program.published:
        interpreter.set_values((v, vals[s]) for s, v in program.published)
    call = interpreter._call
    for kernel, op, plan, ins, outs, published in program.steps:
        if kernel is not None:
            try:
                r = kernel(vals)
            except (ValueError, TypeError, IndexError, ArithmeticError, AssertionError,
                    AttributeError, KeyError, MemoryError) as e:  # as `_call` does
                raise RunError(f"cannot evaluate '{op.name}': {e}", op) from e
            if r is not None:
                vals[outs[0]] = r
                if published:
                    interpreter.set_values(((published[0][1], r),))
                continue
        result = call(op, plan, tuple(vals[i] for i in ins))
        for s, r in zip(outs, result.values):
            vals[s] = r
        if published:
            interpreter.set_values((v, vals[s]) for s, v in published)
        term = result.terminator_value
        if term is not None:
            return term
    return None


__all__ = ["FOLDABLE", "BlockProgram", "compile_block", "fast_kernel", "run_block"]
