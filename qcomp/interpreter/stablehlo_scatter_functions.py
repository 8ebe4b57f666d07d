"""Interpreter functions of `stablehlo.scatter`, `select_and_scatter` and `sort`.

scatter (the spec's formula, the reference interpreter's order): for every update index
`u` in row-major order, `result_index = full_start_index + full_batching_index +
full_window_index`; an index outside the operand is skipped, else
`results[result_index] = update_computation(results[result_index], updates[u])`.
All result indices are computed at once with NumPy; the updates are then applied in
rounds, each round taking the first pending update of every distinct index, so that
updates of one index keep their order and every round is one vectorised run of the
update computation (or NumPy's ufunc for the common bodies).

select_and_scatter: per window of `source`'s index (no dilation, padding positions
skipped), `select(selected, current)` false moves the selection; the result is
`init_value` everywhere, then at each selected index `scatter(scatter(init, source),
result)` (the reference interpreter reduces `[source, result]` from `init_value`).

sort: a comparator `compare LT|GT` of one input's two arguments sorts with NumPy's
stable argsort (TOTALORDER floats by their total-order key); any other comparator
that works element by element is evaluated on all pairs of a slice at once (an
element's place is the number of elements that go before it, ties in input order);
else a Python merge sort calls the comparator per pair.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.attrs import ComparisonDirection, ComparisonType
from qcomp.interpreter import regions
from qcomp.interpreter.values import quant_of, shape_of

_UFUNCS = {sh.AddOp: np.add, sh.MultiplyOp: np.multiply, sh.MaximumOp: np.maximum,
           sh.MinimumOp: np.minimum}
"""Bodies run with NumPy's `ufunc.at` (maximum and minimum on integers only: on floats
the rounds run the op's own kernel, which decides signed zeros and NaN as StableHLO
does)."""
PAIRWISE_LIMIT = 1 << 22
"""Most comparator evaluations `sort` does at once (elements compared pairwise)."""


def _quantized(op) -> bool:
    """Quantized scatter / select_and_scatter: the bodies run on the stored integers with
    their ops' own quantized semantics (an `add` body dequantizes, adds and quantizes
    per update), so no NumPy `ufunc.at` shortcut on the storage."""
    return any(quant_of(v.type) is not None for v in (*op.operands, *op.results))


def scatter_indices(op: sh.ScatterOp, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(flat result index of each in-bounds update element, the update elements'
    flat positions), both in the updates' row-major order."""
    d = op.scatter_dimension_numbers
    operand = shape_of(op.inputs[0].type)
    ushape = shape_of(op.updates[0].type)
    uwd, ivd = d.update_window_dims, d.index_vector_dim
    count = int(np.prod(ushape, dtype=np.int64))
    grid = np.indices(ushape, dtype=np.int64).reshape(len(ushape), count)
    usi = grid[[k for k in range(len(ushape)) if k not in uwd]]
    s = np.asarray(indices).astype(np.int64)
    if ivd == s.ndim:
        s = s[..., None]
    s = np.moveaxis(s, ivd, -1)
    start = s[tuple(usi)] if len(usi) else np.broadcast_to(s, (count, s.shape[-1]))
    full = np.zeros((count, len(operand)), np.int64)
    for k, dim in enumerate(d.scatter_dims_to_operand_dims):
        full[:, dim] += start[:, k]
    for dim, sdim in zip(d.input_batching_dims, d.scatter_indices_batching_dims):
        full[:, dim] += usi[sdim if sdim < ivd else sdim - 1]
    window_dims = [k for k in range(len(operand))
                   if k not in d.inserted_window_dims and k not in d.input_batching_dims]
    for k, dim in enumerate(window_dims):
        full[:, dim] += grid[uwd[k]]
    inside = np.all((full >= 0) & (full < np.asarray(operand, np.int64)), axis=1)
    positions = np.nonzero(inside)[0]
    if not len(operand):
        return np.zeros(len(positions), np.int64), positions
    return np.ravel_multi_index(tuple(full[positions].T), operand), positions


