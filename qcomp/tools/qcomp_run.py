"""qcomp-run: run StableHLO programs (quantized or not), or an .onnx / .tflite model
imported as one, on NumPy (qcomp's interpreter), XLA or IREE, and report their checks.

    qcomp-run FILE [--split-input-file] [--entry NAME]
              [--input SHAPExTYPE=VALUES|@file.npy|@file.npz]... [--inputs IN.npz [--samples]]
              [--args "[dense<...> : tensor<...>, ...]"]
              [--output OUT.npz] [--semantics spec|stablehlo|litert] [--print-results]
              [--compare-lowered] [--print-lowered] [--max-memory SIZE]
              [--backend numpy|xla|iree] [--device cpu|gpu]
              [--interpret] [--interpreter-print-dense] [--probe-output-dir DIR]

Runs `@main` (or `--entry`), or, where there is none, every function without
arguments. The entry's arguments come from `--input` (iree-run-module's spelling,
`qcomp.tools.run_inputs`) or `--inputs IN.npz`; the results of a function that takes
arguments are printed as `SHAPExTYPE=[...]` (all results with `--print-results`).
`--interpret` prints every result as `stablehlo-translate --interpret` does
(`--interpreter-print-dense`: as dense attributes); `interpreter.print` output goes to
stdout before the results; `--probe-output-dir` writes probes as upstream does.
`--compare-lowered` also runs the program lowered by `stablehlo-lower-quant` and says
whether both agree bit for bit; `--print-lowered` prints that lowered program
(`qcomp.tools.run_lowered`). Each failing check is reported at its location with the
mismatching elements; when the program has checks, the last line is
`N passed, M failed` (checks, plus functions stopped by an error). Exit codes
(qcomp-opt's too): 0 all checks passed (and the lowered program agreed); 1 a
diagnostic about the input: a check failed, the lowered program's results differ, the
program or an input value is wrong or cannot be read, or the backend cannot run it;
2 a bad command line or an internal error (a diagnostic, never a traceback).
"""

from __future__ import annotations

import argparse
import functools
import io as io_module
import re
import sys
from typing import TextIO

import numpy as np

from qcomp.tools.cli import (
    ArgParser,
    UsageError,
    guarded_main,
    op_offset,
    parse_command_line,
    parser_message,
    read_input,
    split_chunks,
)
from qcomp.tools.output_file import refuse_inputs, write_output

PROG = "qcomp-run"
DEFAULT_MAX_MEMORY = 4 << 30

EPILOG = """\
inputs (one --input per argument of the entry function, in order):
  --input=2x2xf32=1,2,3,4       SHAPExTYPE=VALUES (commas or spaces; brackets ignored,
  --input='2x2xf32=[1 2][3 4]'    so a printed result reads back); one value fills the
  --input=f32=1.5                 tensor; a scalar has no shape; quantized arguments take
  --input=4xi8=1,2,3,4            storage integers (the storage type or the quant type)
  --input=@x.npy                one array
  --input=@x.npz                every array of the file (arg0, arg1, ... by number)
  A value that does not fit its argument is an error naming the argument.

results (printed when the entry takes arguments, or with --print-results):
  @main result[0]: 2x2xf32=[[1 2][3 4]]
  quantized results are their storage integers with their quantized type:
  @main result[0]: 4x!quant.uniform<i8:f32, 5.000000e-01:-3>=[1 2 3 4]
  more than 1024 elements end in '...'; --output writes them all.

lowering:
  --compare-lowered and --print-lowered lower the program with the
  stablehlo-lower-quant pipeline in the mode matching --semantics (spec:
  rescale=float, the spec's formulas; stablehlo: rescale=stablehlo, upstream's
  lowering, which upstream's reference interpreter runs). --compare-lowered runs
  both programs on the same inputs and prints their results side by side; it exits
  1 when they differ. --print-lowered prints the lowered program (to stdout, before
  the results) with a comment line saying whether qcomp-run ran it: without
  --compare-lowered qcomp-run runs the quantized program only (--semantics stablehlo
  computes it as the lowered program does).

exit codes (as qcomp-opt's):
  0  every check passed (and the lowered program agreed)
  1  a diagnostic about the input: a failed check, lowered results that differ, a
     program or input value that is wrong or unreadable, a backend that cannot run it
  2  a bad command line, or an internal error
"""


