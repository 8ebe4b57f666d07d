#!/usr/bin/env python3
"""Where XLA's time goes in the lowered int8 MobileNetV2 at a batch size: per HLO thunk
(fusion, dot, convolution), summed over XLA's threads, from a jax profiler trace.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python3 tools/profile_xla.py [--batch 64]
        [--repeat 3] [--top 20]

The thunks are named as in XLA's optimised HLO (`XLA_FLAGS=--xla_dump_to=DIR` writes it,
`*.cpu_after_optimizations.txt`); a fusion's numeric suffix is dropped in the per-kind
table. Times are per run, in ms of thread time (two threads overlap, so they can add up to
more than the wall clock).
"""

from __future__ import annotations

import argparse
import glob
import gzip
import json
import os
import re
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))


def thunk_times(trace: str, repeat: int) -> dict[str, float]:
    """ms per run of every thunk event (not Python frames, not XLA's executor waits)."""
    path = sorted(glob.glob(f"{trace}/**/*.trace.json.gz", recursive=True))[-1]
    times: dict[str, float] = defaultdict(float)
    for e in json.load(gzip.open(path))["traceEvents"]:
        name = e.get("name", "")
        if e.get("ph") == "X" and not name.startswith(("$", "end: ")) and (
                "fusion" in name or name.startswith(("convolution", "dot", "copy"))):
            times[name] += e["dur"] / 1e3 / repeat
    return times


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--top", type=int, default=20)
    a = ap.parse_args(argv)
    flags = os.environ.get("XLA_FLAGS", "")
    os.environ["XLA_FLAGS"] = f"{flags} --xla_cpu_enable_xprof_traceme=true".strip()
    import jax
    import numpy as np
    from bench_models import lowered_mobilenet

    import qcomp
    from qcomp.passes.set_batch_size import SetBatchSizePass
    from qcomp.registry import make_context

    _, module = lowered_mobilenet()
    if a.batch != 1:
        SetBatchSizePass(n=a.batch).apply(make_context(), module)
    x = np.random.default_rng(0).integers(-128, 128, (a.batch, 32, 32, 3)).astype(np.int8)
    handle = qcomp.compile(module, backend="xla")
    for _ in range(2):
        handle.run([x])
    with tempfile.TemporaryDirectory() as trace:
        jax.profiler.start_trace(trace, create_perfetto_trace=True)
        for _ in range(a.repeat):
            handle.run([x])
        jax.profiler.stop_trace()
        times = thunk_times(trace, a.repeat)
    kinds: dict[str, float] = defaultdict(float)
    for name, t in times.items():
        kinds[re.sub(r"\.\d+$", "", name)] += t
    print(f"batch {a.batch}: {sum(times.values()):.3f} ms of thread time per run "
          f"(load average {os.getloadavg()[0]:.1f})")
    for title, table in (("per kind", kinds), ("per thunk", times)):
        print(f"\n{title}:")
        for name, t in sorted(table.items(), key=lambda kv: -kv[1])[:a.top]:
            print(f"  {t:8.3f} ms  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
