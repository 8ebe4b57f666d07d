"""Interpreter functions of StableHLO's collective ops and `interpreter.run_parallel`,
as upstream's reference interpreter runs them (stablehlo/reference/Ops.cpp).

`run_parallel` starts one thread per process of its `programs` grid, each with its own
interpreter on the same module and a `Process` (qcomp.interpreter.process_grid); the
collectives meet through the grid's rendezvous. A reduction body (all_reduce,
reduce_scatter, collective_reduce) runs once per process of the group on whole arrays,
folding the group's operands in process-id order, which is upstream's element-by-element
fold vectorised (the body's ops are elementwise on 0-d tensors).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.interpreter import RunParallelOp
from qcomp.interpreter.errors import RunError
from qcomp.interpreter.process_grid import Process, ProcessGrid, run_grid
from qcomp.interpreter.values import element_type, numpy_dtype, quant_of

_PROCESS = "process"


def set_process(interpreter: Interpreter, process: Process) -> None:
    """Make `interpreter` run as `process` of a grid."""
    interpreter.set_data(CollectiveFunctions, _PROCESS, process)


def process_of(interpreter: Interpreter, op) -> Process:
    """The process running `interpreter`; an error outside run_parallel (upstream's)."""
    process = interpreter.get_data(CollectiveFunctions, _PROCESS, lambda: None)
    if process is None:
        name = op.name.split(".", 1)[1]
        raise RunError(f"{name} is only supported when run via interpreter.run_parallel")
    return process


def _group(process: Process, op, partition_mode: bool = False):
    groups = process.grid.groups(op.groups, op.channel_id, op.use_global_ids, partition_mode)
    group = process.group_of(groups)
    if group is None:
        raise RunError(f"Failed to find process group with process_id: ({process.replica_id}, "
                       f"{process.partition_id})")
    return groups, group


def _zeros_like(t) -> np.ndarray:
    e = quant_of(t) or element_type(t)
    return np.zeros(tuple(t.get_shape()), numpy_dtype(e))


def _reduce(interpreter: Interpreter, op, contributions: dict, n: int) -> list[np.ndarray]:
    """Fold each of the `n` operands over the group, in process-id order, with the body."""
    ordered = [contributions[p] for p in sorted(contributions)]
    out = []
    for i in range(n):
        acc = ordered[0][i]
        for values in ordered[1:]:
            (acc,) = interpreter.run_ssacfg_region(op.computation, (acc, values[i]),
                                                   "computation")
        out.append(np.asarray(acc))
    return out


@register_impls
class CollectiveFunctions(InterpreterFunctions):
    """Collectives, replica_id / partition_id, interpreter.run_parallel."""

    @impl(RunParallelOp)
    def run_run_parallel(self, interpreter: Interpreter, op: RunParallelOp, args: tuple[Any, ...]):
        grid_names = op.grid
        grid = ProcessGrid(len(grid_names), len(grid_names[0]))
        for name in [s.root_reference.data for s in op.infeed.data] if op.infeed else []:
            grid.infeed.append(interpreter.call_op(name, ()))
        names = [n for row in grid_names for n in row]
        funcs = [interpreter.get_op_for_symbol(n) for n in names]
        counts = [len(f.function_type.inputs.data) for f in funcs]
        if sum(counts) != len(args):
            raise RunError(f"run_parallel has {len(args)} inputs, its programs take {sum(counts)}")
        inputs, start = [], 0
        for c in counts:
            inputs.append(tuple(args[start:start + c]))
            start += c
        def run(process: Process):
            child = _spawn(interpreter)
            set_process(child, process)
            k = process.replica_id * grid.num_partitions + process.partition_id
            return child.call_op(funcs[k], inputs[k])

        results = run_grid(grid, run)
        return tuple(v for r in results for v in r)

    @impl(sh.ReplicaIdOp)
    def run_replica_id(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (np.array(process_of(interpreter, op).replica_id, np.uint32),)

    @impl(sh.PartitionIdOp)
    def run_partition_id(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (np.array(process_of(interpreter, op).partition_id, np.uint32),)

    @impl(sh.AllGatherOp)
    def run_all_gather(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        process = process_of(interpreter, op)
        _, group = _group(process, op)
        got = process.grid.rendezvous(group, op.channel_id, process.id, list(args))
        return tuple(np.concatenate([got[p][i] for p in group], axis=op.all_gather_dim)
                     for i in range(len(args)))

    @impl(sh.AllReduceOp)
    def run_all_reduce(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        process = process_of(interpreter, op)
        _, group = _group(process, op)
        got = process.grid.rendezvous(group, op.channel_id, process.id, list(args))
        return tuple(_reduce(interpreter, op, got, len(args)))

    @impl(sh.CollectiveReduceOp)
    def run_collective_reduce(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        process = process_of(interpreter, op)
        dynamic = op.has_dynamic_root is not None
        data = list(args[:-1] if dynamic else args)
        groups = process.grid.groups(op.groups, op.channel_id, op.use_global_ids)
        group = process.group_of(groups)
        if group is None:
            return tuple(_zeros_like(r.type) for r in op.results)
        got = process.grid.rendezvous(group, op.channel_id, process.id, data)
        reduced = _reduce(interpreter, op, got, len(data))
        out = []
        for i, r in enumerate(op.results):
            root = group[int(np.asarray(args[-1]).reshape(-1)[i])] if dynamic else group[0]
            out.append(reduced[i] if root == process.id else _zeros_like(r.type))
        return tuple(out)

    @impl(sh.ReduceScatterOp)
    def run_reduce_scatter(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        process = process_of(interpreter, op)
        groups, group = _group(process, op)
        got = process.grid.rendezvous(group, op.channel_id, process.id, list(args))
        (reduced,) = _reduce(interpreter, op, got, 1)
        parts = np.split(reduced, len(groups[0]), axis=op.scatter_dimension)
        return (parts[group.index(process.id)],)

    @impl(sh.AllToAllOp)
    def run_all_to_all(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        process = process_of(interpreter, op)
        _, group = _group(process, op, partition_mode=True)
        got = process.grid.rendezvous(group, op.channel_id, process.id, list(args))
        me = group.index(process.id)
        return tuple(np.concatenate(
            [np.split(got[sender][i], op.split_count, axis=op.split_dimension)[me]
             for sender in group], axis=op.concat_dimension) for i in range(len(args)))

    @impl(sh.CollectiveBroadcastOp)
    def run_collective_broadcast(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        process = process_of(interpreter, op)
        dynamic = op.has_dynamic_root is not None
        data = list(args[:-1] if dynamic else args)
        groups = process.grid.groups(op.groups, op.channel_id, False, partition_mode=True)
        group = process.group_of(groups)
        out = []
        for i, value in enumerate(data):
            if group is None:
                out.append(np.zeros_like(value))
                continue
            root = group[0]
            if dynamic:
                index = int(np.asarray(args[-1]).reshape(-1)[i])
                if not 0 <= index < len(group):
                    raise RunError("collective_broadcast dynamic root index out of bounds")
                root = group[index]
            got = process.grid.rendezvous(group, op.channel_id, process.id, [value])
            out.append(got[root][0])
        return tuple(out)

    @impl(sh.CollectivePermuteOp)
    def run_collective_permute(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        process = process_of(interpreter, op)
        (x,) = args
        pairs = process.grid.groups(op.groups, op.channel_id, False, partition_mode=True)
        result = None
        for pair in pairs:
            source, target = pair
            if process.id not in pair:
                continue
            if source == target:
                result = x
                continue
            got = process.grid.rendezvous(pair, op.channel_id, process.id, [x])
            if target == process.id:
                result = got[source][0]
        return (np.zeros_like(x) if result is None else result,)

    # -- infeed / outfeed / send / recv (tokens pass through) ---------------------------------
    @impl(sh.InfeedOp)
    def run_infeed(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        grid = process_of(interpreter, op).grid
        if not grid.infeed:
            raise RunError("infeed: the run_parallel infeed queue is empty")
        return (*grid.infeed.popleft(), args[0])

    @impl(sh.OutfeedOp)
    def run_outfeed(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        process_of(interpreter, op).grid.outfeed.append(list(args[:-1]))
        return (args[-1],)

    @impl(sh.SendOp)
    def run_send(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        process_of(interpreter, op).grid.send(op.channel_id, list(args[:-1]))
        return (args[-1],)

    @impl(sh.RecvOp)
    def run_recv(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        return (*process_of(interpreter, op).grid.recv(op.channel_id), args[0])


def _spawn(interpreter: Interpreter) -> Interpreter:
    """A fresh interpreter sharing `interpreter`'s module, functions and settings."""
    child = type(interpreter)(interpreter.module, _impls=interpreter._impls)  # noqa: SLF001
    for name in ("max_memory", "elementwise", "run_output", "plans", "block_plans", "programs",
                 "memos"):
        if hasattr(interpreter, name):
            setattr(child, name, getattr(interpreter, name))
    return child
