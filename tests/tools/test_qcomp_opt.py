"""qcomp-opt run in-process (and a few times as a program): exit codes, diagnostics,
`-o` atomicity, pipelines, help, and the xdsl-opt plugin."""

from __future__ import annotations

import io
import os
import subprocess
from dataclasses import dataclass

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from qcomp import registry
from qcomp.passes.utils.diagnostics import PassDiagnostic
from qcomp.pipeline import flatten_mlir_pipeline, summary
from qcomp.tools.pipeline import normalize_argv
from qcomp.tools.qcomp_opt import main

GOOD = """func.func @f(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""
BAD = GOOD.replace("-> tensor<2xf32> {", "-> tensor<3xf32> {")  # return type mismatch


def opt(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


# --- test passes, registered for the duration of a test -----------------------


@dataclass(frozen=True)
class RenameFuncs(ModulePass):
    """Append a suffix to every function name (test pass)."""

    name = "test-rename-funcs"
    suffix: str = "_x"

    def apply(self, ctx, op: ModuleOp) -> None:
        from xdsl.dialects.builtin import StringAttr
        from xdsl.dialects.func import FuncOp

        for f in op.walk():
            if isinstance(f, FuncOp):
                f.sym_name = StringAttr(f.sym_name.data + self.suffix)


@dataclass(frozen=True)
class RejectAdds(ModulePass):
    """Fail on the first stablehlo.add (test pass)."""

    name = "test-reject-adds"

    def apply(self, ctx, op: ModuleOp) -> None:
        for o in op.walk():
            if o.name == "stablehlo.add":
                raise PassDiagnostic(o, "adds are not welcome here")


@dataclass(frozen=True)
class Crash(ModulePass):
    """Raise an unexpected exception (test pass)."""

    name = "test-crash"

    def apply(self, ctx, op: ModuleOp) -> None:
        raise RuntimeError("boom")


@dataclass(frozen=True)
class BreakReturn(ModulePass):
    """Declare every function to return tensor<3xf32>: invalid IR (test pass)."""

    name = "test-break-return"

    def apply(self, ctx, op: ModuleOp) -> None:
        from xdsl.dialects.builtin import FunctionType, TensorType, f32
        from xdsl.dialects.func import FuncOp

        for f in op.walk():
            if isinstance(f, FuncOp):
                f.function_type = FunctionType.from_lists(f.function_type.inputs.data,
                                                          [TensorType(f32, [3])])


@pytest.fixture(autouse=True)
def test_passes(monkeypatch):
    passes = dict(registry.PASSES)
    for cls in (RenameFuncs, RejectAdds, Crash, BreakReturn):
        passes[cls.name] = lambda cls=cls: cls
    monkeypatch.setattr(registry, "PASSES", passes)


# --- basics -----------------------------------------------------------------


def test_round_trip_from_stdin_and_file(tmp_path):
    code, out, err = opt("-", stdin=GOOD)
    assert (code, err) == (0, "")
    assert "%0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>" in out
    f = tmp_path / "in.mlir"
    f.write_text(GOOD)
    assert opt(str(f))[1] == out


def test_missing_input_file():
    code, out, err = opt("/nonexistent/x.mlir")
    assert code == 1
    assert err == ("qcomp-opt: error: could not open input file '/nonexistent/x.mlir': "
                   "No such file or directory\n")


def test_parse_error_format_and_exit_code():
    src = GOOD.replace("%arg0, %arg0", "%arg0, %nope")
    code, out, err = opt("-", stdin=src)
    assert code == 1 and out == ""
    assert err == ("<stdin>:2:29: error: use of undeclared SSA value name (%nope)\n"
                   "  %0 = stablehlo.add %arg0, %nope : tensor<2xf32>\n"
                   "                            ^\n")


@pytest.mark.parametrize("src,expected", [
    ('"foo.bar"() : () -> ()\n',
     "<stdin>:1:1: error: operation being parsed with an unregistered dialect. If this is "
     "intended, please use -allow-unregistered-dialect with the MLIR tool used"),
    ('"stablehlo.nope"() : () -> ()\n',
     "<stdin>:1:1: error: unregistered operation 'stablehlo.nope' found in dialect "
     "('stablehlo') that does not allow unknown operations"),
    ("func.func @f() {\n  foo.bar\n  return\n}\n",
     "<stdin>:2:3: error: Dialect `foo' not found for custom op 'foo.bar' "),
    ("func.func @f() {\n  stablehlo.nope\n  return\n}\n",
     "<stdin>:2:3: error: custom op 'stablehlo.nope' is unknown"),
    ('func.func @f() {\n  %0 = "test.op"() : () -> i32\n  %0 = "test.op"() : () -> i32\n'
     "  return\n}\n", "<stdin>:3:3: error: redefinition of SSA value '%0'"),
    ("func.func @f() {\n  return\n", "error: expected operation name in quotes"),
])
def test_parse_errors_in_mlir_words(src, expected):
    code, _, err = opt("-", stdin=src)
    assert code == 1
    assert expected in err.splitlines()[0]


def test_split_input_file_keeps_line_numbers():
    src = GOOD + "\n// -----\n\n" + BAD
    code, out, err = opt("-", "-split-input-file", stdin=src)
    assert code == 1
    # the bad return is on line 10 of the whole file
    assert err.startswith("<stdin>:10:3: error: type of return operand 0 ")
    # the good chunk is still printed, then the marker
    assert out.count("stablehlo.add") == 1 and out.rstrip().endswith("// -----")


def test_split_output_joined_with_marker():
    code, out, _ = opt("-", "--split-input-file", stdin=GOOD + "// -----\n" + GOOD)
    assert code == 0
    parts = out.split("// -----\n")
    assert len(parts) == 2 and parts[0] == parts[1]


def test_generic_printing():
    code, out, _ = opt("-", "-mlir-print-op-generic", stdin=GOOD)
    assert code == 0
    assert '%0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>' in out
    assert opt("-", stdin=out)[1] == opt("-", stdin=GOOD)[1]


def test_empty_input_is_an_empty_module():
    for text in ("", "\n", "// only a comment\n"):
        assert opt("-", stdin=text) == (0, "module {\n}\n\n", "")
    code, out, _ = opt("-", "-split-input-file", stdin="// RUN: x\n// -----\n" + GOOD)
    assert code == 0 and out.startswith("module {\n}\n\n// -----\nmodule {\n  func.func @f(")


def test_unregistered_ops():
    src = '"foo.bar"() : () -> ()\n'
    code, _, err = opt("-", stdin=src)
    assert code == 1 and "foo.bar" in err
    code, out, _ = opt("-", "-allow-unregistered-dialect", stdin=src)
    assert code == 0 and '"foo.bar"() : () -> ()' in out


# --- passes and pipelines ----------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["--test-rename-funcs=suffix=_y"],
    ["-test-rename-funcs=suffix=_y"],
    ["--test-rename-funcs"],
    ["-pass-pipeline=builtin.module(func.func(test-rename-funcs{suffix=_y}))"],
    ["--pass-pipeline", "builtin.module(test-rename-funcs{suffix=_y})"],
    ["-p", "test-rename-funcs{suffix=_y}"],
])
def test_pass_spellings(argv):
    code, out, err = opt("-", *argv, stdin=GOOD)
    assert code == 0, err
    expected = "@f_x" if argv == ["--test-rename-funcs"] else "@f_y"
    assert f"func.func {expected}(" in out


def test_pipeline_order_is_command_line_order():
    code, out, _ = opt("-", "--test-rename-funcs=suffix=_a", "-p", "test-rename-funcs{suffix=_b}",
                       "--test-rename-funcs=suffix=_c", stdin=GOOD)
    assert code == 0 and "func.func @f_a_b_c(" in out


def test_bad_command_lines_exit_2():
    code, _, err = opt("-", "-pass-pipeline=builtin.module(nope)", stdin=GOOD)
    assert (code, err) == (2, "qcomp-opt: error: 'nope' does not refer to a registered pass "
                              "or pass pipeline\n")
    code, _, err = opt("-", "--test-rename-funcs=colour=red", stdin=GOOD)
    assert (code, err) == (2, "qcomp-opt: error: pass 'test-rename-funcs' has no option "
                              "'colour' (it takes suffix)\n")
    code, _, err = opt("-", "--no-such-flag", stdin=GOOD)
    assert (code, err) == (2, "qcomp-opt: error: unknown pass or option '--no-such-flag' "
                              "(qcomp-opt --help lists them)\n")
    code, _, err = opt("-", "a.mlir", stdin=GOOD)
    assert (code, err) == (2, "qcomp-opt: error: unexpected argument 'a.mlir' (one input file "
                              "at most)\n")


def test_a_misspelt_pass_or_option_gets_the_nearest_name():
    code, out, err = opt("-", "--stablehlo-legalize-quant-to-mth", stdin=GOOD)
    assert (code, out) == (2, "")
    assert err == ("qcomp-opt: error: unknown pass or option '--stablehlo-legalize-quant-to-mth'; "
                   "did you mean '--stablehlo-legalize-quant-to-math'? (qcomp-opt --help lists "
                   "them)\n")
    # MLIR's single dash, an option's value, and no abbreviations (as LLVM's options)
    assert opt("-", "-split-input-fil", stdin=GOOD)[2] == (
        "qcomp-opt: error: unknown pass or option '--split-input-fil'; did you mean "
        "'--split-input-file'? (qcomp-opt --help lists them)\n")
    assert "did you mean '--stablehlo-lower-quant'?" in opt("-", "--stablehlo-lower-qaunt=x=1")[2]
    code, _, err = opt("-", "-p", "stablehlo-legalize-quant-to-mth{rescale=float}", stdin=GOOD)
    assert (code, err) == (2, "qcomp-opt: error: 'stablehlo-legalize-quant-to-mth' does not "
                              "refer to a registered pass or pass pipeline; did you mean "
                              "'stablehlo-legalize-quant-to-math'?\n")


def test_a_bad_option_value_is_a_command_line_error():
    code, out, err = opt("-", "--stablehlo-legalize-quant-to-math=rescale=bogus", stdin=GOOD)
    assert (code, out) == (2, "")
    assert err == ("qcomp-opt: error: invalid value 'bogus' for option 'rescale' of pass "
                   "'stablehlo-legalize-quant-to-math' (one of float, fixed-point, stablehlo)\n")


def test_version_and_list_passes():
    from importlib import metadata

    code, out, err = opt("--version")
    assert (code, out, err) == (0, f"qcomp-opt (qcomp) {metadata.version('qcomp')}\n", "")
    code, out, _ = opt("-list-passes")
    assert code == 0
    names = [ln.split()[0] for ln in out.splitlines()]
    assert names == sorted({*registry.PASSES, *registry.PASS_ALIASES, *registry.PIPELINES,
                            *registry.XDSL_PASSES})
    lines = dict(ln.split(None, 1) for ln in out.splitlines())
    assert lines["stablehlo-legalize-quant-to-int"] == "alias of stablehlo-legalize-quant-to-math"
    assert lines["stablehlo-lower-quant"] == ("pipeline: stablehlo-legalize-quant-to-math,"
                                              "canonicalize,cse")
    assert lines["strip-func-quant-types"] == ("Replace quantized types in function signatures "
                                               "by their storage types.")


def test_pass_diagnostic_points_at_the_op():
    code, out, err = opt("-", "--test-reject-adds", stdin=GOOD)
    assert code == 1 and out == ""
    # at the op name, as MLIR locates ops
    assert err.startswith("<stdin>:2:8: error: adds are not welcome here\n"
                          "  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>\n"
                          "       ^\n")


def test_pass_diagnostic_is_matched_by_verify_diagnostics():
    src = GOOD.replace("  %0 = stablehlo.add",
                       "  // expected-error @+1 {{not welcome}}\n  %0 = stablehlo.add")
    assert opt("-", "--test-reject-adds", "-verify-diagnostics", stdin=src)[0] == 0
    code, _, err = opt("-", "--test-reject-adds", "-verify-diagnostics", stdin=GOOD)
    assert code == 1 and "error: unexpected error: adds are not welcome here" in err


def test_internal_error_exit_2_without_traceback(monkeypatch):
    monkeypatch.delenv("QCOMP_DEBUG", raising=False)
    code, out, err = opt("-", "--test-crash", stdin=GOOD)
    assert (code, out, err) == (2, "", "qcomp-opt: internal error: RuntimeError: boom (in pass "
                                       "'test-crash' on the input starting at <stdin>:1)\n")
    monkeypatch.setenv("QCOMP_DEBUG", "1")
    code, _, err = opt("-", "--test-crash", stdin=GOOD)
    assert code == 2 and "Traceback" in err


def test_print_ir_after_all_and_change():
    code, out, err = opt("-", "--test-rename-funcs", "--test-reject-adds", "-verify-diagnostics",
                         "--print-ir-after-all", stdin=GOOD.replace(
                             "  %0", "  // expected-error @+1 {{welcome}}\n  %0"))
    assert code == 0
    assert err.startswith("// -----// IR Dump After RenameFuncs (test-rename-funcs) //----- //\n"
                          "module {\n  func.func @f_x(")
    code, _, err = opt("-", "-p", 'test-rename-funcs{suffix=""},test-rename-funcs',
                       "--print-ir-after-change", stdin=GOOD)
    assert code == 0
    assert err.count("IR Dump After") == 1 and "@f_x(" in err


def test_timing_report():
    code, _, err = opt("-", "--test-rename-funcs", "-mlir-timing", stdin=GOOD)
    assert code == 0
    lines = err.splitlines()
    assert "... Execution time report ..." in lines[1]
    names = [line.split(")")[-1].strip() for line in lines if "%)" in line]
    assert names == ["Parser", "Verifier", "RenameFuncs", "Output", "Total"]


def test_mlir_opt_flags_without_effect_are_accepted():
    plain = opt("-", stdin=GOOD)
    assert opt("-", "-mlir-disable-threading", "-mlir-print-local-scope", "--strip-debuginfo",
               "-debug-only=dialect-conversion", stdin=GOOD) == plain


def test_verify_each_flags():
    # test-break-return leaves a func.return that does not match its function's type
    for flags in ((), ("--verify-each",), ("-verify-each=true",)):
        code, out, err = opt("-", *flags, "--test-break-return", "--test-rename-funcs",
                             stdin=GOOD)
        assert (code, out) == (1, ""), flags
        assert err.startswith("<stdin>:3:3: error: type of return operand 0 "), (flags, err)
        assert err.splitlines()[0].endswith(" (after pass 'test-break-return')"), (flags, err)
    for flags in (("-verify-each=false",), ("--no-verify-each",)):
        # not verified after the pass: the next pass runs and the invalid IR is printed
        code, out, err = opt("-", *flags, "--test-break-return", "--test-rename-funcs",
                             stdin=GOOD)
        assert (code, err) == (0, ""), (flags, err)
        assert "func.func @f_x(%arg0: tensor<2xf32>) -> tensor<3xf32>" in out, (flags, out)
    for flag in ("-verify-each=false", "--no-verify-each", "--verify-each", "-verify-each=true"):
        assert opt("-", flag, stdin=GOOD)[0] == 0


# --- -o ----------------------------------------------------------------------


def test_output_file_written_only_on_success(tmp_path):
    f = tmp_path / "x.mlir"
    f.write_text(GOOD)
    before = f.read_text()
    for argv in (["-pass-pipeline=builtin.module(nope)"], ["--test-reject-adds"],
                 ["--test-crash"]):
        code, _, _ = opt(str(f), "-o", str(f), *argv)
        assert code in (1, 2)
        assert f.read_text() == before
    bad = tmp_path / "bad.mlir"
    bad.write_text(BAD)
    out = tmp_path / "out.mlir"
    assert opt(str(bad), "-o", str(out))[0] == 1 and not out.exists()
    code, stdout, _ = opt(str(f), "-o", str(f), "--test-rename-funcs")
    assert code == 0 and stdout == ""
    assert "func.func @f_x(" in f.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.mlir", "x.mlir"]


def test_output_file_keeps_its_mode(tmp_path):
    f = tmp_path / "x.mlir"
    f.write_text(GOOD)
    f.chmod(0o644)
    assert opt(str(f), "-o", str(f))[0] == 0
    assert f.stat().st_mode & 0o777 == 0o644
    new = tmp_path / "new.mlir"
    assert opt(str(f), "-o", str(new))[0] == 0
    umask = os.umask(0)
    os.umask(umask)
    assert new.stat().st_mode & 0o777 == 0o666 & ~umask


def test_unwritable_output_is_a_diagnostic(tmp_path):
    code, out, err = opt("-", "-o", str(tmp_path / "no" / "such" / "dir.mlir"), stdin=GOOD)
    assert code == 1 and out == ""
    assert err.startswith("qcomp-opt: error: cannot write output file ")


# --- help --------------------------------------------------------------------


def test_help_lists_every_registered_pass_with_summary_and_options():
    code, out, _ = opt("--help")
    assert code == 0
    text = " ".join(out.split())
    for name, factory in registry.PASSES.items():
        cls = factory()
        assert f"\n  --{name}\n" in out, f"--{name} missing from --help"
        assert f"--{name} {summary(cls)}" in text  # the whole first paragraph
    assert "\n      suffix: str, default _x\n" in out
    assert ("\n  --stablehlo-legalize-quant-to-math\n" in out and
            "\n      alias: --stablehlo-legalize-quant-to-int\n"
            "      rescale: str (float|fixed-point|stablehlo), default float\n" in out)
    assert "\n      per-channel: bool (true|false), default true\n" in out
    assert "exit codes: 0 success; 1 a diagnostic about the input" in text
    assert opt("-help")[1] == out


# --- argument helpers --------------------------------------------------------


def test_normalize_argv_and_pipeline_flattening():
    assert normalize_argv(["-split-input-file", "-o", "x", "-", "--timing", "-o=y", "-p", "a"]) == [
        "--split-input-file", "-o", "x", "-", "--timing", "-o", "y", "-p", "a"]
    assert flatten_mlir_pipeline("builtin.module(func.func(a, b{x=1}), c)") == "a, b{x=1}, c"
    assert flatten_mlir_pipeline("'builtin.module(a)'") == "a"


def test_upstream_run_line_shape():
    # `stablehlo-opt %s --<pass> -split-input-file -verify-diagnostics` with the tool renamed
    src = GOOD.replace("  %0 = stablehlo.add",
                       "  // expected-error @+1 {{not welcome}}\n  %0 = stablehlo.add")
    src = src + "\n// -----\n\n" + src
    assert opt("-", "--test-reject-adds", "-split-input-file", "-verify-diagnostics",
               stdin=src)[0] == 0


# --- as programs ---------------------------------------------------------------


def test_console_script_exit_codes(tmp_path, console_script):
    exe = console_script("qcomp-opt")
    ok = subprocess.run([exe, "-"], input=GOOD, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and "stablehlo.add" in ok.stdout
    bad = subprocess.run([exe, "-"], input=GOOD + "}", capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 1 and "<stdin>:5:1: error:" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_xdsl_opt_sees_qcomp_dialects(tmp_path, console_script):
    """The xdsl.universe entry point: plain xdsl-opt parses quantized StableHLO."""
    exe = console_script("xdsl-opt")
    f = tmp_path / "q.mlir"
    f.write_text("func.func @f(%arg0: tensor<2x!quant.uniform<i8:f32, 0.5:-3>>) -> "
                 "tensor<2x!quant.uniform<i8:f32, 0.5:-3>> {\n"
                 "  %0 = stablehlo.add %arg0, %arg0 : tensor<2x!quant.uniform<i8:f32, 0.5:-3>>\n"
                 "  func.return %0 : tensor<2x!quant.uniform<i8:f32, 0.5:-3>>\n}\n")
    r = subprocess.run([exe, str(f)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert ("%0 = stablehlo.add %arg0, %arg0 : tensor<2x!quant.uniform<i8:f32, "
            "5.000000e-01:-3>>") in r.stdout
