"""Resize, Pad and ConvTranspose against onnxruntime and ONNX's reference evaluator,
on random shapes and attributes (`resize_pad_cases`; `EXAMPLES` hypothesis examples per
test (2 for the quantized ones), 200 (100) with QCOMP_RESIZE_PAD_FULL=1:
`tools/onnx_resize_pad_fuzz.py`).

- The float op, imported and run by qcomp's interpreter: Pad and nearest Resize equal
  to onnxruntime's unoptimized session and to the reference evaluator bit for bit (they
  move elements); linear / cubic Resize and ConvTranspose within float32 rounding of the
  sums (rtol 1e-5; their sums run in another order). The reference evaluator is skipped
  where it departs from the spec (`resize_pad_cases`: negative pads, align_corners with a
  non-integer n * scale, grouped ConvTranspose, output_shape); tf_crop_and_resize is
  checked against the reference alone (onnxruntime ignores roi on an axis of scale 1
  and tests nearest's rounded index, not x_original, against [0, n - 1]). Lowered by
  `onnx-legalize-to-stablehlo`, the program gives the interpreter's bits.
- The op after a 1x1 Conv quantized by `quantize_static` (uint8 activations, int8
  weights): the QDQ model, run by the interpreter and lowered to integer math
  (onnx-legalize-qdq-to-quant, onnx-legalize-to-stablehlo, stablehlo-legalize-quant-to-math),
  against onnxruntime's unoptimized session: within one output step (the float op's sums
  in another order, and StableHLO's quantize rounding `x / s + zp` once where ONNX
  rounds `x / s`, can land on the other side of a half); Pad and nearest Resize exactly
  from the interpreter. The QOperator model (QLinearConv, then Pad / Resize on the stored
  uint8 values, ConvTranspose in float between DequantizeLinear and QuantizeLinear):
  within one step likewise (linear Resize on uint8 truncates its float sum, as
  onnxruntime does; onnxruntime cannot run cubic Resize on uint8, so no cubic there);
  Pad and Resize on uint8 lowered by onnx-legalize-to-stablehlo give the interpreter's
  bits.
- The QDQ model with stablehlo-legalize-qdq-to-quantized-op after the lowering: a
  constant Pad becomes the quantized `stablehlo.pad`; within one step likewise.
- `onnx-fuse-qdq` drops the QDQ pair of a nearest Resize (onnxruntime's
  `drop_no_int16_support` rule; its optimized session keeps linear and cubic Resize in
  float) and leaves Pad and ConvTranspose (no rule): the fused model agrees with the QDQ
  one within one step.
"""

from __future__ import annotations

import os

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from qcomp.importers.onnx import import_model
from qcomp.interpreter import run
from tests.importers import resize_pad_cases as cases
from tests.importers.onnx_oracle import apply_passes

FULL = bool(os.environ.get("QCOMP_RESIZE_PAD_FULL"))
EXAMPLES = 200 if FULL else 4
Q_EXAMPLES = 100 if FULL else 2
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])
Q_SETTINGS = settings(SETTINGS, max_examples=Q_EXAMPLES)
LOWER = ["onnx-legalize-qdq-to-quant", "onnx-legalize-to-stablehlo",
         "stablehlo-legalize-quant-to-math"]
FUSE = ["onnx-legalize-qdq-to-quant", "onnx-legalize-to-stablehlo",
        "stablehlo-legalize-qdq-to-quantized-op"]
COUNTS: dict[str, int] = {}


def _count(key: str) -> None:
    COUNTS[key] = COUNTS.get(key, 0) + 1


def _qcomp(module, x) -> np.ndarray:
    (r,) = run(module, [x])
    assert r.error is None, r.error
    return np.asarray(r.results[0])



def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


def _exact(model) -> bool:
    op = model.graph.node[-1]
    if op.op_type == "Pad":
        return True
    modes = {a.name: a.s for a in op.attribute}
    return op.op_type == "Resize" and modes.get("mode", b"nearest") == b"nearest"


def _mode(model) -> bytes | None:
    op = model.graph.node[-1]
    return {a.name: a.s for a in op.attribute}.get("mode", b"constant" if op.op_type == "Pad"
                                                    else None)