def parse_size(text: str) -> int:
    """'4G', '512MiB', '1000000' -> bytes (K/M/G/T are powers of 1024)."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", text)
    if m is None:
        raise argparse.ArgumentTypeError(f"'{text}' is not a size (e.g. 512M, 4G)")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2).lower()]
    return int(float(m.group(1)) * scale)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive integer")
    return int(text)


@functools.cache  # built once a process (~0.8 ms); parsing does not change it
def _arg_parser() -> ArgParser:
    p = ArgParser(prog=PROG, description="Run a StableHLO program (MLIR text, quantized or "
                  "not) or an .onnx / .tflite model\non NumPy (qcomp's interpreter, the "
                  "default) or XLA, and report its results and checks.",
                  epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
                  add_help=False)
    p.add_argument("input", nargs="?",
                   help="the program: an .mlir file, an .onnx or a .tflite model ('-': stdin)")
    p.add_argument("-h", "--help", action="store_true", help="show this help and exit")
    p.add_argument("--version", action="store_true", help="show qcomp's version and exit")
    p.add_argument("--split-input-file", action="store_true",
                   help="run each '// -----'-separated chunk on its own")
    p.add_argument("--entry", metavar="NAME", help="function to run (default: @main, else "
                   "every function without arguments)")
    p.add_argument("--input", dest="input_values", action="append", default=[],
                   metavar="SHAPExTYPE=VALUES|@FILE",
                   help="the next argument of the entry function (repeat, in order; see below)")
    p.add_argument("--inputs", metavar="IN.npz", help="arrays arg0, arg1, ... for the entry's arguments")
    p.add_argument("--samples", action="store_true",
                   help="--inputs holds a dataset: each array's leading dimension numbers the "
                        "samples; the program is prepared once and run on each (on xla up "
                        "to 64 samples a call, through the program rebatched by "
                        "set-batch-size where it allows), the results stacked the same way "
                        "(--output writes them)")
    p.add_argument("--args", metavar="[dense<...> : T, ...]",
                   help="the entry's arguments as an MLIR array of dense attributes "
                        "(stablehlo-translate --interpret --args)")
    p.add_argument("--output", metavar="OUT.npz", help="write the results as result0, result1, ... "
                   "(quantized results as their storage integers; a bf16 / f8 / f4 / i4 result "
                   "NumPy has no dtype for as its raw bits, uint8 or uint16, with its ml_dtypes "
                   "name in resultN_dtype: np.load(f)['result0'].view(ml_dtypes.bfloat16)) "
                   "in a NumPy .npz archive named "
                   "exactly OUT.npz (no suffix is added), replaced whole or not at all; never "
                   "one of the run's input files; a hard-linked file is rewritten in place")
    p.add_argument("--semantics", choices=("spec", "stablehlo", "litert"), default=None,
                   help="meaning of quantized ops: the StableHLO spec (default), upstream's "
                        "reference interpreter, bit for bit, or LiteRT's reference kernels "
                        "(the program lowered by stablehlo-lower-quant{rescale=fixed-point}"
                        ", run; the default for a .tflite model)")
    p.add_argument("--print-results", action="store_true",
                   help="print every result (default: only of an entry that takes arguments)")
    p.add_argument("--compare-lowered", action="store_true",
                   help="also run the program lowered by stablehlo-lower-quant on the same "
                        "inputs; print both results and whether they agree bit for bit")
    p.add_argument("--print-lowered", action="store_true",
                   help="print the program lowered by stablehlo-lower-quant (see below)")
    p.add_argument("--backend", choices=("numpy", "xla", "iree"), default="numpy",
                   help="numpy: qcomp's interpreter (default); xla: the program lowered for "
                        "--semantics, compiled by XLA through jaxlib (pip install 'qcomp[xla]'); "
                        "iree: the same program compiled by IREE for this CPU, cached on disk "
                        "(pip install 'qcomp[iree]')")
    p.add_argument("--device", default="cpu", metavar="DEVICE",
                   help="PJRT device for --backend xla: cpu (default), gpu, gpu:N")
    p.add_argument("--num-replicas", type=_positive, default=1, metavar="N",
                   help="run the entry as every process of an N x M grid (replicas), for "
                        "the collective ops (default 1)")
    p.add_argument("--num-partitions", type=_positive, default=1, metavar="M",
                   help="partitions of that grid (default 1)")
    p.add_argument("--interpret", action="store_true",
                   help="print every result of the entry as stablehlo-translate --interpret "
                        "does (tensor<2xi32> {\\n  [1, 2]\\n})")
    p.add_argument("--interpreter-print-dense", action="store_true",
                   help="with --interpret's output: results as dense attributes "
                        "(dense<[1, 2]> : tensor<2xi32>), as stablehlo-translate does")
    p.add_argument("--probe-output-dir", metavar="DIR",
                   help="write each interpreter.probe value to DIR/probeN.npy and index it "
                        "in DIR/index.csv, as stablehlo-translate does")
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


class _Streams:
    """stdout and stderr, each flushed before the other is written, so that a terminal
    or a `2>&1` pipe shows messages in the order the run produced them."""

    def __init__(self, stdout: TextIO, stderr: TextIO):
        self.stdout, self.stderr = stdout, stderr

    def out(self, text: str) -> None:
        self.stderr.flush()
        self.stdout.write(text)

    def err(self, text: str) -> None:
        self.stdout.flush()
        self.stderr.write(text)


def has_checks(module) -> bool:
    """Whether the module has checks (`check.*` ops, `custom_call` to a check target)."""
    from qcomp.interpreter.checks import is_check

    return any(is_check(op) for op in module.walk())


class _Runner:
    """One qcomp-run invocation: runs chunk after chunk and keeps the tallies."""

    def __init__(self, args, io: _Streams, given, npz):
        self.args, self.io = args, io
        self.given, self.npz = given, npz
        self.passed = self.failed = 0
        self.error = self.differ = self.checks = False
        self.outputs: list[np.ndarray] = []
        self.functions_run = 0
        # litert: the program is lowered (no quantized types left) and run as it is
        self.run_semantics = "spec" if args.semantics == "litert" else args.semantics

    def diagnose(self, source, message: str, offset) -> None:
        from qcomp.tools.diagnostics import Diagnostic, render

        self.io.err(render(source, Diagnostic("error", message, offset)))
        self.error = True

    def run_chunk(self, name: str, chunk: str, imported: bool = False) -> None:
        from xdsl.utils.exceptions import ParseError
        from xdsl.utils.mlir_lexer import MLIRTokenKind

        from qcomp.interpreter import RunError, entry_functions, run_function
        from qcomp.ir import QcompParser
        from qcomp.registry import make_context
        from qcomp.tools.diagnostics import SourceFile
        from qcomp.tools.run_inputs import InputError
        from qcomp.tools.verify import verify_module

        source = SourceFile(name, chunk, imported)
        parser = None
        try:
            # inside the try: xDSL's parser lexes the first token when it is made
            parser = QcompParser(make_context(), chunk, name)
            if parser._current_token.kind == MLIRTokenKind.EOF:
                return  # only comments: an empty module, nothing to run (as upstream)
            module = parser.parse_module()
        except ParseError as e:
            return self.diagnose(source, e.msg, e.span.start)
        except Exception as e:  # noqa: BLE001 - a dialect's parser rejecting bad input
            return self.diagnose(source, parser_message(e), parser._current_token.span.start if parser else 0)
        positions = parser.op_positions
        source.note_origins(positions)
        diag = verify_module(module, positions)
        if diag is None and self.args.semantics == "litert":
            from qcomp.tools.run_lowered import lower_in_place

            diag = lower_in_place(parser.ctx, module, "litert", positions, verify_module)
        if diag is not None:
            return self.diagnose(source, diag.message, diag.offset)
        self.checks |= has_checks(module)
        try:
            funcs = entry_functions(module, self.args.entry)
        except RunError as e:
            self.io.err(f"{PROG}: error: {e.message}\n")
            self.error = True
            return
        from qcomp.interpreter.run_output import RunOutput

        output = RunOutput(probe_dir=self.args.probe_output_dir)
        try:
            output.start()
        except RunError as e:
            self.io.err(f"{PROG}: error: {e.message}\n")
            self.error = True
            return
        runs = []
        for f in funcs:
            try:
                f_inputs = self.inputs_for(f) if not self.args.samples else []
            except InputError as e:
                self.io.err(f"{PROG}: error: {e}\n")
                self.error = True
                self.failed += 1
                continue
            except RunError as e:
                self.diagnose(source, e.message, op_offset(f, positions))
                self.failed += 1
                continue
            if self.args.samples:
                from qcomp.tools.run_samples import run_samples

                a = self.args
                try:
                    r = run_samples(module, f, self.npz, a.backend, self.run_semantics,
                                    a.max_memory, a.device)
                except InputError as e:
                    self.io.err(f"{PROG}: error: {e}\n")
                    self.error = True
                    self.failed += 1
                    continue
            elif self.args.backend == "xla":
                from qcomp.backends import xla

                (xf,) = xla.compiled(module, self.run_semantics, f.sym_name.data,
                                     self.args.device)
                r = xf.run(f_inputs)
            elif self.args.backend == "iree":
                from qcomp.backends.compiled import cached

                (r,) = cached(module, "iree", self.run_semantics, f.sym_name.data).run(f_inputs)
            elif self.args.num_replicas * self.args.num_partitions > 1:
                self.run_grid(source, positions, module, f, f_inputs, output)
                continue
            else:
                r = run_function(module, f, f_inputs, self.run_semantics,
                                 self.args.max_memory, output=output)
                self.flush_printed(output)
            self.functions_run += 1
            if self.report(source, positions, r):
                runs.append((f, f_inputs, r))
        lowered = False
        if self.args.compare_lowered or self.args.print_lowered:
            lowered = self.lower(source, parser.ctx, module, positions)
        for f, f_inputs, r in runs:
            if self.args.compare_lowered and lowered:
                self.compare(source, positions, module, f, f_inputs, r)
            elif self.args.interpret or self.args.interpreter_print_dense:
                self.print_interpreted(r.results, r.result_types)
            elif self.args.samples:
                self.io.out(f"@{f.sym_name.data}: {len(r.results[0]) if r.results else 0} "
                            f"samples\n")
            elif self.args.print_results or f.function_type.inputs.data:
                self.print_results(f.sym_name.data, r.results, r.result_types)
            self.outputs = r.results

    def flush_printed(self, output) -> None:
        """What `interpreter.print` wrote since the last flush, to stdout."""
        with output._lock:  # noqa: SLF001
            text, output.printed[:] = "".join(output.printed), []
        if text:
            self.io.out(text)

    def print_interpreted(self, results, types) -> None:
        """Results as `stablehlo-translate --interpret [--interpreter-print-dense]`."""
        from qcomp.interpreter.tensor_text import dense_text, value_text

        for v, t in zip(results, types):
            dense = self.args.interpreter_print_dense and isinstance(v, np.ndarray)
            self.io.out((dense_text(v, t) if dense else value_text(v, t)) + "\n")

    def run_grid(self, source, positions, module, f, f_inputs, output=None) -> None:
        """`f` run by every process of the --num-replicas x --num-partitions grid."""
        from qcomp.interpreter import RunError, run_on_grid

        a = self.args
        try:
            runs = run_on_grid(module, f, f_inputs, a.num_replicas, a.num_partitions,
                               self.run_semantics, a.max_memory, output)
        except RunError as e:
            self.diagnose(source, e.message, op_offset(e.op, positions))
            self.failed += 1
            return
        if output is not None:
            self.flush_printed(output)
        self.functions_run += 1
        for k, r in enumerate(runs):
            where = f" (replica {k // a.num_partitions}, partition {k % a.num_partitions})"
            if self.report(source, positions, r, where) and (
                    a.print_results or f.function_type.inputs.data):
                self.print_results(f.sym_name.data + where, r.results, r.result_types)
            self.outputs = r.results

    def inputs_for(self, f) -> list[np.ndarray]:
        from qcomp.interpreter import RunError
        from qcomp.tools.run_inputs import bind_inputs, bind_named, inputs_needed

        if self.given is not None:
            return bind_inputs(f, self.given)
        if not f.function_type.inputs.data:
            return []
        if self.npz is None:
            raise RunError(inputs_needed(f))
        return bind_named(f, self.npz)

    def report(self, source, positions, r, program: str = "") -> bool:
        """Report a run's checks and error; whether it ran to the end."""
        for c in r.checks:
            if c.passed:
                self.passed += 1
            else:
                self.failed += 1
                self.io.err(_format_check_failure(source, c, positions, r.name + program))
        if r.error is not None:
            where = ("in the lowered program: " if program == " (lowered)"
                     else f"{program.strip()}: " if program else "")
            self.diagnose(source, where + r.error.message, op_offset(r.error.op, positions))
            self.failed += 1
            return False
        return True

    def lower(self, source, ctx, module, positions) -> bool:
        """Lower `module` in place (after the quantized runs); print it if asked."""
        from qcomp.ir import print_module
        from qcomp.tools.run_lowered import lower_in_place, lowered_header
        from qcomp.tools.verify import verify_module

        diag = lower_in_place(ctx, module, self.args.semantics, positions, verify_module)
        if diag is not None:
            self.diagnose(source, diag.message, diag.offset)
            return False
        if self.args.print_lowered:
            self.io.out(lowered_header(self.args.semantics, self.args.compare_lowered)
                        + print_module(module))
        return True

    def compare(self, source, positions, module, f, f_inputs, r) -> None:
        from qcomp.interpreter import run_function
        from qcomp.tools.run_inputs import format_value
        from qcomp.tools.run_lowered import first_difference

        name = f.sym_name.data
        lf = next((op for op in module.walk()
                   if op.name == "func.func" and op.sym_name.data == name), None)
        if lf is None:
            return self.diagnose(source, f"the lowered program has no @{name}", None)
        lr = run_function(module, lf, f_inputs, self.args.semantics, self.args.max_memory)
        if not self.report(source, positions, lr, " (lowered)"):
            return
        for i, (v, t, lv, lt) in enumerate(zip(r.results, r.result_types,
                                               lr.results, lr.result_types)):
            self.io.out(f"@{name} result[{i}] quantized: {format_value(v, t)}\n"
                        f"@{name} result[{i}] lowered:   {format_value(lv, lt)}\n")
        diff = first_difference(r.results, lr.results)
        if diff is not None:
            self.differ = True
            self.io.out(f"@{name}: quantized and lowered results differ: {diff}\n")
        elif r.results:
            self.io.out(f"@{name}: quantized and lowered results agree bit for bit\n")
        else:
            self.io.out(f"@{name}: no results to compare\n")

    def print_results(self, name: str, results, types) -> None:
        from qcomp.tools.run_inputs import format_value

        for i, (v, t) in enumerate(zip(results, types)):
            self.io.out(f"@{name} result[{i}]: {format_value(v, t)}\n")


