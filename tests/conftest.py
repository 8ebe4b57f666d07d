"""What tests share.

Test helpers are modules of the `tests` package, imported by their absolute name
(`from tests.passes.pass_helpers import parse`); every directory of test modules is a
package (`__init__.py`), so pytest puts the repository root on `sys.path` and names test
modules `tests.<dir>.<module>`. Fixtures more than one test module uses live here.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable

import pytest
from hypothesis import settings

# every property test draws the same examples on every run (CI must not turn red on a
# newly drawn input); a test's own settings(...) inherit this, a sweep widens max_examples
settings.register_profile("qcomp", derandomize=True, database=None)
settings.load_profile("qcomp")


@pytest.fixture
def console_script() -> Callable[[str], str]:
    """`console_script(name)`: the path of an installed console script (next to this
    Python first, then on PATH); the test is skipped when there is none."""
    def find(name: str) -> str:
        path = shutil.which(name, path=os.path.dirname(sys.executable) + os.pathsep
                            + os.environ.get("PATH", ""))
        if path is None:
            pytest.skip(f"{name} is not installed")
        return path

    return find


def _cpu_seconds() -> float:
    """CPU seconds of this process and its reaped children (subprocesses, forks)."""
    import resource

    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """`QCOMP_TEST_CPU=FILE`: append each test's CPU seconds (setup, call and teardown,
    with its subprocesses) to FILE as `seconds<TAB>start<TAB>end<TAB>worker<TAB>nodeid`
    lines (start and end: wall-clock seconds since the epoch; worker: xdist's `gw0`, ...,
    or `main`); on a loaded machine CPU time, not wall time, says where the suite's time
    goes, and the spans show where a worker sat idle (tools/test_cpu.py sums both)."""
    out = os.environ.get("QCOMP_TEST_CPU")
    if not out:
        yield
        return
    import time

    start, wall = _cpu_seconds(), time.time()
    yield
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    with open(out, "a") as f:
        f.write(f"{_cpu_seconds() - start:.3f}\t{wall:.3f}\t{time.time():.3f}\t{worker}"
                f"\t{item.nodeid}\n")


SLOW_FILES = (
    "tests/test_static_checks.py",  # pyright: ~90 s of CPU in one test
    "tests/importers/test_tflite_zoo.py",
    "tests/ir/test_print_against_upstream.py",
    "tests/backends/test_xla.py",
    "tests/test_lit.py",
    "tests/test_fuzz_qcomp_opt.py",
    "tests/quant/test_rowwise.py",
    "tests/passes/test_rowwise_legalize.py",
    "tests/test_plain_install.py",
    "tests/test_stablehlo_suite.py",
)
"""The test files that take longest (CPU seconds of a whole run, QCOMP_TEST_CPU),
longest first. `pytest -n 2 --dist loadfile --no-loadscope-reorder` hands whole files to
the workers in collection order; a long file handed out last is the run's tail, one
worker busy and the other idle. So these run first and the short files fill in around
them. (Without `--no-loadscope-reorder`, xdist 3.8 orders the files by their number of
tests, most first: pyright's file of two tests started last, 80 s of tail.)"""


def pytest_collection_modifyitems(session, config, items):
    """The SLOW_FILES first, in their order; every other test keeps its place."""
    rank = {path: i for i, path in enumerate(SLOW_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(SLOW_FILES)))
