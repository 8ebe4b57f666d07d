"""Which PJRT CPU client runs a program: jax's, or one whose pool has a single thread.

jax's CPU client runs an executable's thunks on a pool of one thread per core. On a
small program the second thread costs more than it brings: the int8 MobileNetV2 at
batch 1 (3.6 MFLOP in XLA's cost analysis, 5.1 M in `work`) ran in 0.56 ms on one
thread against 0.78 ms on two (best of 600 runs each, interleaved, 2 cores), and used
about a third of the CPU time; at batch 4 (14 MFLOP, 18 M) two threads won (1.21 against 1.51
ms), and so on up (docs/benchmarks.md, "One thread for a small program"). A program
whose estimated `work` is below `ONE_THREAD_WORK` is therefore compiled for, and run on,
a second client with a one-thread pool; the other core stays free for the caller
(`qcomp.backends.run` checks the module there while XLA runs).

A large program whose samples are independent goes the other way: its batch is cut
into one slice per core, each slice run by the program at the smaller batch on a
one-thread client of its own, all at once (`one_thread_client_at`, `slice_count`,
`qcomp.backends.xla.batch_slices`). No thread then waits for another inside a run: the
int8 MobileNetV2 at batch 64 ran in 1.22 ms as two slices of 32 against 1.75 ms whole on
jax's two-thread client (interleaved, best of 30 rounds), the MLP workload (batch 256)
0.77 against 0.92 ms.

XLA sizes a client's pools from the calling thread's CPU affinity when the client is
made (`tsl::port::MaxParallelism`), and PJRT has no option for it, so
`one_thread_client` makes it while the calling thread may use one CPU, then gives the
thread, and the threads the client started, their CPUs back. Where that cannot be done
(no `sched_setaffinity`: not Linux) every program uses jax's client.
"""

from __future__ import annotations

import functools
import math
import os
from typing import Any

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from qcomp.backends.xla_contractions import contraction_size
from qcomp.dialects import stablehlo as sh
from qcomp.interpreter.values import shape_of

ONE_THREAD_WORK = 10_000_000
"""Programs estimated below this many operations (`work`) run on one thread."""


def work(main: Operation) -> int:
    """A rough operation count of a prepared program, as XLA's cost analysis counts
    flops: every op's result elements once, and 2 K per element for a `dot_general` /
    `convolution` contracting K values."""
    total = 0
    for op in main.walk():
        per_element = 2 * contraction_size(op) if isinstance(
            op, sh.DotGeneralOp | sh.ConvolutionOp) else 1
        for r in op.results:
            if isinstance(r.type, TensorType):
                total += per_element * math.prod(max(d, 1) for d in shape_of(r.type))
    return total


@functools.cache
def one_thread_client(make_cpu_client) -> Any | None:
    """A PJRT CPU client with one-thread pools (module docstring), or None."""
    return _new_one_thread_client(make_cpu_client)


_MORE_CLIENTS: list[Any] = []


def one_thread_client_at(make_cpu_client, slot: int) -> Any | None:
    """The `slot`-th one-thread client (0: `one_thread_client`; more are made on first
    use, each with its own pool thread), or None."""
    first = one_thread_client(make_cpu_client)
    if first is None or slot == 0:
        return first
    while len(_MORE_CLIENTS) < slot:
        client = _new_one_thread_client(make_cpu_client)
        if client is None:
            return None
        _MORE_CLIENTS.append(client)
    return _MORE_CLIENTS[slot - 1]


def slice_count(batch: int) -> int:
    """Into how many slices a large program's batch of `batch` samples is cut
    (`qcomp.backends.xla.batch_slices`): the CPUs this process may use, when the batch
    divides evenly among them; else 1 (the program runs whole)."""
    if not hasattr(os, "sched_getaffinity"):
        return 1
    cores = len(os.sched_getaffinity(0))
    return cores if cores > 1 and batch >= cores and batch % cores == 0 else 1


def _new_one_thread_client(make_cpu_client) -> Any | None:
    if not hasattr(os, "sched_setaffinity"):
        return None
    mask = os.sched_getaffinity(0)
    if len(mask) < 2:
        return None  # jax's client has one thread already
    before = set(os.listdir("/proc/self/task"))
    os.sched_setaffinity(0, {min(mask)})
    try:
        client = make_cpu_client(asynchronous=True)
    except Exception:  # noqa: BLE001 - any failure: jax's client does the work
        return None
    finally:
        os.sched_setaffinity(0, mask)
    for tid in set(os.listdir("/proc/self/task")) - before:
        try:
            os.sched_setaffinity(int(tid), mask)
        except OSError:
            pass  # a thread that has ended already
    return client


__all__ = ["ONE_THREAD_WORK", "one_thread_client", "one_thread_client_at", "slice_count", "work"]
