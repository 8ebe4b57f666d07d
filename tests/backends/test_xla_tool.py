"""The xla backend as users see it: `qcomp-run --backend xla`, `qcomp.backends.run`,
`qcomp-opt --verify-numerics --backend xla`, its errors, its cache, and the benchmark's
workloads bit for bit."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from qcomp.backends import run as backend_run
from qcomp.backends import xla, xla_compare, xla_prepare
from qcomp.interpreter import RunError, run
from qcomp.registry import make_context, parse_module
from qcomp.tools.qcomp_opt import main as opt_main
from qcomp.tools.qcomp_run import main as run_main

pytestmark = pytest.mark.skipif(not xla.is_available(),
                                reason="jax/jaxlib not installed (pip install 'qcomp[xla]')")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from bench_workloads import conv_program, mlp_program  # noqa: E402

ADD = """func.func @main(%a: tensor<4x!quant.uniform<i8:f32, 0.5:1>>, %b: tensor<4x!quant.uniform<i8:f32, 0.25:-3>>) -> tensor<4x!quant.uniform<i8:f32, 0.75:2>> {
  %r = stablehlo.add %a, %b : (tensor<4x!quant.uniform<i8:f32, 0.5:1>>, tensor<4x!quant.uniform<i8:f32, 0.25:-3>>) -> tensor<4x!quant.uniform<i8:f32, 0.75:2>>
  func.return %r : tensor<4x!quant.uniform<i8:f32, 0.75:2>>
}
"""
CHECKS = """func.func @checks() {
  %x = stablehlo.constant dense<[1.5, -2.25]> : tensor<2xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 0.5:3>>
  %b = stablehlo.bitcast_convert %q : (tensor<2x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<2xi8>
  check.expect_eq_const %b, dense<[6, -2]> : tensor<2xi8>
  check.expect_eq_const %b, dense<[6, -1]> : tensor<2xi8>
  %y = stablehlo.divide %x, %x : tensor<2xf32>
  check.expect_almost_eq_const %y, dense<1.0> : tensor<2xf32>
  func.return
}
"""


def _cli(main, argv, stdin: str = ""):
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, io.StringIO(stdin), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("semantics", ["spec", "stablehlo"])
@pytest.mark.parametrize("kind", ["mlp", "conv"])
def test_benchmark_workloads_bit_for_bit(kind, semantics):
    src, args, _ = mlp_program(16, 128) if kind == "mlp" else conv_program(8, 16, 16)
    module = parse_module(src)
    (ref,) = run(module, args, semantics=semantics)
    assert len(np.unique(ref.results[0])) > 100  # not saturated (an i8 accumulator type was)
    (got,) = xla.run(module, args, semantics=semantics)
    assert got.error is None, got.error.message
    assert xla_compare.compare_outputs(ref.results, got.results) == []
    (fn,) = xla.compiled(module, semantics)
    assert xla_compare.compare_lowered(fn, args, semantics, tolerance={}) == []


def test_checks_are_judged_like_the_interpreter():
    module = parse_module(CHECKS)
    (ref,) = run(module)
    (got,) = xla.run(module)
    assert [c.passed for c in ref.checks] == [c.passed for c in got.checks] == [True, False, True]
    assert got.checks[1].mismatches == ref.checks[1].mismatches
    assert got.checks[1].op is ref.checks[1].op  # reported at the op of the program given


def test_qcomp_run_backend_xla(tmp_path):
    f = tmp_path / "checks.mlir"
    f.write_text(CHECKS)
    code, out, err = _cli(run_main, [str(f), "--backend", "xla"])
    assert code == 1 and out.endswith("2 passed, 1 failed\n")
    assert f"{f}:6:3: error: check.expect_eq_const failed in @checks" in err
    a = tmp_path / "add.mlir"
    a.write_text(ADD)
    np.savez(tmp_path / "in.npz", arg0=np.array([-128, 0, 5, 127], np.int8),
             arg1=np.array([1, -128, 127, 3], np.int8))
    outs = {}
    for backend in ("numpy", "xla"):
        code, out, err = _cli(run_main, [str(a), "--inputs", str(tmp_path / "in.npz"), "--backend", backend,
                                         "--output", str(tmp_path / f"{backend}.npz"), "--print-results"])
        assert code == 0, err
        outs[backend] = out
    assert outs["numpy"] == outs["xla"]
    with np.load(tmp_path / "xla.npz") as x, np.load(tmp_path / "numpy.npz") as n:
        assert x["result0"].dtype == n["result0"].dtype and np.array_equal(x["result0"], n["result0"])


def test_documented_example_on_both_backends():
    tools_doc = (ROOT / "docs" / "tools.md").read_text()
    assert "qcomp-run examples/quantized_add_checked.mlir --backend xla" in tools_doc
    example = str(ROOT / "examples" / "quantized_add_checked.mlir")
    for backend in ("numpy", "xla"):
        assert _cli(run_main, [example, "--backend", backend]) == (0, "2 passed, 0 failed\n", "")
        code, out, err = _cli(run_main, [example, "--backend", backend, "--semantics", "stablehlo"])
        assert (code, out) == (1, "0 passed, 2 failed\n") and "at [2]: got 5, expected 4" in err


def test_backends_run_dispatches():
    src, args, _ = mlp_program(4, 16)
    module = parse_module(src)
    (a,) = backend_run(module, args, backend="numpy")
    (b,) = backend_run(module, args, backend="xla")
    assert np.array_equal(a.results[0], b.results[0])
    with pytest.raises(RunError, match="unknown backend 'tpu'"):
        backend_run(module, args, backend="tpu")


def test_unsupported_ops_are_errors_at_the_op(tmp_path):
    f = tmp_path / "tosa.mlir"
    f.write_text('func.func @main() {\n  %x = "tosa.const"() <{values = dense<[1, 2]> : tensor<2xi8>}> '
                 ': () -> tensor<2xi8>\n  check.expect_eq_const %x, dense<[1, 2]> : tensor<2xi8>\n'
                 '  func.return\n}\n')
    code, out, err = _cli(run_main, [str(f), "--backend", "xla"])
    assert code == 1
    assert err.startswith(f"{f}:2:8: error: the xla backend cannot run 'tosa.const': XLA has no TOSA "
                          "dialect; run it with --backend numpy\n")
    assert _cli(run_main, [str(f)])[0] == 0  # the interpreter runs it
    module = parse_module('func.func @main() -> tensor<2xi8> {\n  %x = stablehlo.constant dense<1> : '
                          'tensor<2xi8>\n  %y = "foo.bar"(%x) : (tensor<2xi8>) -> tensor<2xi8>\n'
                          '  func.return %y : tensor<2xi8>\n}', make_context(allow_unregistered=True))
    (r,) = xla.run(module)
    assert r.error.message == "XLA cannot run the unregistered op 'foo.bar'"
    assert r.error.op.name == "foo.bar" or getattr(r.error.op, "op_name", None).data == "foo.bar"


def test_checks_outside_the_entry_body_are_errors():
    module = parse_module("""func.func @main() {
  %x = stablehlo.constant dense<[1, 2]> : tensor<2xi8>
  func.call @helper(%x) : (tensor<2xi8>) -> ()
  func.return
}
func.func @helper(%x: tensor<2xi8>) {
  check.expect_eq_const %x, dense<[1, 2]> : tensor<2xi8>
  func.return
}""")
    (r,) = xla.run(module)
    assert "cannot run 'check.expect_eq_const' in the called function @helper" in r.error.message
    assert r.error.op.name == "check.expect_eq_const"


def test_device_errors(tmp_path):
    f = tmp_path / "checks.mlir"
    f.write_text(CHECKS)
    code, _, err = _cli(run_main, [str(f), "--device", "gpu"])
    assert code == 2 and err == "qcomp-run: error: --device gpu needs --backend xla\n"
    try:
        xla.get_device("gpu")
    except RunError as e:
        code, _, err = _cli(run_main, [str(f), "--backend", "xla", "--device", "gpu"])
        assert code == 1 and err == f"qcomp-run: error: {e.message}\n" and err.count("\n") == 1
        assert "no PJRT device 'gpu'" in err
    with pytest.raises(RunError, match="cpu has 1 device"):
        xla.get_device("cpu:7")


def test_without_jax_the_message_says_how_to_install(tmp_path):
    f = tmp_path / "checks.mlir"
    f.write_text(CHECKS)
    code = ("import sys; sys.modules['jax'] = None\n"
            "from qcomp.tools.qcomp_run import main\n"
            f"sys.exit(main([{str(f)!r}, '--backend', 'xla']))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 1, p.stderr
    assert p.stderr.count("\n") == 1 and "pip install 'qcomp[xla]'" in p.stderr, p.stderr
    assert p.stderr.startswith("qcomp-run: error: the xla backend needs jax and jaxlib")


class _BreakingPass(ModulePass):
    """Leaves an op behind that upstream MLIR does not know."""

    name = "breaking-pass"

    def apply(self, ctx, op: ModuleOp) -> None:
        from xdsl.dialects.test import TestOp

        main = next(f for f in op.ops if f.sym_name.data == "main")
        ret = main.body.blocks.first.last_op
        main.body.blocks.first.insert_op_before(TestOp(), ret)


def test_a_rejected_lowering_names_the_pass(monkeypatch):
    passes = xla_prepare.lowering_passes
    monkeypatch.setattr(xla_prepare, "lowering_passes",
                        lambda semantics: passes(semantics)[:1] + [_BreakingPass()] + passes(semantics)[1:])
    src, args, _ = mlp_program(2, 8)
    (r,) = xla.run(parse_module(src), args)
    assert "jaxlib's MLIR rejects the lowered program" in r.error.message
    assert r.error.message.endswith("(produced by pass breaking-pass)")


def test_executables_are_cached():
    src, args, _ = mlp_program(2, 8)
    module = parse_module(src)
    first = xla.compiled(module)
    assert xla.compiled(module) is first
    again = xla.compiled(parse_module(src))  # same text, another module: same executable
    assert again[0].executable is first[0].executable


def test_a_module_edited_in_place_is_compiled_again():
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, i32

    from qcomp.dialects.stablehlo import ConstantOp

    module = parse_module("func.func @main() -> tensor<2xi32> {\n"
                          "  %c = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n"
                          "  func.return %c : tensor<2xi32>\n}")
    assert xla.run(module)[0].results[0].tolist() == [1, 2]
    const = next(op for op in module.walk() if isinstance(op, ConstantOp))
    const.properties["value"] = DenseIntOrFPElementsAttr.from_list(TensorType(i32, [2]), [5, 6])
    assert xla.run(module)[0].results[0].tolist() == [5, 6]


def test_verify_numerics_with_the_xla_backend(tmp_path):
    f = tmp_path / "add.mlir"
    f.write_text(ADD)
    code, out, err = _cli(opt_main, [str(f), "-p", "stablehlo-lower-quant", "--verify-numerics=4",
                                     "--backend", "xla"])
    assert code == 0, err
    code, out, err = _cli(opt_main, [str(f), "-p", "stablehlo-quant-legalize-to-tosa-rescale",
                                     "--verify-numerics=4", "--backend", "xla"])
    assert code == 1
    assert "--verify-numerics --backend xla: after pass 'stablehlo-quant-legalize-to-tosa-rescale'" in err
    assert "XLA has no TOSA dialect" in err
