"""`.tflite` import and `rescale=fixed-point` against LiteRT's interpreter, bit for bit.

Each supported operator gets random tiny int8 models (`litert_cases`,
`litert_cases_more`), run by LiteRT with the reference kernels
(`OpResolverType.BUILTIN_REF`) and by qcomp: imported, lowered with
`stablehlo-legalize-quant-to-math{rescale=fixed-point}`, run by qcomp's interpreter.
CI runs SEEDS seeds per op; `python3 tools/litert_differential.py` runs 200
(QCOMP_LITERT_SEEDS). The optimised kernels (`BUILTIN`, XNNPACK) are compared too, and
the test names the ops where they round differently and by how much.
"""

from __future__ import annotations

import functools
import os

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert.interpreter")

from qcomp.importers.tflite import import_tflite  # noqa: E402
from qcomp.interpreter import run  # noqa: E402
from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass  # noqa: E402
from qcomp.registry import make_context, parse_module  # noqa: E402
from tests.importers.litert_cases import CASES as CASES_18  # noqa: E402
from tests.importers.litert_cases import OPS  # noqa: E402
from tests.importers.litert_cases_int8 import CASES as INT8  # noqa: E402
from tests.importers.litert_cases_more import CASES as MORE  # noqa: E402
from tests.importers.litert_cases_more2 import CASES as MORE2  # noqa: E402
from tests.importers.tflite_models import run_litert  # noqa: E402

CASES = {**CASES_18, **MORE, **INT8, **MORE2}
SEEDS = int(os.environ.get("QCOMP_LITERT_SEEDS", "3"))


@functools.cache
def imported(model: bytes) -> str:
    """`import_tflite(model)`, made once a model (`test_spec_semantics_runs_every_operator`
    imports the models of seed 0 again)."""
    return import_tflite(model)


def qcomp_run(model: bytes, feeds) -> list[np.ndarray]:
    ctx = make_context()
    module = parse_module(imported(model), ctx)
    module.verify()
    LegalizeQuantToMathPass(rescale="fixed-point").apply(ctx, module)
    module.verify()
    (fr,) = run(module, list(feeds), semantics="spec")[:1]
    assert fr.error is None, fr.error
    return [np.asarray(r) for r in fr.results]


def steps(got: np.ndarray, want: np.ndarray) -> float:
    """The largest difference (storage steps; for float results, absolute)."""
    got = np.asarray(got).reshape(want.shape)
    if want.dtype.kind == "f":
        same = np.array_equal(got.astype(np.float32).view(np.int32), want.view(np.int32))
        return 0.0 if same else float(np.max(np.abs(got.astype(np.float64) - want)))
    return float(np.max(np.abs(got.astype(np.int64) - want.astype(np.int64)), initial=0))


@pytest.mark.parametrize("seed", range(SEEDS))
@pytest.mark.parametrize("op", sorted(CASES))
def test_reference_kernels_bit_for_bit(op, seed):
    model, feeds = CASES[op](np.random.default_rng(seed))
    want = run_litert(model, feeds, "BUILTIN_REF")
    got = qcomp_run(model, feeds)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        d = steps(g, w)
        assert d == 0, f"{op} seed {seed}: {d} steps from LiteRT's reference kernel"


# The optimised kernels are not the reference: measured over 200 seeds per op (seeds
# 1000..1199), they differ from the reference kernels on these ops by at most (storage
# steps; DEQUANTIZE: absolute f32 difference) with BUILTIN (XNNPACK delegate) and
# BUILTIN_WITHOUT_DEFAULT_DELEGATES (TFLite's optimised kernels); all other ops agree.
# SUM: the reference kernel reads int8 as uint8 (`test_reference_sum_reads_int8_as_uint8`).
OPTIMISED_DIFFER = {
    "BUILTIN": {"CONV_2D": 1, "DEPTHWISE_CONV_2D": 1, "MEAN": 1, "MUL": 1, "QUANTIZE": 1,
                "LEAKY_RELU": 1, "TRANSPOSE_CONV": 1, "RESIZE_BILINEAR": 1, "SUM": 255},
    "BUILTIN_WITHOUT_DEFAULT_DELEGATES": {"CONV_2D": 1, "FULLY_CONNECTED": 1, "MEAN": 1,
                                          "DEQUANTIZE": 2.0 ** -13, "SUM": 255},
}