def _float_case(case):
    model, shape, notes = case
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    module = import_model(model)
    got = _qcomp(module, x)
    oracles = [cases.onnxruntime_run(model, {"x": x})[0]] if notes["onnxruntime"] else []
    if notes["reference"]:
        try:
            oracles.append(cases.reference_run(model, {"x": x})[0])
        except ValueError:  # cubic pytorch_half_pixel of a length-1 input (onnx 1.21)
            _count("reference fails")
    if not oracles:  # onnxruntime departs and the reference fails
        _count("no oracle")
        return
    wants = {_bits(w.astype(np.float32)) for w in oracles}
    if _exact(model) and len(wants) > 1:
        # the oracles disagree (a float32 coordinate a rounding away from an integer:
        # onnxruntime's nearest index differs by one): equal to one of them
        assert _bits(got) in wants
        _count("oracles disagree")
        oracles = []
    for w in oracles:
        assert got.shape == w.shape
        if _exact(model):
            assert _bits(got) == _bits(w.astype(np.float32))
        else:
            np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-5)
    lowered = apply_passes(module, ["onnx-legalize-to-stablehlo"])
    assert '"onnx.' not in str(lowered)
    assert _bits(_qcomp(lowered, x)) == _bits(got)
    _count(f"{model.graph.node[0].op_type} float")


@given(cases.pad_cases())
@SETTINGS
def test_pad_float(case):
    _float_case(case)


@given(cases.resize_cases())
@SETTINGS
def test_resize_float(case):
    _float_case(case)


@given(cases.resize_cases(antialias=True))
@SETTINGS
def test_resize_antialias_float(case):
    """antialias = 1: onnxruntime's filter (Pillow's) and the reference evaluator's
    agree but where the reference departs from the spec's coordinates (as without
    antialias); onnxruntime runs it on 2-D to 5-D inputs of some scale patterns only
    (N x C x H x W here), qcomp and the reference on any axes."""
    _float_case(case)


@given(cases.conv_transpose_cases())
@SETTINGS
def test_conv_transpose_float(case):
    _float_case(case)


def _within_one_step(got, want, step, exact: bool) -> bool:
    if step is None:  # a float result (ConvTranspose after DequantizeLinear): rtol 1e-5
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        return np.array_equal(got, want)
    if exact:
        np.testing.assert_array_equal(got, want)
        return True
    assert np.max(np.abs(got.astype(np.float64) - want), initial=0) <= step * 1.0001
    return np.array_equal(got, want)


def _same_quantization(qmodel) -> bool:
    """The QDQ model's Pad reads and writes one scale and zero point (quantize_static
    gives the output the input's unless the padding value is not 0)."""
    from onnx import numpy_helper

    inits = {t.name: numpy_helper.to_array(t) for t in qmodel.graph.initializer}
    by_out = {o: n for n in qmodel.graph.node for o in n.output}
    pad = next(n for n in qmodel.graph.node if n.op_type == "Pad")
    dq = by_out[pad.input[0]]
    q = next(n for n in qmodel.graph.node if n.op_type == "QuantizeLinear"
             and n.input[0] == pad.output[0])
    return all(np.array_equal(inits[a], inits[b]) for a, b in zip(dq.input[1:], q.input[1:]))


