"""Running the regions of StableHLO ops (bodies of reduce, scatter, sort, map, ...).

A region's body is defined on scalars (0-d tensors). When every op in it works element
by element (`vectorisable`), the body is run once on whole arrays of scalars instead of
once per element: `call(interpreter, region, args)` takes 1-d arrays and gives 1-d
arrays. `fold` runs the sequential recurrence `acc = body(acc, x_k)` of a reduction
that way: one step per reduced position, each step over every output at once.
`known_binary(region)` recognises the common bodies `return op(arg0, arg1)` (and
`return arg1`), which the ops then run with NumPy's ufuncs.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter
from xdsl.ir import Region

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.facts import Elementwise
from qcomp.interpreter.errors import RunError

_ELEMENTWISE_OPS = (sh.CompareOp, sh.SelectOp, sh.ConstantOp, sh.ConvertOp, sh.ClampOp)
"""Element-by-element ops without an `Elementwise` trait whose interpreter functions take
any shape (bitcast_convert reshapes to its result type: not one of them)."""
_VECTORISABLE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

REPLACE = "replace"
"""`known_binary`'s answer for a body returning its second argument (scatter's update)."""


def vectorisable(region: Region) -> bool:
    """Whether every op of the region's single block works element by element on
    scalars (so the block may run on arrays of them)."""
    block = region.blocks.first
    if block is None:
        return False
    cached = _VECTORISABLE.get(block)
    if cached is None:
        ops = list(block.ops)
        cached = bool(ops) and all(
            not op.regions and (op.has_trait(Elementwise) or isinstance(op, _ELEMENTWISE_OPS))
            and all(not getattr(r.type, "get_shape", lambda: (1,))() for r in op.results)
            for op in ops[:-1]) and isinstance(ops[-1], sh.ReturnOp)
        _VECTORISABLE[block] = cached
    return cached


def run(interpreter: Interpreter, region: Region, args: Sequence[Any]) -> tuple[Any, ...]:
    """The region's results for `args` (one run, any shapes the ops accept)."""
    return tuple(interpreter.run_ssacfg_region(region, tuple(args), "region"))


def call(interpreter: Interpreter, region: Region, args: Sequence[np.ndarray],
         size: int) -> list[np.ndarray]:
    """A vectorisable region run on `size` scalars at once: each result is a 1-d array
    of `size` elements (a result the args do not reach is broadcast)."""
    if size == 0:
        return [np.asarray(a)[:0] for a in args[: len(region.blocks.first.last_op.operands)]]
    out = run(interpreter, region, args)
    return [np.broadcast_to(np.asarray(r), (size,)) for r in out]


def call_each(interpreter: Interpreter, region: Region, args: Sequence[np.ndarray],
              size: int) -> list[np.ndarray]:
    """`call`, or one run per element when the region is not vectorisable."""
    if vectorisable(region):
        return call(interpreter, region, args, size)
    outs: list[list[np.ndarray]] = []
    for i in range(size):
        outs.append([np.asarray(r) for r in run(interpreter, region, [a[i] for a in args])])
    n = len(region.blocks.first.last_op.operands)
    if not outs:
        return [np.asarray(a)[:0] for a in args[:n]]
    return [np.stack([o[k].reshape(()) for o in outs]) for k in range(n)]


def fold(interpreter: Interpreter, region: Region, inits: Sequence[np.ndarray],
         terms: Sequence[np.ndarray]) -> list[np.ndarray]:
    """`acc = inits; for k: acc = region(*acc, *[t[:, k] for t in terms])`, over rows.

    `inits`: 1-d arrays (one accumulator per row), `terms`: 2-d arrays (rows, k): the
    reference interpreter's order of a reduction (accumulators first)."""
    acc = [np.array(a) for a in inits]
    rows = acc[0].shape[0] if acc else 0
    for k in range(terms[0].shape[1] if terms else 0):
        acc = [np.array(a) for a in call_each(interpreter, region,
                                              [*acc, *(t[:, k] for t in terms)], rows)]
    return acc


_BINARY = (sh.AddOp, sh.MultiplyOp, sh.MaximumOp, sh.MinimumOp, sh.AndOp, sh.OrOp)


def known_binary(region: Region, n: int = 1) -> list[type | str] | None:
    """Per result `k`, the op class when the body returns `op(arg_k, arg_{n+k})` (either
    order), `REPLACE` when it returns `arg_{n+k}`; None when the body is anything else."""
    block = region.blocks.first
    if block is None or block.last_op is None or len(block.args) != 2 * n:
        return None
    ops = list(block.ops)
    kinds: list[type | str] = []
    for k, v in enumerate(block.last_op.operands):
        if v is block.args[n + k]:
            kinds.append(REPLACE)
            continue
        owner = v.owner
        if type(owner) not in _BINARY or {*owner.operands} != {block.args[k], block.args[n + k]}:
            return None
        kinds.append(type(owner))
    if len(kinds) != n or len(ops) > n + 1:
        return None
    return kinds


def require_single_block(region: Region, what: str) -> None:
    if region.blocks.first is None:
        raise RunError(f"{what} has an empty region")
