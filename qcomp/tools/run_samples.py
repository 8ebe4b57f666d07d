"""`qcomp-run --inputs samples.npz --samples`: a dataset, one sample after another.

Every array of the archive has a leading sample dimension of one length N; sample `i`
is the arrays' `[i]`, bound to the entry's arguments as `--inputs` binds them. The
module is prepared once for the backend (`qcomp.backends.compiled.Compiled`) and run N
times (on xla up to `SAMPLE_CHUNK` samples a call, through the program rebatched by
`set-batch-size` where it allows: `Compiled.run_each`); the results are stacked on a new
leading dimension (`--output` writes them).
The first sample whose run fails (an error, a failed check) stops the run, named.
"""

from __future__ import annotations

from qcomp.interpreter import FunctionRun
from qcomp.tools.run_inputs import GivenInput, InputError, bind_named


def sample_count(npz: dict[str, GivenInput]) -> int:
    """N, the arrays' common leading dimension (an InputError otherwise)."""
    sizes = {k: (g.array.shape[0] if g.array.ndim else None) for k, g in npz.items()}
    if not sizes or any(s is None for s in sizes.values()) or len(set(sizes.values())) > 1 \
            or 0 in sizes.values():
        shown = ", ".join(f"{k}: {'scalar' if s is None else s}" for k, s in sizes.items())
        raise InputError(f"--samples needs arrays with one leading sample dimension of the "
                         f"same length, at least 1 (leading sizes: {shown or 'no arrays'})")
    return next(iter(sizes.values()))


def run_samples(module, f, npz: dict[str, GivenInput], backend: str, semantics: str,
                max_memory: int, device: str) -> FunctionRun:
    """`f` run on every sample: the stacked run, or the failing sample's run."""
    from qcomp.backends.compiled import Compiled

    n = sample_count(npz)
    handle = Compiled(module, backend, semantics, f.sym_name.data, max_memory, device,
                      snapshot=False)
    samples = (bind_named(f, {k: GivenInput(f"{g.source}[{i}]", g.array[i])
                              for k, g in npz.items()}) for i in range(n))
    (run,), _ = handle.run_each(samples)
    return run
