"""qcomp-run's command line: exit codes, diagnostics with locations, npz I/O, memory limit."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from qcomp.tools.qcomp_run import main, parse_size

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "stablehlo"


def cli(*argv: str, stdin: str = ""):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), io.StringIO(stdin), out, err)
    return code, out.getvalue(), err.getvalue()


def write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


CHECKS = """func.func @ok() {
  %c = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi8>
  %d = stablehlo.add %c, %c : tensor<3xi8>
  check.expect_eq_const %d, dense<[2, 4, 6]> : tensor<3xi8>
  func.return
}

// -----

func.func @bad() {
  %c = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi8>
  %d = stablehlo.add %c, %c : tensor<3xi8>
  check.expect_eq_const %d, dense<[2, 5, 7]> : tensor<3xi8>
  func.return
}
"""


def test_failing_check_reports_location_and_elements(tmp_path):
    f = write(tmp_path, "c.mlir", CHECKS)
    code, out, err = cli(f, "--split-input-file")
    assert code == 1
    assert out.splitlines()[-1] == "1 passed, 1 failed"
    assert f"{f}:13:3: error: check.expect_eq_const failed in @bad: 2 mismatching element(s)" in err
    assert "at [1]: got 4, expected 5" in err and "at [2]: got 6, expected 7" in err


def test_all_passing_exits_0(tmp_path):
    f = write(tmp_path, "c.mlir", CHECKS.split("// -----")[0])
    assert cli(f) == (0, "1 passed, 0 failed\n", "")


MAIN = """func.func @main(%a: tensor<3xf32>, %b: tensor<3xi8>) -> (tensor<3x!quant.uniform<i8:f32, 0.5:-1>>, tensor<3xi8>) {
  %q = stablehlo.uniform_quantize %a : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 0.5:-1>>
  %d = stablehlo.multiply %b, %b : tensor<3xi8>
  func.return %q, %d : tensor<3x!quant.uniform<i8:f32, 0.5:-1>>, tensor<3xi8>
}
"""


def test_inputs_outputs_and_print(tmp_path):
    f = write(tmp_path, "m.mlir", MAIN)
    inp, outp = tmp_path / "in.npz", tmp_path / "out.npz"
    np.savez(inp, arg0=np.array([1.0, 2.25, -100], np.float32), arg1=np.array([3, 12, -128], np.int8))
    code, out, err = cli(f, "--inputs", str(inp), "--output", str(outp))
    assert (code, err) == (0, "")
    # printed because @main takes arguments; quantized: storage integers with their type
    assert out == ("@main result[0]: 3x!quant.uniform<i8:f32, 5.000000e-01:-1>=[1 4 -128]\n"
                   "@main result[1]: 3xi8=[9 -112 0]\n")
    data = np.load(outp)
    assert data["result0"].dtype == np.int8 and data["result0"].tolist() == [1, 4, -128]
    assert data["result1"].tolist() == [9, -112, 0]


def test_input_errors_exit_1(tmp_path):
    f = write(tmp_path, "m.mlir", MAIN)
    bad = tmp_path / "bad.npz"
    np.savez(bad, arg0=np.zeros(2, np.float32), arg1=np.zeros(3, np.int8))
    code, _, err = cli(f, "--inputs", str(bad))
    assert code == 1 and err == (f"qcomp-run: error: @main argument 0 (%a): expected 3xf32, "
                                 f"got 2xf32 from --inputs {bad} ('arg0')\n")
    np.savez(bad, arg0=np.zeros(3, np.float32))
    code, _, err = cli(f, "--inputs", str(bad))
    assert code == 1 and "--inputs has no array named arg1" in err
    code, _, err = cli(f)
    assert code == 1
    assert err.splitlines()[0] == (
        f"{f}:1:1: error: @main takes 2 argument(s) (3xf32, 3xi8): pass them with "
        "--input=3xf32=... --input=3xi8=... (in order) or --inputs IN.npz")


def test_program_errors_are_diagnostics_not_tracebacks(tmp_path):
    f = write(tmp_path, "u.mlir", """func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %d = stablehlo.custom_call @my.kernel(%a) : (tensor<3xf32>) -> tensor<3xf32>
  func.return %d : tensor<3xf32>
}
""")
    inp = tmp_path / "in.npz"
    np.savez(inp, arg0=np.zeros(3, np.float32))
    code, out, err = cli(f, "--inputs", str(inp))
    assert (code, out) == (1, "")  # no checks in the program: no `0 passed, 1 failed`
    assert "u.mlir:2:8: error: unsupported custom_call target @my.kernel" in err
    assert "Traceback" not in err
    p = write(tmp_path, "p.mlir", "func.func @f() { %c = stablehlo.constant dense<[1, 2]> : tensor<3xi8> }")
    code, _, err = cli(p)
    assert code == 1 and "p.mlir:1:48: error:" in err and "Traceback" not in err
    code, _, err = cli(str(tmp_path / "missing.mlir"))
    assert code == 1 and "could not open input file" in err
    code, _, err = cli()
    assert code == 2 and "error:" in err


def test_max_memory(tmp_path):
    f = write(tmp_path, "big.mlir", """func.func @main() -> tensor<1000000xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<1000000xf32>
  func.return %c : tensor<1000000xf32>
}
""")
    code, _, err = cli(f, "--max-memory", "1M")
    assert code == 1 and "over the memory limit of 1.0 MiB (--max-memory)" in err
    assert cli(f, "--max-memory", "1G")[0] == 0


def test_parse_size():
    assert parse_size("4G") == 4 << 30
    assert parse_size("512MiB") == 512 << 20
    assert parse_size("1000") == 1000


@pytest.mark.skipif(not SHARED.is_dir(), reason=f"conformance data not found at {SHARED}")
def test_semantics_flag_on_conformance_file():
    f = str(SHARED / "interpret" / "quantized_ops.mlir")
    for sem in ("spec", "stablehlo"):
        assert cli(f, "--split-input-file", "--semantics", sem)[:2] == (0, "5 passed, 0 failed\n")


WITH_ERROR = CHECKS.split("// -----")[0] + """
// -----

