"""qcomp-run: run StableHLO programs (quantized or not) and report their checks.

    qcomp-run FILE [--split-input-file] [--entry NAME] [--inputs IN.npz]
              [--output OUT.npz] [--semantics spec|stablehlo] [--print-results]
              [--max-memory SIZE] [--backend numpy|xla] [--device cpu|gpu]

Runs `@main` (or `--entry`), or, where there is none, every function without
arguments. Each failing check is reported at its location with the mismatching
elements; the last line is `N passed, M failed` (checks, plus functions stopped by
an error). Exit codes: 0 all checks passed, 1 a check failed, 2 an error in the
program or the command line (diagnostic, never a traceback).
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import TextIO

import numpy as np

from qcomp.tools.cli import (
    ArgParser,
    UsageError,
    guarded_main,
    op_offset,
    read_input,
    split_chunks,
)

PROG = "qcomp-run"
DEFAULT_MAX_MEMORY = 4 << 30


def parse_size(text: str) -> int:
    """'4G', '512MiB', '1000000' -> bytes (K/M/G/T are powers of 1024)."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", text)
    if m is None:
        raise argparse.ArgumentTypeError(f"'{text}' is not a size (e.g. 512M, 4G)")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2).lower()]
    return int(float(m.group(1)) * scale)


def _arg_parser() -> ArgParser:
    p = ArgParser(prog=PROG, description="Run StableHLO programs on NumPy and report checks.")
    p.add_argument("input", help="input .mlir file ('-' for stdin)")
    p.add_argument("--split-input-file", action="store_true",
                   help="run each '// -----'-separated chunk on its own")
    p.add_argument("--entry", metavar="NAME", help="function to run (default: @main, else "
                   "every function without arguments)")
    p.add_argument("--inputs", metavar="IN.npz", help="arrays arg0, arg1, ... for the entry's arguments")
    p.add_argument("--output", metavar="OUT.npz", help="write the results as result0, result1, ... "
                   "(quantized results as their storage integers)")
    p.add_argument("--semantics", choices=("spec", "stablehlo"), default="spec",
                   help="meaning of quantized ops: the StableHLO spec (default) or upstream's "
                        "reference interpreter, bit for bit")
    p.add_argument("--backend", choices=("numpy", "xla"), default="numpy",
                   help="numpy: qcomp's interpreter (default); xla: the program lowered for "
                        "--semantics, compiled by XLA through jaxlib (pip install 'qcomp[xla]')")
    p.add_argument("--device", default="cpu", metavar="DEVICE",
                   help="PJRT device for --backend xla: cpu (default), gpu, gpu:N")
    p.add_argument("--print-results", action="store_true", help="print every result")
    p.add_argument("--max-memory", type=parse_size, default=DEFAULT_MAX_MEMORY, metavar="SIZE",
                   help="stop before an op would allocate more than SIZE (default 4G)")
    return p


def _format_check_failure(source, c, positions, fname: str) -> str:
    from qcomp.dialects.stablehlo import CustomCallOp
    from qcomp.tools.diagnostics import Diagnostic, render

    what = c.op.call_target_name if isinstance(c.op, CustomCallOp) else c.op.name
    head = Diagnostic("error", f"{what} failed in @{fname}: {c.total_mismatches} "
                               f"mismatching element(s)", op_offset(c.op, positions))
    lines = [render(source, head).rstrip("\n")]
    for idx, got, want in c.mismatches:
        lines.append(f"  at {list(idx)}: got {got!r}, expected {want!r}")
    if c.total_mismatches > len(c.mismatches):
        lines.append(f"  ... and {c.total_mismatches - len(c.mismatches)} more")
    return "\n".join(lines) + "\n"


def verify_module(module, positions):
    """First verifier error as a Diagnostic at its op, or None."""
    from xdsl.utils.exceptions import DiagnosticException

    from qcomp.tools.diagnostics import Diagnostic

    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except DiagnosticException as e:
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            if not msg.startswith("'"):
                msg = f"'{op.name}' op {msg}"
            return Diagnostic("error", msg, op_offset(op, positions))
    return None


def _load_inputs(path: str) -> dict[str, np.ndarray]:
    from qcomp.interpreter import RunError

    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError) as e:
        raise RunError(f"cannot read inputs '{path}': {e}") from None


def _print_result(out: TextIO, fname: str, i: int, value: np.ndarray, t) -> None:
    from qcomp.interpreter.values import quant_of

    q = quant_of(t)
    note = " (storage)" if q is not None else ""
    with np.printoptions(threshold=1000, linewidth=100):
        out.write(f"@{fname} result{i}{note}: {t}\n{np.array2string(np.asarray(value))}\n")


