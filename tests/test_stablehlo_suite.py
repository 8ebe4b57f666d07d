"""Upstream StableHLO's own test programs (../shared/conformance/stablehlo-suite/), a fixed
stratified sample run by `tools/run_stablehlo_suite.py --json` (in-process qcomp-run
with `--semantics stablehlo`, forked per file, all cores; `testdata_dynamic/` parsed,
verified and printed).

The sample: every file of `interpret/`, and of `testdata/` and `testdata_dynamic/` the
smallest files that together use every `stablehlo.*` / `chlo.*` op and custom-call
target the directory uses (greedy cover, by op name, smallest file first). Each sampled
file must pass, or fail with exactly the reason `tests/stablehlo_suite_expected.py`
gives it (regenerated with `python3 tools/run_stablehlo_suite.py --write-expected`);
the full run is that command without the option.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from tests.stablehlo_suite_expected import EXPECTED_FAILURES

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("run_stablehlo_suite",
                                               ROOT / "tools" / "run_stablehlo_suite.py")
suite = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(suite)

_OP_NAMES = (re.compile(r"stablehlo\.[a-z_0-9]+\b"), re.compile(r"chlo\.[a-z_0-9]+\b"))
_CUSTOM_CALL = re.compile(r"custom_call @([\w.]+)")
_WORD = re.compile(r"\w")


def ops_in(text: str) -> frozenset[str]:
    r"""The op names (and custom-call targets) a file mentions: what
    `re.findall(r"\b((?:stablehlo|chlo)\.[a-z_0-9]+)\b|custom_call @([\w.]+)", text)`
    finds (a `custom_call @t` inside a `stablehlo.custom_call @t` counts as the op, not
    the target), each pattern alone having a literal prefix the regex engine skips to:
    a tenth of the time over the suite's 20 MB, most of it dense literals."""
    found = [(m.start(), m.end(), m.group()) for pattern in _OP_NAMES
             for m in pattern.finditer(text)
             if m.start() == 0 or not _WORD.match(text, m.start() - 1)]
    found += [(m.start(), m.end(), "@" + m.group(1)) for m in _CUSTOM_CALL.finditer(text)]
    ops: set[str] = set()
    end = 0
    for start, stop, name in sorted(found):  # leftmost first, matches do not overlap
        if start >= end:
            ops.add(name)
            end = stop
    return frozenset(ops)


@cache
def ops_of(path: Path) -> frozenset[str]:
    """The op names (and custom-call targets) a file mentions (read once a process)."""
    return ops_in(path.read_text())


def cover(paths: list[Path]) -> list[Path]:
    """For each op name, in name order, the smallest file using it unless a file chosen
    before already uses it."""
    uses = {p: ops_of(p) for p in paths}
    by_size = sorted(paths, key=lambda p: (p.stat().st_size, p.name))
    chosen: list[Path] = []
    covered: set[str] = set()
    for op in sorted(set().union(*uses.values())):
        if op in covered:
            continue
        p = next(q for q in by_size if op in uses[q])
        chosen.append(p)
        covered |= uses[p]
    return sorted(chosen)


def sample() -> list[Path]:
    return (suite.files_of("interpret") + cover(suite.files_of("testdata"))
            + cover(suite.files_of("testdata_dynamic")))


SAMPLE = sample()
needs_suite = pytest.mark.skipif(not SAMPLE, reason=f"{suite.SUITE} is absent")


@cache
def outcomes() -> dict[str, str]:
    """The sample run by the tool in a fresh process (this one may have loaded JAX,
    whose threads make forking unsafe)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "run_stablehlo_suite.py"),
                           "--json", "--timeout", "120", *map(str, SAMPLE)],
                          capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@needs_suite
def test_sample_is_stratified():
    names = {suite.relname(p) for p in SAMPLE}
    assert {suite.relname(p) for p in suite.files_of("interpret")} <= names
    for d in ("testdata", "testdata_dynamic"):
        every = set().union(*(ops_of(p) for p in suite.files_of(d)))
        sampled = set().union(*(ops_of(p) for p in SAMPLE if p.parent.name == d))
        assert sampled == every, d


@needs_suite
@pytest.mark.parametrize("path", SAMPLE, ids=[suite.relname(p) for p in SAMPLE])
def test_file(path):
    got = outcomes()[suite.relname(path)]
    want = EXPECTED_FAILURES.get(suite.relname(path), suite.PASS)
    assert got == want, (f"{suite.relname(path)}: {got!r}, expected {want!r} (after a change "
                         "that fixes or explains it: python3 tools/run_stablehlo_suite.py "
                         "--write-expected)")


@needs_suite
def test_expected_failures_name_existing_files():
    names = {suite.relname(p) for d in suite.DIRS for p in suite.files_of(d)}
    assert set(EXPECTED_FAILURES) <= names


_PLAIN = re.compile(r"\b((?:stablehlo|chlo)\.[a-z_0-9]+)\b|custom_call @([\w.]+)")


@pytest.mark.parametrize("text", [
    "a stablehlo.custom_call @x.y(", "custom_call @stablehlo.add", "xstablehlo.add chlo.b",
    "stablehlo.chlo.x", "stablehlo.fooBar", "stablehlo.foo_custom_call @z", '"chlo.top_k"',
    "stablehlo.a1 chlo.2", "%0 = stablehlo.add %a, %b\n  chlo.erf", "_custom_call @k",
    "stablehlo.", "chlo.x\nstablehlo.y"])
def test_ops_in_is_the_plain_regex(text):
    assert ops_in(text) == {a or "@" + b for a, b in _PLAIN.findall(text)}


@needs_suite
def test_ops_in_is_the_plain_regex_on_the_sample():
    for p in SAMPLE:
        text = p.read_text()
        assert ops_in(text) == {a or "@" + b for a, b in _PLAIN.findall(text)}, p


def test_reason_from_diagnostics():
    err = "f.mlir:3:5: error: unsupported operation 'stablehlo.foo'\n  x\n  ^\n"
    assert suite._reason(2, "", err) == "unsupported operation 'stablehlo.foo'"
    err = "f.mlir:9:3: error: check.expect_eq_const failed in @f: 3 mismatching element(s)\n"
    assert suite._reason(1, "0 passed, 1 failed\n", err) == "check failed: check.expect_eq_const"
    assert suite._reason(1, "", "") == "check failed"
