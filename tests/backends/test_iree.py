"""The iree backend (`qcomp.backends.iree`): tiny programs bit for bit with qcomp's
interpreter (and LiteRT's reference kernels on lowered `.tflite` models, the depthwise
convolution included: IREE 3.13 miscompiles its i8 form, so the shared preparation
rewrites it), its checks, its caches (per process and on disk), its one-line errors.
Each compile takes seconds, so the programs are few and tiny; MobileNetV2 is measured by
tools/bench_iree.py, not here."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pytest

import qcomp
from qcomp.backends import iree, run
from qcomp.backends.compiled import Compiled
from qcomp.interpreter import RunError
from qcomp.registry import make_context, parse_module
from qcomp.tools.qcomp_run import main as run_main

ROOT = Path(__file__).resolve().parents[2]
needs_iree = pytest.mark.skipif(not iree.is_available(),
                                reason="IREE not installed (pip install 'qcomp[iree]')")

MIXED = """func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<3xi64>, %s: tensor<2x3xf32>, %t: tensor<3x2xf32>) -> (tensor<4xf32>, tensor<4xi1>, tensor<3xi64>, tensor<2x2xf32>, tensor<4xf32>, tensor<4xf64>) {
  %qx = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
  %qy = stablehlo.uniform_quantize %y : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.25:2>>
  %sum = stablehlo.add %qx, %qy : (tensor<4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x!quant.uniform<i8:f32, 0.25:2>>) -> tensor<4x!quant.uniform<i8:f32, 0.75:1>>
  %r = stablehlo.uniform_dequantize %sum : (tensor<4x!quant.uniform<i8:f32, 0.75:1>>) -> tensor<4xf32>
  %cmp = stablehlo.compare GT, %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %sq = stablehlo.multiply %i, %i : tensor<3xi64>
  %d = stablehlo.dot_general %s, %t, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %q = stablehlo.divide %x, %y : tensor<4xf32>
  %w = stablehlo.convert %q : (tensor<4xf32>) -> tensor<4xf64>
  %w2 = stablehlo.multiply %w, %w : tensor<4xf64>
  func.return %r, %cmp, %sq, %d, %q, %w2 : tensor<4xf32>, tensor<4xi1>, tensor<3xi64>, tensor<2x2xf32>, tensor<4xf32>, tensor<4xf64>
}
"""
"""Quantized ops under spec semantics (float rescale), an i1 result, i64 past 2^32 (no
demotion), an f32 contraction, an IEEE division and f64 (no demotion)."""


@pytest.fixture(scope="module", autouse=True)
def cache_home(tmp_path_factory):
    """A disk cache of this module's own (never the user's ~/.cache)."""
    old = dict(iree._VMFB)
    iree._VMFB.clear()
    mp = pytest.MonkeyPatch()
    home = tmp_path_factory.mktemp("xdg-cache")
    mp.setenv("XDG_CACHE_HOME", str(home))
    yield home
    mp.undo()
    iree._VMFB.clear()
    iree._VMFB.update(old)


def bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def mixed_inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    return [rng.normal(0, 20, 4).astype(np.float32), rng.normal(0, 20, 4).astype(np.float32),
            np.array([3_000_000_000, -5, 123_456_789], np.int64),
            rng.integers(-9, 9, (2, 3)).astype(np.float32),
            rng.integers(-9, 9, (3, 2)).astype(np.float32)]


def assert_same(got, want) -> None:
    assert got.error is None and want.error is None, (got.error, want.error)
    assert len(got.results) == len(want.results)
    for g, w in zip(got.results, want.results):
        assert g.dtype == w.dtype and g.shape == w.shape and bits(g) == bits(w), (g, w)


@needs_iree
def test_mixed_program_bit_for_bit_and_cached_on_disk(cache_home, monkeypatch):
    module = parse_module(MIXED, make_context())
    inputs = mixed_inputs()
    (want,) = run(module, inputs)
    (got,) = qcomp.compile(module, backend="iree").run(inputs)
    assert_same(got, want)
    assert got.results[2].tolist() == [9_000_000_000_000_000_000, 25, 15_241_578_750_190_521]
    (fn,) = qcomp.compile(module, backend="iree").xla_functions  # this process's cache
    key = iree.cache_key(fn.text)
    assert (cache_home / "qcomp" / "iree" / f"{key}.vmfb").read_bytes() == fn.vmfb
    assert [p.name for p in (cache_home / "qcomp" / "iree").iterdir()] == [f"{key}.vmfb"]

    def no_compiler(text):
        raise AssertionError("compiled again")
    monkeypatch.setattr(iree, "_invoke_compiler", no_compiler)
    iree._VMFB.clear()  # a new process: only the disk cache is left
    (again,) = qcomp.compile(module, backend="iree").run(inputs)
    assert_same(again, want)


@needs_iree
@pytest.mark.parametrize("op", ["ADD", "CONV_2D", "DEPTHWISE_CONV_2D"])
def test_lowered_tflite_ops_bit_for_bit_with_interpreter_and_litert(op):
    pytest.importorskip("ai_edge_litert.interpreter")
    from qcomp.importers.tflite import import_tflite
    from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass
    from tests.importers.litert_cases import CASES
    from tests.importers.tflite_models import run_litert

    model, feeds = CASES[op](np.random.default_rng(11))
    ctx = make_context()
    module = parse_module(import_tflite(model), ctx)
    LegalizeQuantToMathPass(rescale="fixed-point").apply(ctx, module)
    handle = qcomp.compile(module, backend="iree")
    rng = np.random.default_rng(5)
    for k in range(3):
        xs = feeds if k == 0 else [rng.integers(-128, 128, f.shape).astype(np.int8) for f in feeds]
        (got,) = handle.run(xs)
        (want,) = run(module, xs)
        assert_same(got, want)
        (lite,) = run_litert(model, xs)
        assert np.array_equal(got.results[0].reshape(lite.shape), lite)


@needs_iree
def test_i8_depthwise_convolution_is_right_through_the_rewrite():
    """IREE 3.13 miscompiles this i8 depthwise convolution (16 groups): without
    `xla_contractions.depthwise_as_elementwise` its results are off by about 2^31
    (measured); the prepared program has no convolution left and agrees bit for bit."""
    from tests.backends.test_xla_contractions import DEPTHWISE, _dense, _inputs, _kernel, _out, _program

    c, out = 16, _out(1, 1, 1, 16)
    body = DEPTHWISE.format(w=_dense(_kernel((3, 3, 1, c), np.int8)), c=c, s=1, p=1, d=1, out=out)
    module = parse_module(_program(body, f"%x: tensor<2x9x8x{c}xi8>", f"tensor<{out}xi32>"),
                          make_context())
    handle = qcomp.compile(module, backend="iree")
    assert "stablehlo.convolution" not in handle.xla_functions[0].text
    for x in _inputs((2, 9, 8, c), np.int8):
        (got,) = handle.run([x])
        (want,) = run(module, [x])
        assert_same(got, want)


@needs_iree
def test_qcomp_run_backend_iree_judges_checks():
    out, err = io.StringIO(), io.StringIO()
    code = run_main([str(ROOT / "examples" / "quantized_add_checked.mlir"), "--backend", "iree"],
                    stdout=out, stderr=err)
    assert (code, out.getvalue(), err.getvalue()) == (0, "2 passed, 0 failed\n", "")


@needs_iree
def test_unsupported_op_names_the_iree_backend():
    module = parse_module("""func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = tosa.abs %a : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}
