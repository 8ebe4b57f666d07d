"""Random one-op ONNX models of Resize, Pad and ConvTranspose (hypothesis strategies),
their quantized forms (onnxruntime's `quantize_static`, QDQ and QOperator, the op after a
1x1 Conv), and the oracles: onnxruntime's unoptimized session and ONNX's
`ReferenceEvaluator`. Shared by `test_onnx_resize_pad.py` (a few examples) and
`tools/onnx_resize_pad_fuzz.py` (many)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import strategies as st

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

FLOAT = TensorProto.FLOAT


def _model(node, x_shape, inits, opset, out_type=FLOAT, x_type=FLOAT):
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", x_type, x_shape)],
                          [helper.make_tensor_value_info("y", out_type, None)], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def _arr(name, values, dtype):
    return numpy_helper.from_array(np.asarray(values, dtype), name)


@st.composite
def pad_cases(draw, negative=True, rank=None):
    """(model, input shape, oracle notes): Pad of a random mode, pads (negative ones crop:
    onnxruntime only), with or without axes and constant_value."""
    rank = rank or draw(st.integers(1, 4))
    shape = draw(st.lists(st.integers(1, 5), min_size=rank, max_size=rank))
    mode = draw(st.sampled_from(["constant", "reflect", "edge", "wrap"]))
    opset = draw(st.sampled_from([13, 18, 19, 21]))
    axes = list(range(rank))
    if opset >= 18 and draw(st.booleans()):
        axes = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    lo = -1 if negative and mode in ("constant", "edge") else 0
    pads = []
    for a in axes:
        top = shape[a] - 1 if mode == "reflect" else (shape[a] if mode == "wrap" else 3)
        pads.append(draw(st.lists(st.integers(min(lo, 0) if shape[a] > 2 else 0, top),
                                  min_size=2, max_size=2)))
    flat = [p[0] for p in pads] + [p[1] for p in pads]
    inits = [_arr("pads", flat, np.int64)]
    names = ["x", "pads"]
    if mode == "constant" and draw(st.booleans()):
        inits.append(_arr("cv", draw(st.sampled_from([0.0, 0.5, -1.25])), np.float32))
        names.append("cv")
    if axes != list(range(rank)) or (opset >= 18 and draw(st.booleans())):
        signed = [a - rank if draw(st.booleans()) else a for a in axes]
        inits.append(_arr("axes", signed, np.int64))
        names += [""] * (3 - len(names)) + ["axes"]
    model = _model(helper.make_node("Pad", names, ["y"], mode=mode), shape, inits, opset)
    return model, tuple(shape), {"reference": min(flat) >= 0, "onnxruntime": True}


@st.composite
def resize_cases(draw, modes=("nearest", "linear", "cubic"), crop=True, antialias=False):
    """Resize of an N x C x H x W input (onnxruntime resizes H and W for linear / cubic);
    `antialias`: antialias = 1 (opset 18+, linear / cubic), larger H and W and more
    downscales."""
    big = 12 if antialias else 6
    shape = [draw(st.integers(1, 2)), draw(st.integers(1, 3)),
             draw(st.integers(1, big)), draw(st.integers(1, big))]
    if antialias:
        modes = tuple(m for m in modes if m != "nearest")
    mode = draw(st.sampled_from(list(modes)))
    ctm = draw(st.sampled_from(["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                "align_corners", "asymmetric"]
                               + ["tf_crop_and_resize"] * crop))
    opset = draw(st.sampled_from([18, 19] if antialias else [13, 18, 19]))
    if ctm == "half_pixel_symmetric":
        opset = 19
    attrs = {"mode": mode, "coordinate_transformation_mode": ctm}
    if antialias:
        attrs["antialias"] = 1
        attrs["exclude_outside"] = draw(st.integers(0, 1))
    if mode == "nearest":
        attrs["nearest_mode"] = draw(st.sampled_from(["round_prefer_floor", "round_prefer_ceil",
                                                      "floor", "ceil"]))
    if mode == "cubic":
        attrs["cubic_coeff_a"] = draw(st.sampled_from([-0.75, -0.5]))
        attrs["exclude_outside"] = draw(st.integers(0, 1))
    inits = []
    roi = ""
    if ctm == "tf_crop_and_resize":
        # binary fractions: float32 and the reference's float64 coordinates agree
        lo = [draw(st.sampled_from([0.0, 0.25, -0.25])) for _ in range(2)]
        hi = [draw(st.sampled_from([1.0, 0.75, 1.25])) for _ in range(2)]
        inits.append(_arr("roi", [0, 0, *lo, 1, 1, *hi], np.float32))
        attrs["extrapolation_value"] = draw(st.sampled_from([0.0, -2.5]))
        roi = "roi"
    if ctm != "tf_crop_and_resize" and draw(st.booleans()):
        choices = [0.25, 0.3, 0.5, 0.6, 0.75, 1.0, 1.5] if antialias else \
            [0.5, 0.6, 1.0, 1.5, 2.0, 2.5, 3.0, 1.3]
        s = [draw(st.sampled_from(choices)) for _ in range(2)]
        inits.append(_arr("scales", [1, 1, *s], np.float32))
        names = ["x", roi, "scales"]
        exact = all(float(np.float32(n) * np.float32(v)).is_integer()
                    for n, v in zip(shape[2:], s))
        out = [int(np.floor(np.float32(n) * np.float32(v))) for n, v in zip(shape[2:], s)]
    else:
        s = [1, 1]
        sizes = [draw(st.integers(1, 9)) for _ in range(2)]  # downscales when antialias
        inits.append(_arr("sizes", [*shape[:2], *sizes], np.int64))
        names = ["x", roi, "", "sizes"]
        exact, out = True, sizes
    model = _model(helper.make_node("Resize", names, ["y"], **attrs), shape, inits, opset)
    # the reference evaluator's align_corners / half_pixel_symmetric use n * scale where
    # onnxruntime (and the spec's length_resized) use the integer output size; its
    # pytorch_half_pixel maps a length-1 output to -0.5 where the spec and onnxruntime
    # map it to 0
    ref = (exact or ctm not in ("align_corners", "half_pixel_symmetric",
                                "tf_crop_and_resize")) and not (
        ctm == "pytorch_half_pixel" and 1 in out)
    # onnxruntime ignores roi on an axis of scale 1 and tests nearest's rounded index
    # against [0, n - 1]: tf_crop_and_resize is checked against the reference alone
    # onnxruntime copies the input when the output shape equals it, whatever the scales
    same = list(out) == shape[2:] and any(v != 1 for v in s)
    return model, tuple(shape), {"reference": ref or ctm == "tf_crop_and_resize",
                                 "onnxruntime": ctm != "tf_crop_and_resize" and not same}


@st.composite
def conv_transpose_cases(draw, n=None):
    """ConvTranspose, 1-D to 3-D, with groups, strides, pads, dilations, output_padding,
    output_shape or auto_pad; a bias or none."""
    n = n or draw(st.integers(1, 3))
    g = draw(st.integers(1, 3))
    c, mg = g * draw(st.integers(1, 2)), draw(st.integers(1, 3))
    spatial = [draw(st.integers(1, 5 if n < 3 else 3)) for _ in range(n)]
    k = [draw(st.integers(1, 3)) for _ in range(n)]
    s = [draw(st.integers(1, 3)) for _ in range(n)]
    d = [draw(st.integers(1, 2)) for _ in range(n)]
    attrs: dict = {"strides": s, "dilations": d, "group": g}
    form = draw(st.sampled_from(["pads", "output_shape", "SAME_UPPER", "SAME_LOWER", "VALID"]))
    full = [st_ * (x - 1) + (kk - 1) * dd + 1 for st_, x, kk, dd in zip(s, spatial, k, d)]
    if form == "pads":
        attrs["pads"] = [draw(st.integers(0, max(0, (f - 1) // 2))) for f in full for _ in (0,)] \
            + [draw(st.integers(0, max(0, (f - 1) // 2))) for f in full]
        # below the stride: onnxruntime refuses a larger one (the spec allows below the
        # dilation too)
        attrs["output_padding"] = [draw(st.integers(0, st_ - 1)) for st_ in s]
    elif form == "output_shape" and all(f >= max(2, x) for f, x in zip(full, spatial)):
        # pads derived from output_shape (total >= 0); onnx 1.21's shape inference drops
        # an output_shape entry of 1 or below the input's size, so at least both
        attrs["output_shape"] = [draw(st.integers(max(2, x, f - 2), f))
                                 for f, x in zip(full, spatial)]
    else:
        attrs["auto_pad"] = "VALID" if form == "output_shape" else form
    x_shape = [draw(st.integers(1, 2)), c, *spatial]
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    inits = [_arr("w", rng.standard_normal((c, mg, *k)) * 0.5, np.float32)]
    names = ["x", "w"]
    if draw(st.booleans()):
        inits.append(_arr("b", rng.standard_normal(mg * g) * 0.5, np.float32))
        names.append("b")
    node = helper.make_node("ConvTranspose", names, ["y"], **attrs)
    model = _model(node, x_shape, inits, draw(st.sampled_from([13, 17])))
    # the reference evaluator fails on group > 1, ignores output_shape's pads and pads
    # SAME_* negatively where onnxruntime takes no padding
    short = any(f < x * st_ for f, x, st_ in zip(full, spatial, s))
    return model, tuple(x_shape), {"reference": g == 1 and form != "output_shape"
                                   and not (form.startswith("SAME") and short),
                                   "onnxruntime": True}


def onnxruntime_run(model, feeds: dict, optimized: bool = False) -> list[np.ndarray]:
    so = ort.SessionOptions()
    so.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimized
                                   else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    s = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return s.run(None, feeds)


def reference_run(model, feeds: dict) -> list[np.ndarray]:
    from onnx.reference import ReferenceEvaluator

    return ReferenceEvaluator(model).run(None, feeds)


def after_conv(model, x_shape, seed: int):
    """The one-op model with a 1x1 Conv (C -> C channels) before its op: what
    `quantize_static` quantizes with the op's usual neighbour."""
    rng = np.random.default_rng(seed)
    g = model.graph
    node = g.node[0]
    c = x_shape[1]
    conv = helper.make_node("Conv", ["x", "cw", "cb"], ["xc"])
    op = helper.make_node(node.op_type, ["xc", *node.input[1:]], ["y"])
    op.attribute.extend(node.attribute)
    inits = [*g.initializer, _arr("cw", rng.standard_normal((c, c, 1, 1)) * 0.7, np.float32),
             _arr("cb", rng.standard_normal(c) * 0.2, np.float32)]
    graph = helper.make_graph([conv, op], "g", list(g.input), list(g.output), inits)
    return helper.make_model(graph, opset_imports=list(model.opset_import))