def apply_updates(interpreter: Interpreter, region, results: list[np.ndarray],
                  flat: np.ndarray, updates: list[np.ndarray], fast: bool = True) -> None:
    """results[flat[j]] = region(results[flat[j]], updates[j]) for j in order (in place
    on flattened `results`), in rounds of distinct indices (`fast`: a plain binary body
    may run as NumPy's `ufunc.at`)."""
    n = len(results)
    ufunc = _ufunc(regions.known_binary(region, n), results[0]) if n == 1 and fast else None
    if ufunc is not None:
        try:  # NumPy's unbuffered ufunc.at applies repeated indices in order
            with np.errstate(all="ignore"):
                ufunc.at(results[0], flat, updates[0])
            return
        except TypeError:
            pass
    pending = np.arange(len(flat))
    vector = regions.vectorisable(region)
    while pending.size:
        if vector:
            _, first = np.unique(flat[pending], return_index=True)
            first.sort()
        else:
            first = np.arange(1)
        take = pending[first]
        idx = flat[take]
        args = [r[idx] for r in results] + [u[take] for u in updates]
        new = (regions.call(interpreter, region, args, len(take)) if vector
               else [np.asarray(v).reshape(1) for v in regions.run(interpreter, region,
                                                                  [a.reshape(()) for a in args])])
        for r, v in zip(results, new):
            r[idx] = v
        pending = np.delete(pending, first)


def _ufunc(kinds, result: np.ndarray):
    """The NumPy ufunc of a body `return op(arg0, arg1)`, where it computes as the op."""
    if kinds is None or result.dtype.kind == "b":
        return None
    kind = kinds[0]
    if kind in (sh.MaximumOp, sh.MinimumOp) and result.dtype.kind not in "iu":
        return None
    return _UFUNCS.get(kind) if kind != regions.REPLACE else None


@register_impls
class StablehloScatterFunctions(InterpreterFunctions):
    """scatter, select_and_scatter, sort."""

    @impl(sh.ScatterOp)
    def run_scatter(self, interpreter: Interpreter, op: sh.ScatterOp, args: tuple[Any, ...]):
        n = len(op.inputs)
        inputs, indices, updates = args[:n], args[n], args[n + 1:]
        flat, positions = scatter_indices(op, indices)
        results = [np.array(x).reshape(-1) for x in inputs]
        ups = [np.asarray(u).reshape(-1)[positions] for u in updates]
        apply_updates(interpreter, op.update_computation, results, flat, ups,
                      fast=not _quantized(op))
        return tuple(r.reshape(shape_of(t.type)) for r, t in zip(results, op.results))

    @impl(sh.SelectAndScatterOp)
    def run_select_and_scatter(self, interpreter: Interpreter, op: sh.SelectAndScatterOp,
                               args: tuple[Any, ...]):
        operand, source, init = (np.asarray(a) for a in args)
        rank = operand.ndim
        window, strides = op.window_dimensions, op.window_strides
        low = [p[0] for p in op.padding]
        src_grid = np.indices(source.shape, dtype=np.int64).reshape(rank, -1).T
        win_grid = np.indices(window, dtype=np.int64).reshape(rank, -1).T
        m = src_grid.shape[0]
        sel_val = np.zeros(m, operand.dtype)
        sel_pos = np.full(m, -1, np.int64)
        flat_operand = operand.reshape(-1)
        for w in win_grid:  # row-major over the window, every source index at once
            pos = src_grid * np.asarray(strides) + w - np.asarray(low)
            ok = np.all((pos >= 0) & (pos < np.asarray(operand.shape)), axis=1)
            flat = np.ravel_multi_index(tuple(np.where(ok[:, None], pos, 0).T), operand.shape) \
                if rank else np.zeros(m, np.int64)
            cur = flat_operand[flat]
            fresh = ok & (sel_pos < 0)
            sel_val = np.where(fresh, cur, sel_val)
            sel_pos = np.where(fresh, flat, sel_pos)
            (keep,) = regions.call_each(interpreter, op.select, [sel_val, cur], m)
            move = ok & ~np.asarray(keep, bool)
            sel_val = np.where(move, cur, sel_val)
            sel_pos = np.where(move, flat, sel_pos)
        result = np.full(operand.size, init.reshape(()), operand.dtype)
        chosen = np.nonzero(sel_pos >= 0)[0]
        src = source.reshape(-1)[chosen]
        # the reference reduces [source, result] from init: scatter(scatter(init, s), r)
        inits = np.full(len(chosen), init.reshape(()), operand.dtype)
        (first,) = regions.call_each(interpreter, op.scatter, [inits, src], len(chosen))
        _scatter_in_order(interpreter, op.scatter, result, sel_pos[chosen], np.asarray(first))
        return (result.reshape(shape_of(op.result.type)),)

    @impl(sh.SortOp)
    def run_sort(self, interpreter: Interpreter, op: sh.SortOp, args: tuple[Any, ...]):
        inputs = [np.asarray(a) for a in args]
        rank = inputs[0].ndim
        dim = op.dimension % rank if rank else 0
        moved = [np.moveaxis(x, dim, -1) for x in inputs]
        n = moved[0].shape[-1] if rank else 1
        rows = [x.reshape(-1, n) for x in moved]
        order = _sort_order(interpreter, op, rows)
        out = []
        for x, r in zip(moved, rows):
            s = np.take_along_axis(r, order, axis=1).reshape(x.shape)
            out.append(np.ascontiguousarray(np.moveaxis(s, -1, dim)))
        return tuple(out)


