"""`qcomp.backends.xla.batch_slices`: a large program whose samples are independent runs
as one slice of its batch per core, each on a one-thread client, and gives bit for bit
each sample's own run on the interpreter (and the whole program's run on XLA); a
program that mixes samples, has checks, or whose batch does not divide among the cores
runs whole, as before."""

from __future__ import annotations

import os

import numpy as np
import pytest

import qcomp
from qcomp.backends import xla, xla_clients
from qcomp.registry import parse_module

pytestmark = [
    pytest.mark.skipif(not xla.is_available(), reason="jax is not installed"),
    pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) != 2,
                       reason="sliced here in two: needs Linux and exactly two CPUs"),
]

QUANT = "!quant.uniform<i8:f32, 0.05:-3>"


def _program(batch: int) -> str:
    """A quantized dense layer, a per-sample maximum and a ReLU on `batch` samples: sample
    `i` of each result depends on sample `i` of the input only."""
    x, h = f"tensor<{batch}x8xf32>", f"tensor<{batch}x4x{QUANT}>"
    w = "dense<[[1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12], [13, -14, 15, 16], " \
        "[-17, 18, 19, 20], [21, 22, -23, 24], [25, 26, 27, -28], [29, -30, 31, 32]]>"
    return f"""
func.func @main(%x: {x}) -> (tensor<{batch}x4xf32>, tensor<{batch}xf32>) {{
  %w = stablehlo.constant() {{value = {w} : tensor<8x4xi8>}} : () -> tensor<8x4x!quant.uniform<i8:f32, 0.02>>
  %q = stablehlo.uniform_quantize %x : ({x}) -> tensor<{batch}x8x{QUANT}>
  %a = stablehlo.dot_general %q, %w, contracting_dims = [1] x [0] : (tensor<{batch}x8x{QUANT}>, tensor<8x4x!quant.uniform<i8:f32, 0.02>>) -> tensor<{batch}x4x!quant.uniform<i32:f32, 0.001>>
  %r = stablehlo.uniform_quantize %a : (tensor<{batch}x4x!quant.uniform<i32:f32, 0.001>>) -> {h}
  %y = stablehlo.uniform_dequantize %r : ({h}) -> tensor<{batch}x4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<{batch}x4xf32>
  %relu = stablehlo.maximum %y, %zero : tensor<{batch}x4xf32>
  %init = stablehlo.constant dense<-1000.0> : tensor<f32>
  %s = stablehlo.reduce(%y init: %init) applies stablehlo.maximum across dimensions = [1] : (tensor<{batch}x4xf32>, tensor<f32>) -> tensor<{batch}xf32>
  func.return %relu, %s : tensor<{batch}x4xf32>, tensor<{batch}xf32>
}}"""


@pytest.fixture
def every_program_large(monkeypatch):
    """Every program counts as large (else these small ones run whole on one thread)."""
    monkeypatch.setattr(xla_clients, "ONE_THREAD_WORK", 0)


def _inputs(batch: int) -> list[np.ndarray]:
    return [np.random.default_rng(batch).standard_normal((batch, 8)).astype(np.float32) * 4]


def _same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(x.dtype == y.dtype and x.shape == y.shape
                                    and x.tobytes() == y.tobytes() for x, y in zip(a, b))


def test_a_large_batch_runs_as_two_slices_with_each_samples_bits(every_program_large, monkeypatch):
    (x,) = _inputs(6)
    handle = qcomp.compile(parse_module(_program(6)), backend="xla")
    (fn,) = handle.xla_functions
    assert fn.error is None and fn.executable is None and fn.slices is not None
    assert len(fn.slices.executables) == 2 and fn.slices.part.function.function_type.inputs.data[0] \
        .get_shape() == (3, 8)
    clients = [e.client for e in fn.slices.executables]
    assert clients[0] is not clients[1] and clients[0] is xla_clients.one_thread_client(
        xla.load_jax().xc.make_cpu_client)
    (run,) = handle.run([x])
    assert run.error is None
    # the oracle: each sample alone through the interpreter (batch 1 program)
    one = qcomp.compile(parse_module(_program(1)), backend="numpy")
    per_sample = [one.run([x[i:i + 1]])[0].results for i in range(6)]
    assert _same(run.results, [np.concatenate(rs) for rs in zip(*per_sample)])
    # and the whole program on jax's client, as without slices
    monkeypatch.setattr(xla, "BATCH_SLICES", False)
    whole = qcomp.compile(parse_module(_program(6)), backend="xla")
    assert whole.xla_functions[0].slices is None
    assert _same(run.results, whole.run([x])[0].results)


def test_launch_then_wait_and_the_cached_run_use_the_slices(every_program_large):
    (x,) = _inputs(4)
    module = parse_module(_program(4))
    handle = qcomp.compile(module, backend="xla")
    assert handle.xla_functions[0].slices is not None
    want = handle.run([x])[0].results
    assert _same(handle.run([x], launched=handle.launch([x]))[0].results, want)
    for _ in range(2):  # qcomp.backends.run: prepared once, launched before its check
        (r,) = qcomp.backends.run(module, [x], backend="xla")
        assert r.error is None and _same(r.results, want)


@pytest.mark.parametrize("why, text", [
    ("a batch of 3 does not divide among 2 cores", _program(3)),
    ("the reduce mixes samples (over the batch)",
     _program(4).replace("across dimensions = [1]", "across dimensions = [0]")),
])
def test_programs_that_cannot_be_sliced_run_whole(every_program_large, why, text):
    module = parse_module(text)
    handle = qcomp.compile(module, backend="xla")
    (fn,) = handle.xla_functions
    assert fn.error is None and fn.slices is None and fn.executable is not None, why
    (x,) = _inputs(int(text.split("tensor<")[1].split("x")[0]))
    (want,) = qcomp.compile(module, backend="numpy").run([x])
    assert _same(handle.run([x])[0].results, want.results)
