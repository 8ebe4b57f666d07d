"""Compile once, run many: a module prepared for a backend, run on input after input.

    import qcomp
    prog = qcomp.compile(module, backend="xla", semantics="spec")  # prepares once
    runs = prog.run({"arg0": x})                                    # list[FunctionRun]
    stacked, n = prog.run_samples({"arg0": xs})                    # xs[i]: one sample

What a preparation is, per backend:
- `numpy`: the entry functions chosen, the interpreter's functions registered and each
  op's plan (its implementation and memory estimate, `qcomp.interpreter.runner.Preparation`)
  made on the first run and reused;
- `xla`: the lowering, the printed per-entry programs and XLA's executables
  (`qcomp.backends.xla.compile_module`);
- `iree`: the same programs compiled by IREE, loaded in its runtime
  (`qcomp.backends.iree.compile_module`; the compiled programs are also cached on disk).

`compile` snapshots the module (a clone): later edits of `module` do not reach the
handle. `qcomp.backends.run` keeps one handle per module object, semantics, entry,
budget and device while the module is unchanged (`qcomp.ir.snapshot`), so calling it again
on the same module does not prepare again; on xla it launches the handle's run before
the check and hands the results out only if the module is unchanged
(`run_cached`). Every preparation calls each function of
`PREPARE_HOOKS` with the handle (tests count preparations with it).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from qcomp.interpreter import DEFAULT_MAX_MEMORY, FunctionRun, RunError, entry_functions
from qcomp.interpreter.quantized import QuantSemantics
from qcomp.ir.snapshot import Snapshot

BACKENDS = ("numpy", "xla", "iree")

PREPARE_HOOKS: list[Callable[[Compiled], None]] = []
"""Called with each newly prepared handle."""


class Compiled:
    """`module` prepared for `backend`; `run` as often as wanted (module docstring)."""

    def __init__(self, module: ModuleOp, backend: str = "numpy", semantics: str = "spec",
                 entry: str | None = None, max_memory: int = DEFAULT_MAX_MEMORY,
                 device: str = "cpu", snapshot: bool = True) -> None:
        if backend not in BACKENDS:
            raise RunError(f"unknown backend '{backend}' (one of {', '.join(BACKENDS)})")
        if backend != "xla" and device != "cpu":
            raise RunError(f"the {backend} backend runs on the cpu, not on '{device}'")
        QuantSemantics(semantics)  # validates the name
        self.module = module.clone() if snapshot else module
        self.backend, self.semantics, self.entry = backend, semantics, entry
        self.max_memory, self.device = max_memory, device
        if backend == "numpy":
            from qcomp.interpreter.runner import prepare

            self.functions = entry_functions(self.module, entry)
            self.preparation = prepare(self.module, semantics, max_memory)
        elif backend == "iree":
            from qcomp.backends import iree

            self.xla_functions = iree.compile_module(self.module, semantics, entry)
        else:
            from qcomp.backends import xla

            self.xla_functions = xla.compile_module(self.module, semantics, entry, device)
        self._rebatched: dict[int, Compiled | None] = {}
        """`_batches`' programs per chunk size (None: `set-batch-size` refused it)."""
        for hook in PREPARE_HOOKS:
            hook(self)

    def run(self, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray] | None = None,
            launched: list | None = None) -> list[FunctionRun]:
        """Each entry function's run on `inputs` (as `qcomp.backends.run` takes them);
        `launched`: what `launch(inputs)` returned, waited for instead of running again."""
        from qcomp.interpreter.runner import _inputs_for

        if launched is not None:
            return [fn.run(launched=started) if started is not None else
                    fn.run(_inputs_for(fn.function, inputs))
                    for fn, started in zip(self.xla_functions, launched)]
        if self.backend != "numpy":
            return [fn.run(_inputs_for(fn.function, inputs)) for fn in self.xla_functions]
        from qcomp.interpreter.runner import run_function

        return [run_function(self.module, f, _inputs_for(f, inputs), self.semantics,
                             self.max_memory, preparation=self.preparation)
                for f in self.functions]

    def launch(self, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray] | None = None
               ) -> list | None:
        """On xla, each entry function's run on `inputs` started without waiting for it
        (`XlaFunction.launch`; None for a function whose launch failed: `run` runs it
        again and reports why); None on the other backends, or when the inputs do not
        fit (`run` says how)."""
        from qcomp.interpreter.runner import _inputs_for

        if self.backend != "xla":
            return None
        launched: list = []
        for fn in self.xla_functions:
            try:
                launched.append(None if fn.error is not None else
                                fn.launch(_inputs_for(fn.function, inputs)))
            except Exception:  # noqa: BLE001 - a module edited since may fail anyhow; run redoes it
                launched.append(None)
        return launched

    def run_samples(self, samples: Sequence[np.ndarray] | Mapping[str, np.ndarray]
                    ) -> tuple[list[FunctionRun], int]:
        """Run sample after sample (`samples`: arrays with one leading sample dimension
        of the same length; sample `i` is their `[i]`): `run_each` of them."""
        named = dict(samples) if isinstance(samples, Mapping) else \
            {f"arg{i}": a for i, a in enumerate(samples)}
        sizes = {np.shape(a)[0] if np.ndim(a) else None for a in named.values()}
        if None in sizes or len(sizes) != 1:
            raise RunError("samples need one leading sample dimension of the same length")
        n = sizes.pop()
        return self.run_each({k: a[i] for k, a in named.items()} for i in range(n))

    def run_each(self, samples: Iterable[Sequence[np.ndarray] | Mapping[str, np.ndarray]]
                 ) -> tuple[list[FunctionRun], int]:
        """Run each sample's inputs; (each function's results stacked on a new leading
        dimension, the number of samples run). The first sample whose run fails (an
        error, a failed check) stops it: then its own runs are returned, the error
        naming the sample. On xla the samples go `SAMPLE_CHUNK` at a time through the
        program rebatched for them where it can be (`_batches`): the same bits."""
        if self.backend == "xla":
            samples = list(samples)
            batched = _batches(self, samples)
            if batched is not None:
                return batched, len(samples)
        per_sample: list[list[FunctionRun]] = []
        for i, inputs in enumerate(samples):
            runs = self.run(inputs)
            bad = next((r for r in runs if not r.passed), None)
            if bad is not None:
                if bad.error is not None:
                    bad.error = RunError(f"sample {i}: {bad.error.message}", bad.error.op)
                return runs, i + 1
            per_sample.append(runs)
        if not per_sample:
            raise RunError("no samples to run")
        return stack_runs(per_sample), len(per_sample)


