"""qcomp-opt: parse, verify, transform and print MLIR text with qcomp's dialects and
passes, taking mlir-opt's options so that upstream RUN lines work with the tool
name changed:

    qcomp-opt x.mlir --stablehlo-legalize-quant-to-math -split-input-file -verify-diagnostics

Exit codes (qcomp-run's too): 0 success; 1 a diagnostic about the input (it does not
parse or verify, a pass fails on it, --verify-diagnostics or --verify-numerics finds a
difference, the file cannot be read); 2 a bad command line (unknown pass or option, bad
option value) or an internal error. `QCOMP_DEBUG=1` shows tracebacks.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, MultipleSpansParseError, ParseError
from xdsl.utils.mlir_lexer import MLIRTokenKind

from qcomp.ir import QcompParser, print_module
from qcomp.passes.utils.diagnostics import Remarks
from qcomp.tools.cli import (
    SPLIT_MARKER,
    ArgParser,
    InternalError,
    UsageError,
    guarded_main,
    op_offset,
    parse_command_line,
    parser_message,
    read_input,
    split_chunks,
)
from qcomp.tools.diagnostics import (
    Diagnostic,
    SourceFile,
    check_expected,
    collect_expected,
    render,
)
from qcomp.tools.output_file import write_output
from qcomp.tools.pipeline import (
    list_passes,
    normalize_argv,
    passes_help,
    split_pipeline_args,
    tool_version,
)
from qcomp.tools.verify import verify_module

if TYPE_CHECKING:  # xDSL's pass machinery loads with the first pass
    from xdsl.passes import ModulePass

PROG = "qcomp-opt"

def _bool_flag(text: str) -> bool:
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"'{text}' is not a boolean")


@functools.cache  # built once a process (~0.8 ms); parsing does not change it
def _arg_parser() -> ArgParser:
    p = ArgParser(prog=PROG, add_help=False,
                   usage=f"{PROG} [options] [FILE|-] [--<pass-name>[='opt=value ...']]",
                   description="Parse, verify, transform and print MLIR with qcomp's "
                               "dialects (quant, stablehlo, chlo, tosa, onnx, ...) and passes; "
                               "an .onnx or .tflite model is imported first. MLIR's "
                               "single-dash spellings are accepted.",
                   epilog=EXIT_CODES)
    p.add_argument("input", nargs="?", default="-",
                   help="input: MLIR text, an .onnx or a .tflite model (default: stdin)")
    p.add_argument("-o", dest="output", metavar="FILE",
                   help="output file, written only when the whole run succeeds")
    p.add_argument("-p", "--pass-pipeline", "--passes", dest="_pipeline", metavar="PIPELINE",
                   help="passes to run: 'a,b{opt=v}' or 'builtin.module(a,b{opt=v})'")
    p.add_argument("--split-input-file", action="store_true",
                   help=f"process each '{SPLIT_MARKER}'-separated chunk on its own")
    p.add_argument("--verify-diagnostics", action="store_true",
                   help="check diagnostics against '// expected-error @+1 {{...}}' comments")
    p.add_argument("--print-op-generic", "--mlir-print-op-generic", action="store_true",
                   help="print operations in the generic form")
    p.add_argument("--keep-ssa-names", action="store_true",
                   help="print values with the input's names (uniqued as %%x, %%x_1, ...) "
                        "instead of mlir-opt's %%arg0, %%0, %%cst, %%c")
    p.add_argument("--allow-unregistered-dialect", action="store_true",
                   help="accept operations of unknown dialects")
    p.add_argument("--print-ir-after-all", "--mlir-print-ir-after-all", action="store_true",
                   help="print the IR to stderr after every pass")
    p.add_argument("--print-ir-after-change", "--mlir-print-ir-after-change",
                   action="store_true", help="print the IR to stderr after passes that "
                   "changed it")
    p.add_argument("--mlir-print-elementsattrs-with-hex-if-larger", type=int, default=100,
                   dest="hex_limit", metavar="N",
                   help="print non-splat constants with more than N elements as hex "
                        "(default 100 as in MLIR; -1: never)")
    p.add_argument("--verify-numerics", nargs="?", const=16, default=0, type=int, metavar="N",
                   help="translation validation: run the interpreter on the input and after "
                        "every pass on N random inputs per function (default 16) and fail "
                        "naming the first pass that changed the results")
    p.add_argument("--backend", choices=("numpy", "xla"), default="numpy",
                   help="what --verify-numerics runs the programs on: qcomp's interpreter "
                        "(default) or XLA (the program lowered for each semantics; also "
                        "compares the interpreter with XLA on that lowered program)")
    p.add_argument("--timing", "--mlir-timing", action="store_true",
                   help="print a per-pass wall-time report to stderr")
    p.add_argument("--verify-each", nargs="?", const=True, default=True, type=_bool_flag,
                   help="verify the IR after every pass (default: on)")
    p.add_argument("--no-verify-each", dest="verify_each", action="store_false",
                   help="do not verify after every pass")
    compat = p.add_argument_group("accepted for mlir-opt compatibility, no effect "
                                  "(qcomp keeps no locations and runs on one thread)")
    compat.add_argument("--mlir-disable-threading", action="store_true")
    compat.add_argument("--mlir-print-local-scope", action="store_true")
    compat.add_argument("--strip-debuginfo", action="store_true")
    compat.add_argument("--debug-only", metavar="NAME")
    p.add_argument("-h", "--help", action="store_true",
                   help="show this help (options and every pass) and exit")
    p.add_argument("--list-passes", action="store_true",
                   help="list every pass, alias and pipeline, one a line, and exit")
    p.add_argument("--version", action="store_true", help="show qcomp's version and exit")
    return p


EXIT_CODES = ("exit codes: 0 success; 1 a diagnostic about the input (parse, verify, a pass "
              "failing, --verify-diagnostics or --verify-numerics finding a difference); 2 a "
              "bad command line or an internal error.")


def _usage_error(message: str, stderr: TextIO) -> int:
    stderr.write(f"{PROG}: error: {message}\n")
    return 2


@dataclass
class Timing:
    """Accumulated wall time per step, printed like `-mlir-timing`."""

    entries: dict[str, float] = field(default_factory=dict)

    def add(self, name: str, seconds: float) -> None:
        self.entries[name] = self.entries.get(name, 0.0) + seconds

    def report(self) -> str:
        total = sum(self.entries.values()) or 1e-12
        bar = "===" + "-" * 73 + "==="
        lines = [bar, " " * 25 + "... Execution time report ...", bar,
                 f"  Total Execution Time: {total:.4f} seconds", "",
                 "  ----Wall Time----  ----Name----"]
        for name, t in self.entries.items():
            lines.append(f"  {t:8.4f} ({100 * t / total:5.1f}%)  {name}")
        lines.append(f"  {total:8.4f} (100.0%)  Total")
        return "\n".join(lines) + "\n"


def _parse_error(e: ParseError, text: str, ctx) -> Diagnostic:
    """The diagnostic for a parse error, in MLIR's words and at MLIR's place where
    xDSL's differ."""
    m = re.match(r"values used but not defined: \[%([^,\]]+)", e.msg)
    if m is not None:
        # xDSL reports this at the end of the input; MLIR at the first use
        use = re.search(r"%" + re.escape(m.group(1)) + r"(?![\w$.-])", text)
        if use is not None:
            return Diagnostic("error", f"use of undeclared SSA value name (%{m.group(1)})",
                              use.start())
    m = re.fullmatch(r"Operation (\S+) is not registered", e.msg)
    if m is not None:
        # xDSL points after the name; MLIR at it, with words for each form
        name = m.group(1)
        generic = text.rfind(f'"{name}"', 0, e.span.start + 1)
        custom = text.rfind(name, 0, e.span.start + 1)
        dialect = name.split(".")[0]
        known = dialect in ctx.registered_dialect_names
        if generic >= 0 and generic + 1 == custom:
            msg = (f"unregistered operation '{name}' found in dialect ('{dialect}') that does "
                   "not allow unknown operations" if known else
                   "operation being parsed with an unregistered dialect. If this is intended, "
                   "please use -allow-unregistered-dialect with the MLIR tool used")
            return Diagnostic("error", msg, generic)
        if custom >= 0:
            msg = (f"custom op '{name}' is unknown" if known
                   else f"Dialect `{dialect}' not found for custom op '{name}' ")
            return Diagnostic("error", msg, custom)
    m = re.fullmatch(r"SSA value %(\S+) is already defined", e.msg)
    if m is not None:
        return Diagnostic("error", f"redefinition of SSA value '%{m.group(1)}'", e.span.start)
    if e.msg == " in block definition":
        return Diagnostic("error", "expected operation name in quotes", e.span.start)
    diag = Diagnostic("error", e.msg, e.span.start)
    if isinstance(e, MultipleSpansParseError):
        for span, note in e.refs:
            diag.notes.append(Diagnostic("note", note or "", span.start))
    return diag