def _scatter_in_order(interpreter, region, result, positions, values) -> None:
    """result[p] = region(init-combined value, result[p]) for each selected position in
    source order: `values[j]` is `scatter(init, source[j])`, combined with the result
    so far."""
    pending = np.arange(len(positions))
    while pending.size:
        _, first = np.unique(positions[pending], return_index=True)
        first.sort()
        take = pending[first]
        idx = positions[take]
        (new,) = regions.call_each(interpreter, region, [values[take], result[idx]], len(take))
        result[idx] = new
        pending = np.delete(pending, first)


def _simple_comparator(op: sh.SortOp) -> tuple[int, bool, bool] | None:
    """(input, descending, total order) when the comparator is `compare LT|GT` of one
    input's two arguments, returned."""
    block = op.comparator.blocks.first
    ops = list(block.ops)
    if len(ops) != 2 or not isinstance(ops[0], sh.CompareOp) or \
            list(ops[1].operands) != [ops[0].results[0]]:
        return None
    cmp = ops[0]
    a, b = cmp.operands
    args = list(block.args)
    if a not in args or b not in args:
        return None
    i, j = args.index(a), args.index(b)
    if i // 2 != j // 2 or i == j:
        return None
    direction = cmp.comparison_direction
    if direction not in (ComparisonDirection.LT, ComparisonDirection.GT):
        return None
    descending = (direction == ComparisonDirection.GT) == (i < j)
    ct = cmp.compare_type.data.value if cmp.compare_type is not None else None
    return i // 2, descending, ct == ComparisonType.TOTALORDER.value


def _key(x: np.ndarray, total: bool) -> np.ndarray | None:
    """Sort key: integers and bools as they are, floats as float64 (exact) or, under
    TOTALORDER, by their total-order integer; None for complex (the comparator decides)."""
    if x.dtype.kind in "biu":
        return x
    if x.dtype.kind == "c":
        return None
    if not total:
        return x.astype(np.float64)
    bits = x.dtype.itemsize * 8
    s = np.ascontiguousarray(x).view({1: np.int8, 2: np.int16, 4: np.int32,
                                      8: np.int64}[x.dtype.itemsize]).astype(np.int64)
    mag = s & np.int64((1 << (bits - 1)) - 1)
    return np.where(s < 0, -mag - 1, mag)


def _sort_order(interpreter, op: sh.SortOp, rows: list[np.ndarray]) -> np.ndarray:
    simple = _simple_comparator(op)
    nrows, n = rows[0].shape
    if simple is not None:
        k, descending, total = simple
        key = _key(rows[k], total)
        if key is not None:
            if descending:
                rev = np.argsort(key[:, ::-1], axis=1, kind="stable")[:, ::-1]
                return n - 1 - rev
            return np.argsort(key, axis=1, kind="stable")
    region = op.comparator
    if regions.vectorisable(region) and nrows * n * n <= PAIRWISE_LIMIT:
        ii, jj = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        args = []
        for r in rows:  # lhs = element j, rhs = element i: does j go before i?
            args += [r[:, jj].reshape(-1), r[:, ii].reshape(-1)]
        (less,) = regions.call(interpreter, region, args, nrows * n * n)
        before = np.asarray(less, bool).reshape(nrows, n, n).sum(axis=2)
        return np.argsort(before, axis=1, kind="stable")
    orders = []
    for r in range(nrows):
        def less(a: int, b: int) -> int:
            vals = []
            for x in rows:
                vals += [x[r, a], x[r, b]]
            return -1 if bool(np.asarray(regions.run(interpreter, region, vals)[0])) else (
                1 if bool(np.asarray(regions.run(interpreter, region,
                                                 [*_swap(vals)])[0])) else 0)
        orders.append(sorted(range(n), key=functools.cmp_to_key(less)))
    return np.asarray(orders, np.int64).reshape(nrows, n)


def _swap(vals: list) -> list:
    return [vals[i + 1 - 2 * (i % 2)] for i in range(len(vals))]
