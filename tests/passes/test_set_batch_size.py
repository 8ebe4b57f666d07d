"""`set-batch-size{n=N}`: a lowered int8 program rewritten to take N samples in one call
gives, on both backends, bit for bit the per-sample runs of the original program (and
LiteRT's reference kernels on the `.tflite` models); ops that mix samples are errors
at the op."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert.interpreter")

from qcomp.backends import run, xla  # noqa: E402
from qcomp.importers.tflite import import_tflite  # noqa: E402
from qcomp.ir import print_module  # noqa: E402
from qcomp.passes.set_batch_size import SetBatchSizePass  # noqa: E402
from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass  # noqa: E402
from qcomp.passes.utils.diagnostics import PassDiagnostic  # noqa: E402
from qcomp.registry import make_context, parse_module  # noqa: E402
from tests.importers.litert_cases import CASES  # noqa: E402
from tests.importers.tflite_mobilenet import mobilenet_v2  # noqa: E402
from tests.importers.tflite_models import run_litert  # noqa: E402

BACKENDS = ["numpy"] + (["xla"] if xla.is_available() else [])
N = 3
BATCHABLE = ["CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "MUL",
             "AVERAGE_POOL_2D", "MAX_POOL_2D", "SOFTMAX", "MEAN", "LOGISTIC", "TANH",
             "QUANTIZE", "DEQUANTIZE"]


def lowered(model: bytes):
    """The model imported and lowered with `rescale=fixed-point`."""
    ctx = make_context()
    module = parse_module(import_tflite(model), ctx)
    LegalizeQuantToMathPass(rescale="fixed-point").apply(ctx, module)
    return module


def batched(program, n: int):
    """`program` (MLIR text, or a module: a clone is rewritten) with batch size `n`."""
    module = parse_module(program) if isinstance(program, str) else program.clone()
    SetBatchSizePass(n=n).apply(make_context(), module)
    module.verify()
    return module


def check_batched(model: bytes, samples: list[list[np.ndarray]], backends) -> None:
    """Each sample run alone (LiteRT's reference kernels and qcomp's numpy backend on
    the lowered program) against the batched program's one run on each backend."""
    single = lowered(model)
    big = batched(single, len(samples) * samples[0][0].shape[0])
    stacked = [np.concatenate(xs) for xs in zip(*samples)]
    want = []
    for feeds in samples:
        (r,) = run(single, feeds)
        assert r.error is None, r.error
        for got, oracle in zip(r.results, run_litert(model, feeds), strict=True):
            assert np.array_equal(got.reshape(oracle.shape), oracle)
        want.append(r.results)
    want = [np.concatenate(rs) for rs in zip(*want)]
    for backend in backends:
        (r,) = run(big, stacked, backend=backend)
        assert r.error is None, r.error
        for got, w in zip(r.results, want, strict=True):
            assert got.dtype == w.dtype and got.shape == w.shape
            assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(w).tobytes(), backend


@pytest.mark.parametrize("op", BATCHABLE)
def test_batched_tflite_ops_equal_per_sample_runs(op):
    model, feeds = CASES[op](np.random.default_rng(0))
    samples = []
    for seed in range(N):  # the model of seed 0, inputs of three seeds
        rng = np.random.default_rng(100 + seed)
        samples.append([(rng.integers(-128, 128, f.shape).astype(f.dtype) if f.dtype == np.int8
                         else (rng.standard_normal(f.shape) * np.abs(f).max()).astype(f.dtype))
                        for f in feeds])
    check_batched(model, samples, BACKENDS)


@pytest.mark.parametrize("sliced", [False, True], ids=["whole", "xla-slices"])
def test_batched_mobilenet_equals_per_sample_runs(sliced, monkeypatch):
    """`xla-slices`: every program counts as large, so that XLA runs the batch of 2 as
    one slice per core where there are two (`qcomp.backends.xla.batch_slices`)."""
    if sliced:
        if "xla" not in BACKENDS:
            pytest.skip("jax is not installed")
        from qcomp.backends import xla_clients
        monkeypatch.setattr(xla_clients, "ONE_THREAD_WORK", 0)
    model = mobilenet_v2(seed=2, size=16, classes=10, stages=3)  # samples whose results differ
    rng = np.random.default_rng(5)
    samples = [[rng.integers(-128, 128, (1, 16, 16, 3)).astype(np.int8)] for _ in range(2)]
    check_batched(model, samples, ["xla"] if sliced else BACKENDS)


def test_reshape_across_the_batch_is_an_error_at_the_op():
    text = """func.func @main(%x: tensor<2x3xi32>) -> tensor<6xi32> {
  %y = stablehlo.add %x, %x : tensor<2x3xi32>
  %z = stablehlo.reshape %y : (tensor<2x3xi32>) -> tensor<6xi32>
  return %z : tensor<6xi32>
}"""
    module = parse_module(text)
    with pytest.raises(PassDiagnostic) as e:
        SetBatchSizePass(n=4).apply(make_context(), module)
    assert e.value.message == ("set-batch-size: 'stablehlo.reshape' does not keep the batch "
                               "dimension ((2, 3) -> (6,))")
    assert e.value.op.name == "stablehlo.reshape"


def test_constant_operands_are_broadcast_and_slices_follow():
    text = """func.func @main(%x: tensor<1x4xi32>) -> tensor<1x2xi32> {
  %c = stablehlo.constant dense<[[1, 2, 3, 4]]> : tensor<1x4xi32>
  %y = stablehlo.add %x, %c : tensor<1x4xi32>
  %z = stablehlo.slice %y [0:1, 1:3] : (tensor<1x4xi32>) -> tensor<1x2xi32>
  return %z : tensor<1x2xi32>
}"""
    module = batched(text, 3)
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    for backend in BACKENDS:
        (r,) = run(module, [x], backend=backend)
        assert r.results[0].tolist() == [[3, 5], [7, 9], [11, 13]]
    assert "-> tensor<3x2xi32>" in print_module(module)