@dataclass
class Options:
    generic: bool
    allow_unregistered: bool
    verify_each: bool
    after_all: bool
    after_change: bool
    passes: list[ModulePass]
    hex_limit: int = 100
    verify_numerics: int = 0
    backend: str = "numpy"
    keep_ssa_names: bool = False

    def print(self, module: ModuleOp) -> str:
        return print_module(module, self.generic, self.hex_limit, self.keep_ssa_names)


def process_chunk(source: SourceFile, opts: Options, timing: Timing, err: TextIO
                  ) -> tuple[str | None, list[Diagnostic]]:
    """Parse, verify, run the passes and print one chunk: (output, diagnostics)."""
    from qcomp.registry import make_context

    text, name = source.text, source.name
    ctx = make_context(allow_unregistered=opts.allow_unregistered)
    _load_test_dialect(ctx)
    parser = None
    t0 = time.perf_counter()
    try:
        # inside the try: xDSL's parser lexes the first token when it is made
        parser = QcompParser(ctx, text, name)
        if parser._current_token.kind == MLIRTokenKind.EOF:
            module = ModuleOp([])  # like mlir-opt: nothing (or only comments) is an empty module
        else:
            module = parser.parse_module()
    except ParseError as e:
        return None, [_parse_error(e, text, ctx)]
    except Exception as e:  # noqa: BLE001 - a dialect's parser rejecting bad input
        if os.environ.get("QCOMP_DEBUG") == "1":
            traceback.print_exc(file=err)
        return None, [Diagnostic("error", parser_message(e), parser._current_token.span.start if parser else 0)]
    finally:
        timing.add("Parser", time.perf_counter() - t0)
    positions = parser.op_positions
    source.note_origins(positions)
    t0 = time.perf_counter()
    diag = verify_module(module, positions)
    timing.add("Verifier", time.perf_counter() - t0)
    if diag is not None:
        return None, [diag]
    validator = None
    warnings: list[Diagnostic] = []
    if opts.verify_numerics > 0 and opts.passes:
        from qcomp.tools.verify_numerics import CannotVerify, NumericsValidator, XlaCannotRun

        t0 = time.perf_counter()
        try:
            validator = NumericsValidator(module, opts.verify_numerics, backend=opts.backend)
        except CannotVerify as e:
            return None, [Diagnostic("error", f"--verify-numerics: {e}",
                                     op_offset(e.op, positions))]
        except XlaCannotRun as e:
            hint = "" if "--backend numpy" in str(e) else "; use --backend numpy"
            return None, [Diagnostic("error", f"--verify-numerics --backend xla: the input: {e}{hint}",
                                     None)]
        timing.add("VerifyNumerics", time.perf_counter() - t0)
        if validator.lowered_problem is not None:
            return None, [Diagnostic("error", f"--verify-numerics: the input: "
                                              f"{validator.lowered_problem}", None)]
        warnings = [Diagnostic("warning", f"--verify-numerics: @{f.sym_name.data} does not run "
                               f"in the interpreter before the passes ({why}); its numerics "
                               "are not checked", op_offset(f, positions))
                    for f, why in validator.unchecked()]
    remarks = Remarks()
    for p in opts.passes:
        before = opts.print(module) if opts.after_change else None
        t0 = time.perf_counter()
        try:
            with remarks.collecting():
                p.apply(ctx, module)
        except DiagnosticException as e:
            items = getattr(e, "items", None)  # PassDiagnostics: every error a check found
            if items:
                return None, [Diagnostic("error", m, op_offset(o, positions)) for o, m in items]
            op = getattr(e, "op", None)
            message = getattr(e, "message", None) or str(e).strip()
            return None, [Diagnostic("error", message, op_offset(op, positions))]
        except Exception as e:
            line = SourceFile(name, text).line_col(len(text) - len(text.lstrip("\n")))[0]
            raise InternalError(f"{type(e).__name__}: {e} (in pass '{p.name}' on the input "
                                f"starting at {name}:{line})") from e
        finally:
            timing.add(type(p).__name__, time.perf_counter() - t0)
        warnings += [Diagnostic("remark", message, op_offset(op, positions))
                     for op, message in remarks.take()]
        if opts.verify_each:
            t0 = time.perf_counter()
            diag = verify_module(module, positions)
            timing.add("Verifier", time.perf_counter() - t0)
            if diag is not None:
                diag.message = f"{diag.message} (after pass '{p.name}')"
                return None, [diag]
        if validator is not None:
            t0 = time.perf_counter()
            problem = validator.after_pass(p, module)
            timing.add("VerifyNumerics", time.perf_counter() - t0)
            if problem is not None:
                return None, [Diagnostic("error", problem,
                                         op_offset(validator.problem_op, positions))]
        if opts.after_all or opts.after_change:
            after = opts.print(module)
            if opts.after_all or after != before:
                err.write(f"// -----// IR Dump After {type(p).__name__} ({p.name}) "
                          f"//----- //\n{after}\n")
    t0 = time.perf_counter()
    out = opts.print(module)
    timing.add("Output", time.perf_counter() - t0)
    return out, warnings