def run_tool(argv: list[str], stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from qcomp.interpreter import RunError
    from qcomp.tools.run_inputs import InputError, read_archive, read_inputs

    io = _Streams(stdout, stderr)
    try:
        args = parse_command_line(_arg_parser(), argv, PROG)
        if args.help:
            io.out(_arg_parser().format_help())
            return 0
        if args.version:
            from qcomp.tools.pipeline import tool_version

            io.out(f"{PROG} (qcomp) {tool_version()}\n")
            return 0
        if args.input is None:
            raise UsageError("the following arguments are required: input")
        if sum(map(bool, (args.input_values, args.inputs, args.args is not None))) > 1:
            raise UsageError("give the arguments with one of --input, --inputs, --args")
        if args.samples and (not args.inputs or args.num_replicas * args.num_partitions > 1):
            raise UsageError("--samples needs --inputs IN.npz (and one process)")
    except UsageError as e:
        io.err(f"{PROG}: error: {e}\n")
        return 2
    if args.device != "cpu" and args.backend != "xla":
        io.err(f"{PROG}: error: --device {args.device} needs --backend xla\n")
        return 2
    if args.semantics is None:
        args.semantics = "litert" if args.input.endswith(".tflite") else "spec"
    if args.semantics == "litert" and (args.compare_lowered or args.print_lowered):
        io.err(f"{PROG}: error: --semantics litert runs the lowered program itself: "
               "--compare-lowered and --print-lowered take spec or stablehlo\n")
        return 2
    source = read_input(PROG, args.input, stdin, stderr)
    if source is None:
        return 1
    name, text, imported = source
    try:
        given = read_inputs(args.input_values, args.max_memory) if args.input_values else None
        if args.args is not None:
            from qcomp.tools.run_args import read_args

            given = read_args(args.args, args.max_memory)
        npz = read_archive(args.inputs, args.max_memory) if args.inputs else None
    except InputError as e:
        io.err(f"{PROG}: error: {e}\n")
        return 1
    except RunError as e:
        io.err(f"{PROG}: error: {e.message}\n")
        return 1
    if args.backend != "numpy":  # the engine is there (and the device, on XLA)
        from qcomp.backends import iree, xla

        try:
            xla.get_device(args.device) if args.backend == "xla" else iree.load_iree()
        except RunError as e:
            io.err(f"{PROG}: error: {e.message}\n")
            return 1
    if args.output:
        try:
            refuse_inputs(args.output, _input_files(args))
        except OSError as e:
            io.err(f"{PROG}: error: cannot write '{args.output}': {e.strerror}\n")
            return 2
    runner = _Runner(args, io, given, npz)
    for chunk in split_chunks(text, args.split_input_file):
        if chunk.strip():
            runner.run_chunk(name, chunk, imported)
    if args.output and not runner.error:
        _write_output(args.output, runner, io, _input_files(args))
    if runner.checks:
        io.out(f"{runner.passed} passed, {runner.failed} failed\n")
    stdout.flush()
    return 1 if runner.error or runner.failed or runner.differ else 0


def _input_files(args) -> list[str]:
    """The files the run reads: the program, `--input=@FILE`s and `--inputs`."""
    files = [args.input] if args.input != "-" else []
    files += [v[1:] for v in args.input_values if v.startswith("@")]
    return files + ([args.inputs] if args.inputs else [])


def _write_output(path: str, runner: _Runner, io: _Streams, inputs=()) -> None:
    if runner.functions_run != 1:
        io.err(f"{PROG}: error: --output needs exactly one entry function, "
               f"{runner.functions_run} ran\n")
        runner.error = True
        return
    if not all(isinstance(v, np.ndarray) for v in runner.outputs):
        io.err(f"{PROG}: error: --output writes tensors only; the entry returns a tuple or "
               "a token\n")
        runner.error = True
        return
    from qcomp.tools.npy_files import savable_arrays

    buffer = io_module.BytesIO()  # the whole archive first: nothing half-written on disk
    np.savez(buffer, **savable_arrays({f"result{i}": np.asarray(v)
                                       for i, v in enumerate(runner.outputs)}))
    try:
        write_output(path, buffer.getvalue(), inputs)
    except OSError as e:
        io.err(f"{PROG}: error: cannot write '{path}': {e.strerror}\n")
        runner.error = True


def main(argv: list[str] | None = None, stdin: TextIO | None = None,
         stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Entry point of the `qcomp-run` console script; returns the exit code."""
    return guarded_main(PROG, run_tool, argv, stdin, stdout, stderr)


if __name__ == "__main__":
    sys.exit(main())
