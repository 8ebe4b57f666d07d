"""The StableHLO spec's process grid: `num_replicas x num_partitions` processes run
concurrently (one thread each) and meet at collectives.

`ProcessGrid.rendezvous(group, channel, process, values)` blocks until every process
of `group` has contributed its values for the same (group, channel) and returns them
all, by process id; the k-th rendezvous of a process on a key meets the k-th of the
others. The group helpers are the spec's `cross_replica`, `cross_partition`,
`cross_replica_and_partition` and `flattened_ids`. A process that fails wakes the
others, which stop with an error instead of waiting for it.
"""

from __future__ import annotations

import threading
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from qcomp.interpreter.errors import RunError

ProcessId = tuple[int, int]
"""(replica_id, partition_id)."""
Group = tuple[ProcessId, ...]

RENDEZVOUS_TIMEOUT = 60.0
"""Seconds a process waits for the others of its group (upstream waits 3)."""


@dataclass
class ProcessGrid:
    num_replicas: int
    num_partitions: int
    infeed: deque = field(default_factory=deque)
    """Values `stablehlo.infeed` pops, in order (shared by every process)."""
    outfeed: list = field(default_factory=list)
    _lock: threading.Condition = field(default_factory=threading.Condition)
    _rounds: dict = field(default_factory=lambda: defaultdict(dict))
    _count: dict = field(default_factory=lambda: defaultdict(int))
    _mailboxes: dict = field(default_factory=lambda: defaultdict(deque))
    failed: bool = False

    # -- process groups ---------------------------------------------------------------------
    def cross_replica(self, groups: list[list[int]]) -> list[Group]:
        return [tuple((r, p) for r in g) for g in groups for p in range(self.num_partitions)]

    def cross_partition(self, groups: list[list[int]]) -> list[Group]:
        return [tuple((r, p) for p in g) for g in groups for r in range(self.num_replicas)]

    def cross_replica_and_partition(self, groups: list[list[int]]) -> list[Group]:
        return [tuple((r, p) for p in range(self.num_partitions) for r in g) for g in groups]

    def flattened_ids(self, groups: list[list[int]]) -> list[Group]:
        n = self.num_partitions
        return [tuple((i // n, i % n) for i in g) for g in groups]

    def groups(self, groups: list[list[int]], channel_id: int, use_global_ids: bool,
               partition_mode: bool = False) -> list[Group]:
        """The spec's choice of process groups for a collective: `partition_mode` ops
        (all_to_all, collective_broadcast, collective_permute) go cross_partition when
        they have a channel; the others cross_replica_and_partition, or flattened_ids
        with `use_global_device_ids`."""
        if channel_id <= 0:
            if use_global_ids:
                raise RunError("use_global_device_ids needs a positive channel_id")
            return self.cross_replica(groups)
        if partition_mode:
            return self.cross_partition(groups)
        if use_global_ids:
            return self.flattened_ids(groups)
        return self.cross_replica_and_partition(groups)

    # -- meeting ------------------------------------------------------------------------------
    def fail(self) -> None:
        with self._lock:
            self.failed = True
            self._lock.notify_all()

    def _wait(self, ready) -> None:
        if not self._lock.wait_for(lambda: ready() or self.failed, RENDEZVOUS_TIMEOUT):
            self.failed = True
            self._lock.notify_all()
            raise RunError("rendezvous timed out: a process of the group never arrived")
        if self.failed and not ready():
            raise RunError("another process of the grid failed")

    def rendezvous(self, group: Group, channel_id: int, process: ProcessId,
                   values: list[Any]) -> dict[ProcessId, list[Any]]:
        """Every group member's values, once all have arrived."""
        if len(group) == 1:
            return {process: values}
        with self._lock:
            key = (group, channel_id)
            k = self._count[(key, process)]
            self._count[(key, process)] = k + 1
            contributions = self._rounds[(key, k)]
            contributions[process] = values
            self._lock.notify_all()
            self._wait(lambda: len(contributions) == len(group))
            return dict(contributions)

    # -- send / recv ----------------------------------------------------------------------------
    def send(self, channel_id: int, values: list[Any]) -> None:
        with self._lock:
            self._mailboxes[channel_id].append(values)
            self._lock.notify_all()

    def recv(self, channel_id: int) -> list[Any]:
        with self._lock:
            box = self._mailboxes[channel_id]
            self._wait(lambda: bool(box))
            return box.popleft()


@dataclass(frozen=True)
class Process:
    """One process of a grid."""

    grid: ProcessGrid
    replica_id: int
    partition_id: int

    @property
    def id(self) -> ProcessId:
        return (self.replica_id, self.partition_id)

    def group_of(self, groups: list[Group]) -> Group | None:
        return next((g for g in groups if self.id in g), None)


def run_grid(grid: ProcessGrid, work: Callable[[Process], Any]) -> list[Any]:
    """`work(process)` for every process of `grid`, each in its own thread; the results
    in row-major process order. The first error (not a follower's "another process
    failed") is raised once every thread has stopped."""
    processes = [Process(grid, r, p) for r in range(grid.num_replicas)
                 for p in range(grid.num_partitions)]
    results: list[Any] = [None] * len(processes)
    errors: list[BaseException] = []

    def run(k: int) -> None:
        try:
            results[k] = work(processes[k])
        except BaseException as e:  # noqa: BLE001 - re-raised below, in the caller's thread
            errors.append(e)
            grid.fail()

    threads = [threading.Thread(target=run, args=(k,), daemon=True)
               for k in range(len(processes))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise next((e for e in errors if "another process" not in str(e)), errors[0])
    return results