def quantized(model, x_shape, seed: int, fmt: str, tmp_path):
    """`quantize_static` of `model` (QDQ or QOperator; uint8 activations, int8 weights),
    calibrated on 8 normal inputs."""
    from onnxruntime import quantization as q

    rng = np.random.default_rng(seed)

    class Reader(q.CalibrationDataReader):
        def __init__(self):
            self.it = iter([{"x": rng.standard_normal(x_shape).astype(np.float32)}
                            for _ in range(8)])

        def get_next(self):
            return next(self.it, None)

    src, dst = tmp_path / f"f{seed}.onnx", tmp_path / f"q{seed}_{fmt}.onnx"
    onnx.save(model, src)
    q.quantize_static(str(src), str(dst), Reader(),
                      quant_format=getattr(q.QuantFormat, fmt),
                      activation_type=q.QuantType.QUInt8, weight_type=q.QuantType.QInt8)
    return onnx.load(dst)


def output_step(qmodel) -> float | None:
    """The scale of the graph output's DequantizeLinear (one quantization step); None
    when a float op computes the output (QOperator's ConvTranspose)."""
    by_out = {n.output[0]: n for n in qmodel.graph.node}
    dq = by_out[qmodel.graph.output[0].name]
    if dq.op_type != "DequantizeLinear":
        return None
    inits = {t.name: numpy_helper.to_array(t) for t in qmodel.graph.initializer}
    return float(inits[dq.input[1]])