@pytest.mark.parametrize("op", sorted(CASES))
def test_optimised_kernels_differ_by_at_most(op):
    for seed in range(SEEDS):
        model, feeds = CASES[op](np.random.default_rng(1000 + seed))
        ref = run_litert(model, feeds, "BUILTIN_REF")
        for resolver, bound in OPTIMISED_DIFFER.items():
            for g, w in zip(run_litert(model, feeds, resolver), ref):
                d = steps(g, w)
                assert d <= bound.get(op, 0), \
                    f"{op} seed {1000 + seed}: {resolver} differs from the reference by {d}"


def test_quantize_rounds_exact_ties_away_from_zero():
    """float -> int8 QUANTIZE on exact ties ((k + 1/2) * 2^-3): TFLite's AffineQuantize
    rounds them away from zero, then adds the zero point; round-half-even differs."""
    from tests.importers.tflite_models import Model

    m = Model()
    x = m.tensor([2, 40], np.float32)
    y = m.tensor([2, 40], scale=0.125, zero_point=3)
    m.inputs, m.outputs = [x], [y]
    m.op(OPS.QUANTIZE, [x], [y])
    model = m.build()
    k = np.arange(-40, 40, dtype=np.float32).reshape(2, 40)
    feed = ((k + np.float32(0.5)) * np.float32(0.125)).astype(np.float32)
    (want,) = run_litert(model, [feed])
    (got,) = qcomp_run(model, [feed])
    np.testing.assert_array_equal(got.reshape(want.shape), want)
    half_even = np.clip(np.round(feed / np.float32(0.125)) + 3, -128, 127)
    assert np.count_nonzero(half_even != want) == 40  # every other tie


def test_reference_sum_reads_int8_as_uint8():
    """LiteRT 2.3's BUILTIN_REF int8 SUM (new output parameters or not) is the uint8 kernel
    on int8 tensors: int8(clamp(MBQM(Σ (q mod 256) - z_in n, s_in / s_out) + z_out, 0,
    255)) (qcomp follows it, `qcomp.tflite.reducers`); the optimised kernels sum q."""
    from ai_edge_litert.interpreter import Interpreter

    from qcomp.quant.tflite import mbqm, quantize_multiplier
    from tests.importers.litert_cases_int8 import CASES as INT8_CASES

    differ = 0
    for seed in range(6):
        model, (x,) = INT8_CASES["SUM"](np.random.default_rng(seed))
        it = Interpreter(model_content=model)
        (din,), (dout,) = it.get_input_details(), it.get_output_details()
        (si, zi), (so, zo) = din["quantization"], dout["quantization"]
        axes = tuple(sorted({int(a) % x.ndim for a in it.get_tensor(1).reshape(-1)}))
        n = int(np.prod([x.shape[a] for a in axes]))
        m, e = quantize_multiplier(float(np.float32(si)) / float(np.float32(so)))
        u8 = np.clip(mbqm((x.astype(np.int64) % 256).sum(axis=axes) - zi * n, m, e) + zo,
                     0, 255)
        want = u8.astype(np.uint8).view(np.int8)
        (ref,) = run_litert(model, [x], "BUILTIN_REF")
        np.testing.assert_array_equal(ref.reshape(-1), want.reshape(-1))
        (opt,) = run_litert(model, [x], "BUILTIN_WITHOUT_DEFAULT_DELEGATES")
        differ += not np.array_equal(ref, opt)
    assert differ >= 1


@pytest.mark.parametrize("op", sorted(CASES))
def test_spec_semantics_runs_every_operator(op):
    """The imported program (not lowered) under `--semantics spec`, as `qcomp-run
    model.tflite --semantics spec` runs it: every operator runs (MAX_POOL_2D's quantized
    reduce_window, the reducers' reduce: dequantize -> reduce -> quantize), within one
    step of LiteRT (SUM: of its optimised kernels; the reference one reads int8 as
    uint8)."""
    model, feeds = CASES[op](np.random.default_rng(0))
    module = parse_module(imported(model), make_context())
    (fr,) = run(module, list(feeds), semantics="spec")[:1]
    assert fr.error is None, fr.error
    resolver = "BUILTIN_WITHOUT_DEFAULT_DELEGATES" if op == "SUM" else "BUILTIN_REF"
    for g, w in zip(fr.results, run_litert(model, feeds, resolver)):
        assert steps(np.asarray(g), w) <= 1, op