func.func @broken() {
  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %d = stablehlo.custom_call @my.kernel(%c) : (tensor<2xf32>) -> tensor<2xf32>
  check.expect_eq_const %d, dense<[1.0, 2.0]> : tensor<2xf32>
  func.return
}
"""


def test_count_line_only_for_programs_with_checks(tmp_path):
    ok = write(tmp_path, "ok.mlir", """func.func @main() -> tensor<2xi8> {
  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi8>
  func.return %c : tensor<2xi8>
}
""")
    assert cli(ok) == (0, "", "")
    assert cli(ok, "--print-results") == (0, "@main result[0]: 2xi8=[1 2]\n", "")
    bad = write(tmp_path, "bad.mlir", """func.func @main() {
  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %d = stablehlo.custom_call @my.kernel(%c) : (tensor<2xf32>) -> tensor<2xf32>
  func.return
}
""")
    code, out, err = cli(bad)
    assert (code, out) == (1, "")
    assert err.startswith(f"{bad}:3:8: error: unsupported custom_call target @my.kernel\n")


def test_count_line_comes_after_the_diagnostics(tmp_path):
    f = write(tmp_path, "e.mlir", WITH_ERROR)
    both = io.StringIO()  # stdout and stderr into one stream, as `2>&1` does
    code = main([f, "--split-input-file"], io.StringIO(), both, both)
    lines = both.getvalue().splitlines()
    assert code == 1
    assert lines[0] == f"{f}:13:8: error: unsupported custom_call target @my.kernel"
    assert lines[-1] == "1 passed, 1 failed"
    assert sum("passed" in ln for ln in lines) == 1


def test_count_line_after_diagnostics_through_a_pipe(tmp_path):
    """The console script with stdout and stderr on one pipe: flushed in order."""
    f = write(tmp_path, "e.mlir", WITH_ERROR)
    r = subprocess.run([sys.executable, "-m", "qcomp.tools.qcomp_run", f, "--split-input-file",
                        "--print-results"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    lines = r.stdout.splitlines()
    assert r.returncode == 1
    assert lines[0] == f"{f}:13:8: error: unsupported custom_call target @my.kernel"
    assert lines[-1] == "1 passed, 1 failed"



def test_reader_going_away_is_not_an_internal_error(tmp_path):
    """`qcomp-run ... | head -1`: exit 141 (SIGPIPE's), nothing on stderr."""
    chunk = """func.func @main() -> tensor<1000xf32> {
  %c = stablehlo.constant dense<0.123456> : tensor<1000xf32>
  func.return %c : tensor<1000xf32>
}
"""
    f = write(tmp_path, "big.mlir", "// -----\n".join([chunk] * 100))  # ~1 MB of results
    p = subprocess.Popen([sys.executable, "-m", "qcomp.tools.qcomp_run", f, "--split-input-file",
                          "--print-results"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = p.stdout.readline()
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=300) == 141
    assert first.startswith(b"@main result[0]: 1000xf32=[0.123456 0.123456 ")
    assert err == b""


def test_version_help_and_misspelt_options():
    from importlib import metadata

    assert cli("--version") == (0, f"qcomp-run (qcomp) {metadata.version('qcomp')}\n", "")
    code, out, _ = cli("--help")
    assert code == 0
    text = " ".join(out.split())
    assert "or an .onnx / .tflite model on NumPy (qcomp's interpreter, the default) or XLA" in text
    assert "the program: an .mlir file, an .onnx or a .tflite model ('-': stdin)" in text
    assert "2 a bad command line, or an internal error" in text
    assert cli("x.mlir", "--entri=f") == (
        2, "", "qcomp-run: error: unknown option '--entri'; did you mean '--entry'? "
               "(qcomp-run --help lists them)\n")
    assert cli("x.mlir", "--semantics", "spek")[0] == 2
    assert cli("x.mlir", "--device", "gpu") == (
        2, "", "qcomp-run: error: --device gpu needs --backend xla\n")
