#!/usr/bin/env python3
"""Where a test run's time went, from the log `QCOMP_TEST_CPU=FILE pytest` writes
(tests/conftest.py: one `cpu<TAB>start<TAB>end<TAB>worker<TAB>nodeid` line a test).

    QCOMP_TEST_CPU=/tmp/cpu.log python3 -m pytest -q
    python3 tools/test_cpu.py /tmp/cpu.log [--top 25]

Prints the CPU seconds of the test files, largest first, and for each xdist worker its
span (first test's start to last test's end), the seconds it ran tests, and its idle
gaps longer than a second (between tests: collection, a fixture's teardown, waiting for
work; after its last test: the run's tail, the other worker still busy).
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from itertools import pairwise


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--top", type=int, default=25, help="files to list (default 25)")
    a = ap.parse_args(argv)
    by_file: Counter[str] = Counter()
    spans: dict[str, list[tuple[float, float, str]]] = defaultdict(list)
    total = 0.0
    for line in open(a.log):
        cpu, start, end, worker, nodeid = line.rstrip("\n").split("\t", 4)
        total += float(cpu)
        by_file[nodeid.split("::", 1)[0]] += float(cpu)
        spans[worker].append((float(start), float(end), nodeid))
    print(f"CPU seconds in tests: {total:.1f}")
    for path, seconds in by_file.most_common(a.top):
        print(f"{seconds:8.1f}  {path}")
    first = min(s for runs in spans.values() for s, _, _ in runs)
    last = max(e for runs in spans.values() for _, e, _ in runs)
    print(f"\nfirst test start to last test end: {last - first:.1f} s")
    for worker, runs in sorted(spans.items()):
        runs.sort()
        busy = sum(e - s for s, e, _ in runs)
        print(f"{worker}: starts at +{runs[0][0] - first:.1f} s, ends at "
              f"+{runs[-1][1] - first:.1f} s, in tests {busy:.1f} s")
        for (_, end, before), (start, _, after) in pairwise(runs):
            if start - end > 1.0:
                print(f"    idle {start - end:5.1f} s at +{end - first:.1f} s, after "
                      f"{before} before {after}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
