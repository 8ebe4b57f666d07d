"""Run the fuzz families of tests/test_fuzz_surfaces.py whole and print the counts:

    python tools/fuzz_surfaces.py                    # 20,000 mutants: onnx 4,000,
                                                     # onnx_zoo 10,000 (the zoo's models
                                                     # through the README's pipeline),
                                                     # inputs 5,000, xla 1,000
    python tools/fuzz_surfaces.py --scale 0.1        # a tenth of that
    python tools/fuzz_surfaces.py --family onnx --count 500

Mutants run in batches, each batch in its own process, so a crash signal (SIGSEGV,
SIGABRT) is counted, not fatal. The targets: 0 internal errors, 0 crash signals, 0
Python exception texts (each failure is printed with its family, batch and mutant).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COUNTS = {"onnx": 4000, "onnx_zoo": 10000, "inputs": 5000, "xla": 1000}
BATCH = 250

_CHILD = """
import json, sys
sys.path.insert(0, {root!r})
from tests.test_fuzz_surfaces import run_family
print(json.dumps(run_family({family!r}, {count}, seed={seed})))
"""


def run_batch(family: str, count: int, seed: int) -> tuple[list[str], str | None]:
    """(failures, crash) of one batch run in a child process."""
    code = _CHILD.format(root=str(ROOT), family=family, count=count, seed=seed)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        return [], f"exit {r.returncode}: {(r.stderr.strip().splitlines() or [''])[-1][:200]}"
    return json.loads(r.stdout.strip().splitlines()[-1]), None


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--family", choices=sorted(COUNTS), action="append")
    p.add_argument("--count", type=int, help="mutants per family (default: COUNTS)")
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    total = failed = crashed = 0
    for family in args.family or sorted(COUNTS):
        n = args.count or int(COUNTS[family] * args.scale)
        fam_fail = fam_crash = 0
        for b, start in enumerate(range(0, n, BATCH)):
            count = min(BATCH, n - start)
            failures, crash = run_batch(family, count, args.seed * 100003 + b)
            for f in failures:
                print(f"  batch {b}: {f}")
            if crash is not None:
                print(f"  batch {b}: crash ({crash})")
                fam_crash += 1
            fam_fail += len(failures)
        print(f"{family}: {n} mutants, {fam_fail} not ending in a diagnostic, "
              f"{fam_crash} batches crashed", flush=True)
        total, failed, crashed = total + n, failed + fam_fail, crashed + fam_crash
    print(f"total: {total} mutants, {failed} failures, {crashed} crashed batches")
    return 1 if failed or crashed else 0


if __name__ == "__main__":
    sys.exit(main())
