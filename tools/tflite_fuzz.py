#!/usr/bin/env python3
"""The `.tflite` structure fuzz, at length: COUNT mutants (10,000 unless given) of the
random int8 models, each imported by qcomp; prints how many imported, how many were one
diagnostic line, and every other outcome (internal errors, exception text, a printed
module that does not parse back) with its seed.

    python3 tools/tflite_fuzz.py [COUNT] [FIRST_SEED]
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.importers.tflite_mutants import judge, mutant


def main(argv: list[str]) -> int:
    count = int(argv[0]) if argv else 10_000
    first = int(argv[1]) if len(argv) > 1 else 0
    verdicts: Counter[str] = Counter()
    bad = []
    for seed in range(first, first + count):
        model = mutant(seed)
        if model is None:
            verdicts["not packable"] += 1
            continue
        v = judge(model)
        verdicts[v if v in ("ok", "diagnostic") else "bad"] += 1
        if v not in ("ok", "diagnostic"):
            bad.append((seed, v))
    print(", ".join(f"{k}: {n}" for k, n in sorted(verdicts.items())))
    for seed, v in bad:
        print(f"seed {seed}: {v}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