def run_tool(argv: list[str], stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from qcomp.ir import QcompParser
    from qcomp.interpreter import RunError, entry_functions, run_function
    from qcomp.tools.diagnostics import Diagnostic, SourceFile, render

    try:
        args = _arg_parser().parse_args(argv)
    except UsageError as e:
        stderr.write(f"{PROG}: error: {e}\n")
        return 2
    source = read_input(PROG, args.input, stdin, stderr)
    if source is None:
        return 2
    name, text = source
    inputs = None
    if args.inputs:
        try:
            inputs = _load_inputs(args.inputs)
        except RunError as e:
            stderr.write(f"{PROG}: error: {e.message}\n")
            return 2
    from qcomp.registry import make_context

    if args.backend != "numpy" or args.device != "cpu":
        from qcomp.backends import xla

        try:
            if args.backend != "xla":
                raise RunError(f"--device {args.device} needs --backend xla")
            xla.get_device(args.device)
        except RunError as e:
            stderr.write(f"{PROG}: error: {e.message}\n")
            return 2
    passed = failed = 0
    error = False
    outputs: list[np.ndarray] = []
    output_types: list = []
    functions_run = 0
    for chunk in split_chunks(text, args.split_input_file):
        if not chunk.strip():
            continue
        source = SourceFile(name, chunk)
        parser = QcompParser(make_context(), chunk, name)
        try:
            module = parser.parse_module()
        except Exception as e:  # noqa: BLE001 - parse errors become diagnostics
            from xdsl.utils.exceptions import ParseError

            if isinstance(e, ParseError):
                stderr.write(render(source, Diagnostic("error", e.msg, e.span.start)))
            else:
                msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                stderr.write(render(source, Diagnostic("error", msg, parser._current_token.span.start)))
            error = True
            continue
        positions = parser.op_positions
        diag = verify_module(module, positions)
        if diag is not None:
            stderr.write(render(source, diag))
            error = True
            continue
        try:
            funcs = entry_functions(module, args.entry)
        except RunError as e:
            stderr.write(f"{PROG}: error: {e.message}\n")
            error = True
            continue
        for f in funcs:
            fname = f.sym_name.data
            try:
                f_inputs = _inputs_for(f, inputs)
            except RunError as e:
                stderr.write(render(source, Diagnostic("error", e.message, op_offset(f, positions))))
                error = True
                failed += 1
                continue
            if args.backend == "xla":
                (xf,) = xla.compiled(module, args.semantics, fname, args.device)
                r = xf.run(f_inputs)
            else:
                r = run_function(module, f, f_inputs, args.semantics, args.max_memory)
            functions_run += 1
            for c in r.checks:
                if c.passed:
                    passed += 1
                else:
                    failed += 1
                    stderr.write(_format_check_failure(source, c, positions, fname))
            if r.error is not None:
                loc = op_offset(r.error.op, positions)
                stderr.write(render(source, Diagnostic("error", r.error.message, loc)))
                error = True
                failed += 1
                continue
            if args.print_results:
                for i, (v, t) in enumerate(zip(r.results, r.result_types)):
                    _print_result(stdout, fname, i, v, t)
            outputs, output_types = r.results, r.result_types
    if args.output and not error:
        if functions_run != 1:
            stderr.write(f"{PROG}: error: --output needs exactly one entry function, "
                         f"{functions_run} ran\n")
            error = True
        else:
            try:
                np.savez(args.output, **{f"result{i}": np.asarray(v) for i, v in enumerate(outputs)})
            except OSError as e:
                stderr.write(f"{PROG}: error: cannot write '{args.output}': {e.strerror}\n")
                error = True
    stdout.write(f"{passed} passed, {failed} failed\n")
    if error:
        return 2
    return 1 if failed else 0


def _inputs_for(f, inputs: dict[str, np.ndarray] | None) -> list[np.ndarray]:
    from qcomp.interpreter import RunError

    n = len(f.function_type.inputs.data)
    if n == 0:
        return []
    if inputs is None:
        raise RunError(f"@{f.sym_name.data} takes {n} argument(s): pass them with --inputs IN.npz")
    missing = [f"arg{i}" for i in range(n) if f"arg{i}" not in inputs]
    if missing:
        raise RunError(f"--inputs has no array named {', '.join(missing)} for @{f.sym_name.data}")
    return [inputs[f"arg{i}"] for i in range(n)]


def main(argv: list[str] | None = None, stdin: TextIO | None = None,
         stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Entry point of the `qcomp-run` console script; returns the exit code."""
    return guarded_main(PROG, run_tool, argv, stdin, stdout, stderr)


if __name__ == "__main__":
    sys.exit(main())
