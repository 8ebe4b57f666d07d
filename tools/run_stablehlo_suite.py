#!/usr/bin/env python3
"""Run upstream StableHLO's own test programs (../shared/conformance/stablehlo-suite/).

    python3 tools/run_stablehlo_suite.py [--jobs N] [--timeout S] [--dir D]... [--verbose]
                                         [--write-expected] [FILE...]

- `interpret/` and `testdata/`: each file through qcomp-run's in-process entry
  (`qcomp.tools.qcomp_run.main`: parse once, verify, run once, checks judged) with
  `--semantics stablehlo` (upstream's reference interpreter is what these files are
  written against: its tolerances assume its term-by-term float sums), and
  `--split-input-file` where the file's RUN line asks for it;
- a file whose RUN lines pipe `stablehlo-translate --interpret` into FileCheck
  (`printing.mlir`, `api_input_arguments.mlir`): each such line run with its options
  (`qcomp-run --interpret`, upstream's output) and its output checked with `filecheck`;
- `testdata_dynamic/`: parsed, verified and printed (`qcomp.tools.qcomp_opt.main`, no
  passes), as upstream only round-trips them.

Files run in parallel, one forked process per file (qcomp imported once, before the
fork), each stopped after `--timeout` seconds. `--json` prints the outcome of each file
instead of the report (tests/test_stablehlo_suite.py runs this tool as a fresh process:
forking a process that has loaded JAX can deadlock). The report gives the pass count per
directory and the failing files grouped by reason (the first diagnostic, its numbers
and quoted details kept). A file whose RUN lines upstream disabled
(`RUN-DISABLED(...)`) is reported with upstream's reason and not run.

`--write-expected` rewrites tests/stablehlo_suite_expected.py, the table of expected
failures that tests/test_stablehlo_suite.py checks its sample against.
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing as mp
import os
import re
import sys
import time
from collections import Counter, defaultdict
from multiprocessing.connection import wait
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT.parent / "shared" / "conformance" / "stablehlo-suite"
DIRS = ("interpret", "testdata", "testdata_dynamic")
EXPECTED = ROOT / "tests" / "stablehlo_suite_expected.py"
PASS = "pass"
_DIAG = re.compile(r"^[^\n:]*:\d+:\d+: error: (.*)$|^qcomp-\w+: (?:error|internal error): (.*)$",
                   re.MULTILINE)
_DISABLED = re.compile(r"^// RUN-DISABLED\(([^)]*)\)", re.MULTILINE)


def files_of(directory: str, suite: Path = SUITE) -> list[Path]:
    d = suite / directory
    return sorted(d.glob("*.mlir")) if d.is_dir() else []


def relname(path: Path) -> str:
    """`interpret/while.mlir`: the key of a file in reports and the expected table."""
    return f"{path.parent.name}/{path.name}"


def _reason(code: int, out: str, err: str) -> str:
    """A one-line reason for a failed run, from qcomp-run's / qcomp-opt's output."""
    m = _DIAG.search(err)
    if m is not None:
        text = (m.group(1) or m.group(2)).strip()
        if " failed in @" in text:  # a check: `check.expect_eq failed in @f: 3 mismatching...`
            return "check failed: " + text.split(" failed in @", 1)[0]
        return text
    if code == 1:
        return "check failed"
    return f"exit {code}: " + (err.strip().splitlines() or ["no output"])[-1][:200]


_FILECHECK_RUN = re.compile(r"^// RUN: (not )?stablehlo-translate (.*--interpret.*?) "
                            r"(2>&1 )?\| FileCheck %s(.*)$", re.MULTILINE)


def _filecheck_runs(path: Path, text: str) -> str | None:
    """A file whose RUN lines pipe `stablehlo-translate --interpret` into FileCheck:
    each such line run as qcomp-run with the same options (`--interpret` prints
    results as upstream does), its output (and stderr after `2>&1`) checked by the
    Python `filecheck` with the line's prefixes; a `not` line must fail. PASS, a
    reason, or None when the file has no such line."""
    import shlex

    from qcomp.tools.qcomp_run import main

    lines = _FILECHECK_RUN.findall(text)
    if not lines:
        return None
    for negated, options, merged, check_args in lines:
        argv = [str(path), "--semantics", "stablehlo"]
        for word in shlex.split(options.replace("%s", "")):
            word = "-" + word if word.startswith("-") and not word.startswith("--") else word
            if word in ("--interpret", "--interpreter-print-dense", "--split-input-file") \
                    or word.startswith("--args="):
                argv.append(word)
        out, err = io.StringIO(), io.StringIO()
        code = main(argv, None, out, err)
        if bool(negated) != (code != 0):
            return _reason(code, out.getvalue(), err.getvalue()) if code else \
                "qcomp-run succeeded where upstream's RUN line expects a failure"
        given = out.getvalue() + (err.getvalue() if merged else "")
        code, said = _filecheck([str(path), *shlex.split(check_args)], given)
        if code != 0:
            first = said.strip().splitlines()
            return "FileCheck failed: " + (first[0][:200] if first else "no output")
    return PASS


def _filecheck(argv: list[str], given: str) -> tuple[int, str]:
    """`filecheck ARGV` (the Python `filecheck` package) on the input `given`, in this
    process (a `python3 -m filecheck` would start and import for 0.4 s of CPU): its exit
    code and what it printed."""
    from contextlib import redirect_stderr, redirect_stdout

    import filecheck.colors
    from filecheck.matcher import Matcher
    from filecheck.options import parse_argv_options

    filecheck.colors.COLOR_SUPPORT = False  # as with its output in a pipe
    said = io.StringIO()
    stdin = sys.stdin
    sys.stdin = io.StringIO(given)  # `-`, filecheck's input, is read from sys.stdin
    try:
        with redirect_stdout(said), redirect_stderr(said):
            code = Matcher.from_opts(parse_argv_options(["filecheck", *argv])).run()
    finally:
        sys.stdin = stdin
    return code, said.getvalue()


def run_file(path: Path) -> str:
    """PASS or the reason `path` fails (in this process)."""
    text = path.read_text()
    disabled = _DISABLED.search(text)
    if disabled is not None and "// RUN:" not in text.split("\n", 1)[0]:
        return f"disabled upstream: RUN-DISABLED({disabled.group(1)})"
    if path.parent.name != "testdata_dynamic":
        checked = _filecheck_runs(path, text)
        if checked is not None:
            return checked
    out, err = io.StringIO(), io.StringIO()
    if path.parent.name == "testdata_dynamic":
        from qcomp.tools.qcomp_opt import main

        code = main([str(path)], None, out, err)
    else:
        from qcomp.tools.qcomp_run import main

        argv = [str(path), "--semantics", "stablehlo"]
        if re.search(r"^// RUN:.*-split-input-file", text, re.MULTILINE):
            argv.append("--split-input-file")
        given = re.search(r'^// RUN:.*--args="([^"]*)"', text, re.MULTILINE)
        if given is not None:  # the first RUN line's arguments
            argv.append("--args=" + given.group(1))
        if re.search(r"^// RUN:.*--probe-output-dir", text, re.MULTILINE):
            import tempfile

            with tempfile.TemporaryDirectory() as probes:  # upstream's %t directory
                code = main([*argv, "--probe-output-dir=" + probes], None, out, err)
        else:
            code = main(argv, None, out, err)
    return PASS if code == 0 else _reason(code, out.getvalue(), err.getvalue())


def _child(path: Path, conn) -> None:
    try:
        result = run_file(path)
    except BaseException as e:  # noqa: BLE001 - the report names it
        result = f"runner error: {type(e).__name__}: {e}"
    conn.send(result)
    conn.close()


_WARM_UP = """func.func @warm_up() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.add %0, %0 : tensor<2xf32>
  check.expect_eq_const %1, dense<[2.0, 4.0]> : tensor<2xf32>
  func.return
}
"""


def _preload() -> None:
    """Import what every file needs once, before forking."""
    # with what qcomp-run imports on demand (a module imported in each forked child is
    # read and compiled again in each)
    import qcomp.importers.formats
    import qcomp.interpreter
    import qcomp.interpreter.straight_line
    import qcomp.interpreter.structured_kernels
    import qcomp.interpreter.tensor_text
    import qcomp.registry
    import qcomp.tools.qcomp_opt
    import qcomp.tools.qcomp_run
    import qcomp.tools.run_args
    import qcomp.tools.run_inputs
    from qcomp.interpreter.runner import dialect_functions

    try:
        import filecheck.matcher
        import filecheck.options  # noqa: F401
    except ImportError:  # then the files checked with FileCheck report it
        pass

    qcomp.registry.make_context()
    # the dialects and their interpreter functions load on first use: here, once (not
    # rowwise, whose kernels the suite does not use)
    dialects = set(qcomp.registry.DIALECTS) - {"rowwise"}
    for name in dialects:
        qcomp.registry.DIALECTS[name]()
    dialect_functions(dialects | {"arith", "math"})
    # one small program run through qcomp-run: what its first run reads and caches is
    # then shared by every child instead of built again in each
    out, err = io.StringIO(), io.StringIO()
    code = qcomp.tools.qcomp_run.main(["-", "--semantics", "stablehlo"], io.StringIO(_WARM_UP),
                                      out, err)
    assert code == 0, err.getvalue()


def run_all(paths: list[Path], jobs: int, timeout: float, progress=None) -> dict[str, str]:
    """relname -> PASS or reason, one forked process per file, `jobs` at a time."""
    _preload()
    ctx = mp.get_context("fork")
    todo = list(paths)
    running: dict = {}  # conn -> (process, path, deadline)
    results: dict[str, str] = {}
    while todo or running:
        while todo and len(running) < jobs:
            path = todo.pop(0)
            parent, child = ctx.Pipe(duplex=False)
            p = ctx.Process(target=_child, args=(path, child), daemon=True)
            p.start()
            child.close()
            running[parent] = (p, path, time.monotonic() + timeout)
        now = time.monotonic()
        ready = wait(list(running), timeout=max(0.0, min(d for _, _, d in running.values()) - now))
        for conn in ready:
            p, path, _ = running.pop(conn)
            try:
                results[relname(path)] = conn.recv()
            except EOFError:
                results[relname(path)] = f"crashed (exit code {p.exitcode})"
            p.join()
            if progress:
                progress(len(results))
        now = time.monotonic()
        for conn, (p, path, deadline) in list(running.items()):
            if now >= deadline:
                p.kill()
                p.join()
                running.pop(conn)
                results[relname(path)] = f"timeout after {timeout:g} s"
    return results


def summarize(results: dict[str, str], dirs=DIRS, verbose: bool = False) -> str:
    lines = []
    for d in dirs:
        mine = {k: v for k, v in results.items() if k.startswith(d + "/")}
        if not mine:
            continue
        ok = sum(v == PASS for v in mine.values())
        lines.append(f"{d}: {ok} / {len(mine)} pass")
        by_reason = Counter(v for v in mine.values() if v != PASS)
        names = defaultdict(list)
        for k, v in sorted(mine.items()):
            names[v].append(k.split("/", 1)[1])
        for reason, n in by_reason.most_common():
            shown = names[reason] if verbose else names[reason][:3]
            more = "" if verbose or n <= 3 else ", ..."
            lines.append(f"  {n:5d}  {reason}  [{', '.join(shown)}{more}]")
    return "\n".join(lines)


def write_expected(results: dict[str, str], path: Path = EXPECTED) -> None:
    """The expected-failure table: every failing file with its reason."""
    failing = {k: v for k, v in sorted(results.items()) if v != PASS}
    body = "".join(f"    {k!r}: {v!r},\n" for k, v in failing.items())
    path.write_text(
        '"""Files of ../shared/conformance/stablehlo-suite/ that do not pass, with the reason\n'
        "(the first diagnostic qcomp gives). Generated by `python3 tools/run_stablehlo_suite.py\n"
        '--write-expected`; tests/test_stablehlo_suite.py checks its sample against it."""\n\n'
        f"EXPECTED_FAILURES: dict[str, str] = {{\n{body}}}\n")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, help="only these files")
    ap.add_argument("--dir", action="append", choices=DIRS, help="only this directory (repeat)")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per file")
    ap.add_argument("--verbose", "-v", action="store_true", help="list every failing file")
    ap.add_argument("--json", action="store_true",
                    help="print {file: 'pass' or reason} as JSON instead of the report")
    ap.add_argument("--write-expected", action="store_true",
                    help=f"rewrite {EXPECTED.relative_to(ROOT)} from this (full) run")
    args = ap.parse_args(argv)
    if args.files:
        paths = [p.resolve() for p in args.files]
    else:
        paths = [p for d in (args.dir or DIRS) for p in files_of(d)]
    if not paths:
        print(f"no files (is {SUITE} there?)", file=sys.stderr)
        return 2
    if args.write_expected and (args.files or args.dir):
        print("--write-expected needs the full run (no FILE, no --dir)", file=sys.stderr)
        return 2
    start = time.monotonic()

    def progress(n: int) -> None:
        if sys.stderr.isatty():
            print(f"\r{n}/{len(paths)}", end="", file=sys.stderr, flush=True)

    results = run_all(paths, args.jobs, args.timeout, None if args.json else progress)
    if args.json:
        print(json.dumps(results, indent=0, sort_keys=True))
        return 0
    if sys.stderr.isatty():
        print(file=sys.stderr)
    print(summarize(results, verbose=args.verbose))
    print(f"{sum(v == PASS for v in results.values())} / {len(results)} files pass "
          f"({time.monotonic() - start:.0f} s, {args.jobs} jobs)")
    if args.write_expected:
        write_expected(results)
        print(f"wrote {EXPECTED.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