def _load_test_dialect(ctx) -> None:
    """xDSL's `test` dialect (`"test.op"`), registered like mlir-opt's test dialect
    (imported when an input first uses it)."""
    from qcomp.ir.parser import ALLOWS_UNKNOWN_OPERATIONS

    if "test" not in ctx.registered_dialect_names:
        ctx.register_dialect("test", _test_dialect)
    ALLOWS_UNKNOWN_OPERATIONS.add("test")  # mlir-opt's test dialect allows unknown ops


def _test_dialect():
    from xdsl.dialects.test import Test

    return Test


def run(argv: list[str], stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    from qcomp.pipeline import PipelineError, all_names, build_passes

    argv = normalize_argv(argv)
    try:
        argv, specs = split_pipeline_args(argv)
        args = parse_command_line(_arg_parser(), argv, PROG, all_names())
    except (UsageError, PipelineError) as e:
        return _usage_error(str(e), stderr)
    if args.help:
        stdout.write(_arg_parser().format_help() + "\n" + passes_help() + "\n")
        return 0
    if args.version:
        stdout.write(f"{PROG} (qcomp) {tool_version()}\n")
        return 0
    if args.list_passes:
        stdout.write(list_passes() + "\n")
        return 0
    try:
        passes = build_passes(specs)
    except PipelineError as e:
        return _usage_error(str(e), stderr)
    if args.backend == "xla":
        from qcomp.backends import xla
        from qcomp.interpreter import RunError

        try:
            xla.load_jax()
        except RunError as e:
            stderr.write(f"{PROG}: error: {e.message}\n")
            return 1
    source = read_input(PROG, args.input, stdin, stderr)
    if source is None:
        return 1
    name, text, imported = source
    opts = Options(args.print_op_generic, args.allow_unregistered_dialect, args.verify_each,
                   args.print_ir_after_all, args.print_ir_after_change, passes,
                   args.hex_limit, args.verify_numerics, args.backend, args.keep_ssa_names)
    timing = Timing()
    outputs: list[str] = []
    failed = False
    for chunk in split_chunks(text, args.split_input_file):
        source = SourceFile(name, chunk, imported)
        out, diags = process_chunk(source, opts, timing, stderr)
        outputs.append(out + "\n" if out else "")  # mlir-opt: a blank line after each module
        if args.verify_diagnostics:
            problems = check_expected(source, collect_expected(source), diags)
            for d in problems:
                stderr.write(render(source, d))
            failed |= bool(problems)
        else:
            for d in diags:
                stderr.write(render(source, d))
            failed |= any(d.severity == "error" for d in diags)
    if args.timing:
        stderr.write(timing.report())
    result = (SPLIT_MARKER + "\n").join(outputs)
    if args.output and args.output != "-":
        if not failed:
            try:
                write_output(args.output, result)
            except OSError as e:
                stderr.write(f"{PROG}: error: cannot write output file '{args.output}': "
                             f"{e.strerror}\n")
                return 1
    elif result.strip():
        # like mlir-opt: the chunks that succeeded are printed even when others failed
        stdout.write(result)
    return 1 if failed else 0


def main(argv: list[str] | None = None, stdin: TextIO | None = None,
         stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Entry point of the `qcomp-opt` console script; returns the exit code."""
    return guarded_main(PROG, run, argv, stdin, stdout, stderr)


if __name__ == "__main__":
    sys.exit(main())