SAMPLE_CHUNK = 64
"""Samples per call when `run_each` runs them through the rebatched program (fewer when
`max_memory` asks: 8 bytes per estimated operation of one sample's program)."""


def _batches(handle: Compiled, samples: list) -> list[FunctionRun] | None:
    """`samples` run `SAMPLE_CHUNK` (or fewer) at a time through `handle`'s program
    rebatched by `set-batch-size` (one program per chunk size, kept on the handle; a
    short last chunk padded with its last sample), each result split back per sample
    and stacked; None where that cannot be: more than one entry function, checks, an
    argument without the common static leading dimension, an op that mixes samples, or
    a run that fails (then the samples run one by one and the failing one is named)."""
    from qcomp.interpreter.runner import _inputs_for
    from qcomp.interpreter.values import shape_of
    from qcomp.passes.set_batch_size import leading_batch, rebatched

    if len(handle.xla_functions) != 1 or len(samples) < 2:
        return None
    fn = handle.xla_functions[0]
    b = leading_batch(fn.function)
    if fn.error is not None or fn.checks or b is None:
        return None
    shapes = [tuple(shape_of(t)) for t in fn.function.function_type.inputs.data]
    try:
        args = [_inputs_for(fn.function, x) for x in samples]
    except Exception:  # noqa: BLE001 - a sample that does not fit: the per-sample runs say which
        return None
    if any(len(a) != len(shapes) or any(np.shape(v) != sh for v, sh in zip(a, shapes)) for a in args):
        return None
    chunk = max(1, min(SAMPLE_CHUNK, len(samples),
                       handle.max_memory // max(1, 8 * fn.work)))
    if chunk < 2:
        return None
    if chunk not in handle._rebatched:
        module = rebatched(handle.module, chunk * b)
        handle._rebatched[chunk] = None if module is None else Compiled(
            module, "xla", handle.semantics, handle.entry, handle.max_memory, handle.device,
            snapshot=False)
    part = handle._rebatched[chunk]
    if part is None:
        return None
    pieces: list[list[np.ndarray]] = []
    for start in range(0, len(args), chunk):
        group = args[start:start + chunk]
        used = len(group)
        group = group + [group[-1]] * (chunk - used)
        (run,) = part.run([np.concatenate([a[j] for a in group]) for j in range(len(shapes))])
        if run.error is not None or any(np.shape(r)[:1] != (chunk * b,) for r in run.results):
            return None
        pieces.append([np.asarray(r)[:used * b].reshape(used, b, *np.shape(r)[1:])
                       for r in run.results])
    out = FunctionRun(fn.name, result_types=fn.result_types)
    out.results = [np.concatenate(rs) for rs in zip(*pieces)]
    return [out]


def stack_runs(per_sample: list[list[FunctionRun]]) -> list[FunctionRun]:
    """One FunctionRun per function (of at least one sample) whose results are the
    samples' results stacked on a new leading dimension (checks and prints of every
    sample, in order)."""
    out = []
    for runs in zip(*per_sample):
        fr = FunctionRun(runs[0].name, result_types=runs[0].result_types)
        fr.results = [np.stack(rs) for rs in zip(*(r.results for r in runs))]
        fr.checks = [c for r in runs for c in r.checks]
        fr.printed = [p for r in runs for p in r.printed]
        out.append(fr)
    return out


def compile(module: ModuleOp, backend: str = "numpy", semantics: str = "spec",  # noqa: A001
            entry: str | None = None, max_memory: int = DEFAULT_MAX_MEMORY,
            device: str = "cpu") -> Compiled:
    """`module` prepared once for `backend` (a snapshot of it; module docstring)."""
    return Compiled(module, backend, semantics, entry, max_memory, device)


_CACHE: OrderedDict[tuple, tuple[Snapshot, Compiled]] = OrderedDict()
_CACHE_SIZE = 8
"""Handles of the modules run last (each holds its module, so an id is not reused)."""


def cached(module: ModuleOp, backend: str = "numpy", semantics: str = "spec",
           entry: str | None = None, max_memory: int = DEFAULT_MAX_MEMORY,
           device: str = "cpu") -> Compiled:
    """The handle for `module` as it is now: the one made before if the module has not
    changed since, else a new one (of the module itself, no snapshot)."""
    key = _key(module, backend, semantics, entry, max_memory, device)
    hit = _CACHE.get(key)
    if hit is not None and hit[0].module is module and hit[0].unchanged():
        _CACHE.move_to_end(key)
        return hit[1]
    return _prepare(key, module, backend, semantics, entry, max_memory, device)


def run_cached(module: ModuleOp, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray] | None,
               backend: str = "numpy", semantics: str = "spec", entry: str | None = None,
               max_memory: int = DEFAULT_MAX_MEMORY, device: str = "cpu") -> list[FunctionRun]:
    """`cached(module, ...).run(inputs)`, the check and the run overlapped on xla: the
    handle made before is launched on `inputs` first (XLA runs it on its own threads)
    and the module checked while it runs; its results are handed out only when the
    module is unchanged, else they are dropped (a run of the program before the edit),
    the module prepared again and run. A call costs about the longer of the check and
    the run, not their sum."""
    key = _key(module, backend, semantics, entry, max_memory, device)
    hit = _CACHE.get(key)
    if hit is not None and hit[0].module is module:
        snapshot, handle = hit
        launched = handle.launch(inputs)
        if snapshot.unchanged():
            _CACHE.move_to_end(key)
            return handle.run(inputs, launched)
        del launched  # the old program's run: never waited for, never read
    return _prepare(key, module, backend, semantics, entry, max_memory, device).run(inputs)


def _key(module: ModuleOp, backend: str, semantics: str, entry: str | None, max_memory: int,
         device: str) -> tuple:
    return (id(module), backend, semantics, entry,
            max_memory if backend == "numpy" else None, device)


def _prepare(key: tuple, module: ModuleOp, backend: str, semantics: str, entry: str | None,
             max_memory: int, device: str) -> Compiled:
    """A new handle of `module` as it is now, kept under `key`."""
    snapshot = Snapshot(module)
    handle = Compiled(module, backend, semantics, entry, max_memory, device, snapshot=False)
    _CACHE[key] = (snapshot, handle)
    _CACHE.move_to_end(key)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return handle


__all__ = ["BACKENDS", "PREPARE_HOOKS", "Compiled", "cached", "compile", "run_cached",
           "stack_runs"]