""", make_context())
    (r,) = qcomp.compile(module, backend="iree").run([np.zeros(4, np.float32)])
    assert r.error.message == ("the iree backend cannot run 'tosa.abs': XLA has no TOSA "
                               "dialect; run it with --backend numpy")


def test_iree_runs_on_the_cpu_only():
    module = parse_module(MIXED, make_context())
    with pytest.raises(RunError, match=r"^the iree backend runs on the cpu, not on 'gpu'$"):
        Compiled(module, backend="iree", device="gpu")


def test_missing_iree_is_one_line(monkeypatch):
    monkeypatch.setattr(iree, "_IREE", None)
    monkeypatch.setitem(sys.modules, "iree", None)
    out, err = io.StringIO(), io.StringIO()
    code = run_main([str(ROOT / "examples" / "quantized_add.mlir"), "--input=4xf32=1,2,3,4",
                     "--input=4xf32=1,2,3,4", "--backend", "iree"], stdout=out, stderr=err)
    assert (code, out.getvalue(), err.getvalue()) == (
        1, "", "qcomp-run: error: --backend iree needs the iree extra: pip install 'qcomp[iree]'\n")
    with pytest.raises(RunError, match=r"^--backend iree needs the iree extra"):
        qcomp.compile(parse_module(MIXED, make_context()), backend="iree")