def _quantized_case(case, seed, tmp_path):
    model, shape, notes = case
    assume(notes["onnxruntime"])
    op_type = model.graph.node[0].op_type
    float_model = cases.after_conv(model, shape, seed)
    exact_op = _exact(model)
    xs = [np.random.default_rng(seed + i).standard_normal(shape).astype(np.float32)
          for i in range(2)]
    for fmt in ("QDQ", "QOperator"):
        qmodel = cases.quantized(float_model, shape, seed, fmt, tmp_path)
        types = [n.op_type for n in qmodel.graph.node]
        if fmt == "QOperator":
            assert "QLinearConv" in types and op_type in types
        step = cases.output_step(qmodel)
        module = import_model(qmodel)
        lowered = apply_passes(import_model(qmodel), LOWER) if fmt == "QDQ" else None
        # QOperator: the op on the stored uint8 values lowered (QLinearConv stays)
        on_integers = apply_passes(import_model(qmodel), ["onnx-legalize-to-stablehlo"]) \
            if fmt == "QOperator" and op_type != "ConvTranspose" else None
        if on_integers is not None:
            assert f'"onnx.{op_type}"' not in str(on_integers)
        fused = apply_passes(import_model(qmodel), ["onnx-fuse-qdq"]) if fmt == "QDQ" else None
        quantized_ops = None
        if fmt == "QDQ":
            quantized_ops = apply_passes(import_model(qmodel), FUSE)
            pads = [o for o in quantized_ops.walk() if o.name == "stablehlo.pad"]
            if _mode(model) == b"constant" and _same_quantization(qmodel):
                # the quantized pad the spec allows (one type in and out)
                assert "!quant.uniform" in str(pads[0].results[0].type)
                _count("Pad QDQ quantized stablehlo.pad")
            quantized_ops = apply_passes(quantized_ops, ["stablehlo-legalize-quant-to-math"])
        if fused is not None:
            (target,) = [o for o in fused.walk() if o.name == f"onnx.{op_type}"]
            source = target.operands[0].owner.name
            # a nearest Resize's pair dropped: it reads QLinearConv's uint8 values; linear
            # and cubic Resize (onnxruntime keeps them in float), Pad, ConvTranspose stay
            nearest = op_type == "Resize" and _mode(model) in (None, b"nearest")
            assert source == ("onnx.QLinearConv" if nearest else "onnx.DequantizeLinear")
        for x in xs:
            want = cases.onnxruntime_run(qmodel, {"x": x})[0]
            got = _qcomp(module, x)
            same = _within_one_step(got, want, step, exact_op)
            _count(f"{op_type} {fmt} {'equal' if same else 'one step'}")
            if on_integers is not None:
                assert _bits(_qcomp(on_integers, x)) == _bits(got)
            if lowered is not None:
                low = _qcomp(lowered, x)
                same = _within_one_step(low, want, step, False)
                _count(f"{op_type} {fmt} lowered {'equal' if same else 'one step'}")
            if quantized_ops is not None:
                same = _within_one_step(_qcomp(quantized_ops, x), want, step, False)
                _count(f"{op_type} {fmt} quantized ops {'equal' if same else 'one step'}")
            if fused is not None:
                same = _within_one_step(_qcomp(fused, x), got, step, False)
                _count(f"{op_type} {fmt} fused {'equal' if same else 'one step'}")


@given(case=cases.pad_cases(negative=False, rank=4), seed=st.integers(0, 2**16))
@Q_SETTINGS
def test_pad_quantized(tmp_path, case, seed):
    _quantized_case(case, seed, tmp_path)


@given(case=cases.resize_cases(modes=("nearest", "linear"), crop=False), seed=st.integers(0, 2**16))
@Q_SETTINGS
def test_resize_quantized(tmp_path, case, seed):
    _quantized_case(case, seed, tmp_path)


@given(case=cases.resize_cases(modes=("linear", "cubic"), crop=False, antialias=True),
       seed=st.integers(0, 2**16))
@Q_SETTINGS
def test_resize_antialias_quantized(tmp_path, case, seed):
    """antialias on the stored uint8 values (QOperator, and the QDQ group onnxruntime
    fuses): onnxruntime's fixed-point passes, the last axis first."""
    _quantized_case(case, seed, tmp_path)


@given(case=cases.conv_transpose_cases(n=2), seed=st.integers(0, 2**16))
@Q_SETTINGS
def test_conv_transpose_quantized(tmp_path, case, seed):
    _quantized_case(case, seed, tmp_path)


def test_quantize_dynamic_leaves_them_float(tmp_path):
    """`quantize_dynamic` registers none of the three (IntegerOpsRegistry): they stay
    float ops in its output."""
    from onnxruntime.quantization import registry

    assert not {"Resize", "Pad", "ConvTranspose"} & set(registry.IntegerOpsRegistry)
    assert {"Resize", "Pad", "ConvTranspose"} <= set(registry.QDQRegistry)
    assert {"Resize", "Pad"} <= set(registry.QLinearOpsRegistry)
    assert "ConvTranspose" not in registry.QLinearOpsRegistry


def teardown_module():
    """The counts of a full run (`tools/onnx_resize_pad_fuzz.py` prints them)."""
    if FULL:
        for key in sorted(COUNTS):
            print(f"{key}: {COUNTS[key]}")
