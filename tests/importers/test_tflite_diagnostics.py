"""Malformed `.tflite` models (issue 29's importer classes, and 16x8 contractions): each
is one line `qcomp-opt: error: <file>: operator N (NAME): ...` naming the operator and
the tensor or option, exit code 1, no Python exception text and no warning line."""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert.schema_py_generated")

import flatbuffers

from qcomp.tools.qcomp_opt import main as qcomp_opt
from qcomp.tools.qcomp_run import main as qcomp_run
from tests.importers.tflite_models import Model, run_litert, schema

OPS = schema.BuiltinOperator
OPTS = schema.BuiltinOptions


def _repack(model: bytes, change) -> bytes:
    """`model` unpacked to the schema's object API, changed by `change(ModelT)`, packed."""
    m = schema.ModelT.InitFromObj(schema.Model.GetRootAs(model, 0))
    change(m)
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def _add(out_scale: float = 0.5) -> bytes:
    m = Model()
    a = m.tensor([4], scale=0.5, zero_point=0)
    b = m.tensor([4], scale=0.5, zero_point=0)
    y = m.tensor([4], scale=out_scale, zero_point=0)
    o = schema.AddOptionsT()
    o.fusedActivationFunction = 1  # RELU: its bounds divide by the output scale
    m.op(OPS.ADD, [a, b], [y], o, OPTS.AddOptions)
    m.inputs, m.outputs = [a, b], [y]
    return m.build()


def _conv(padding: int = 0, stride: int = 1, options: bool = True) -> bytes:
    m = Model()
    x = m.tensor([1, 4, 4, 2], scale=0.5, zero_point=0)
    w = m.tensor([2, 2, 2, 2], scale=[0.1, 0.2], zero_point=[0, 0],
                 data=np.ones((2, 2, 2, 2), np.int8), axis=0)
    b = m.tensor([2], np.int32, scale=[0.05, 0.1], zero_point=[0, 0],
                 data=np.zeros(2, np.int32))
    y = m.tensor([1, 4, 4, 2], scale=1.0, zero_point=0)
    o = schema.Conv2DOptionsT()
    o.padding, o.strideH, o.strideW = padding, stride, stride
    m.op(OPS.CONV_2D, [x, w, b], [y], o if options else None,
         OPTS.Conv2DOptions if options else 0)
    m.inputs, m.outputs = [x], [y]
    return m.build()


def _fully_connected(inputs=(0, 1, 2), bias_bytes: int = 8) -> bytes:
    m = Model()
    x = m.tensor([1, 2], scale=0.5, zero_point=0)
    w = m.tensor([2, 2], scale=0.25, zero_point=0, data=np.ones((2, 2), np.int8))
    b = m.tensor([2], np.int32, scale=0.125, zero_point=0, data=np.zeros(2, np.int32))
    y = m.tensor([1, 2], scale=1.0, zero_point=0)
    m.buffers[m.tensors[b].buffer].data = np.zeros(bias_bytes, np.uint8)
    m.op(OPS.FULLY_CONNECTED, [[x, w, b][i] if i >= 0 else -1 for i in inputs], [y],
         schema.FullyConnectedOptionsT(), OPTS.FullyConnectedOptions)
    m.inputs, m.outputs = [x], [y]
    return m.build()


def _pool(code: int, shape, dtype=np.int8, stride: int = 1) -> bytes:
    m = Model()
    x = m.tensor(shape, dtype, scale=0.5, zero_point=0)
    y = m.tensor(shape, dtype, scale=0.5, zero_point=0)
    o = schema.Pool2DOptionsT()
    o.strideH = o.strideW = stride
    o.filterHeight = o.filterWidth = 1
    m.op(code, [x], [y], o, OPTS.Pool2DOptions)
    m.inputs, m.outputs = [x], [y]
    return m.build()


def _softmax_with(options, options_type: int) -> bytes:
    m = Model()
    x = m.tensor([1, 4], scale=0.5, zero_point=0)
    y = m.tensor([1, 4], scale=1 / 256, zero_point=-128)
    m.op(OPS.SOFTMAX, [x], [y], options, options_type)
    m.inputs, m.outputs = [x], [y]
    return m.build()


def _mean_of_scalar() -> bytes:
    m = Model()
    x = m.tensor([], scale=0.5, zero_point=0)
    a = m.tensor([1], np.int32, data=np.array([0], np.int32))
    y = m.tensor([], scale=0.5, zero_point=0)
    m.op(OPS.MEAN, [x, a], [y], schema.ReducerOptionsT(), OPTS.ReducerOptions)
    m.inputs, m.outputs = [x], [y]
    return m.build()


def _add_into_2x4() -> bytes:
    m = Model()
    a = m.tensor([4], scale=0.5, zero_point=0)
    b = m.tensor([4], scale=0.5, zero_point=0)
    y = m.tensor([2, 4], scale=0.5, zero_point=0)
    m.op(OPS.ADD, [a, b], [y], schema.AddOptionsT(), OPTS.AddOptions)
    m.inputs, m.outputs = [a, b], [y]
    return m.build()


def _reshape_to_4x6() -> bytes:
    m = Model()
    x = m.tensor([2, 3, 4], scale=0.5, zero_point=0)
    shape = m.tensor([2], np.int32, data=np.array([4, 6], np.int32))
    y = m.tensor([6, 4], scale=0.5, zero_point=0)
    m.op(OPS.RESHAPE, [x, shape], [y], schema.ReshapeOptionsT(), OPTS.ReshapeOptions)
    m.inputs, m.outputs = [x], [y]
    return m.build()


def _mean_keep_dims() -> bytes:
    m = Model()
    x = m.tensor([1, 3, 4, 2], scale=0.5, zero_point=0)
    a = m.tensor([2], np.int32, data=np.array([1, 2], np.int32))
    y = m.tensor([1, 2], scale=0.5, zero_point=0)
    o = schema.ReducerOptionsT()
    o.keepDims = True
    m.op(OPS.MEAN, [x, a], [y], o, OPTS.ReducerOptions)
    m.inputs, m.outputs = [x], [y]
    return m.build()


def _set_name(model: bytes, index: int, name: bytes) -> bytes:
    def change(m):
        m.subgraphs[0].tensors[index].name = name
    return _repack(model, change)


def _custom_code(model: bytes) -> bytes:
    def change(m):
        m.operatorCodes[0].builtinCode = m.operatorCodes[0].deprecatedBuiltinCode = \
            OPS.CUSTOM
        m.operatorCodes[0].customCode = b"\xffop"
    return _repack(model, change)


def _weight_scale(value: float) -> bytes:
    def change(m):
        m.subgraphs[0].tensors[1].quantization.scale = [0.1, value]
    return _repack(_conv(), change)


def _three_zero_points() -> bytes:
    def change(m):
        m.subgraphs[0].tensors[1].quantization.zeroPoint = [0, 0, 0]
    return _repack(_conv(), change)


def _options(**fields):
    def change(m):
        for k, v in fields.items():
            setattr(m.subgraphs[0].operators[0].builtinOptions, k, v)
    return change


def _int16_input() -> bytes:
    def change(m):
        m.subgraphs[0].tensors[0].type = schema.TensorType.INT16
    return _repack(_fully_connected(), change)


CASES = {
    # 6: names that are not UTF-8
    "tensor-name": (lambda: _set_name(_add(), 2, b"\xfeb"),
                    "operator 0 (ADD): tensor 2: the name is not UTF-8: b'\\xfeb'"),
    "custom-opcode": (lambda: _custom_code(_add()),
                      "operator 0: the custom opcode is not UTF-8: b'\\xffop'"),
    # 7, 8: the options table missing, or another operator's
    "options-missing": (lambda: _conv(options=False),
                        ("operator 0 (CONV_2D): the builtin options table Conv2DOptions is "
                        "missing")),
    "options-of-another-op": (
        lambda: _softmax_with(schema.FullyConnectedOptionsT(), OPTS.FullyConnectedOptions),
        ("operator 0 (SOFTMAX): builtin options are FullyConnectedOptions, expected "
        "SoftmaxOptions")),
    # 9, 15: output scales 0, NaN, a denormal; inf / NaN weight scales
    "add-output-scale-0": (lambda: _add(0.0), ("operator 0 (ADD): tensor 2 ('t2'): scale 0 "
                           "is not a positive finite normal f32")),
    "add-output-scale-nan": (lambda: _add(float("nan")), ("operator 0 (ADD): tensor 2 "
                             "('t2'): scale nan is not a positive finite normal f32")),
    "add-output-scale-1e-45": (lambda: _add(1e-45), ("operator 0 (ADD): tensor 2 ('t2'): "
                               "scale 1.4013e-45 is not a positive finite normal f32")),
    "weight-scale-inf": (lambda: _weight_scale(float("inf")), ("operator 0 (CONV_2D): "
                         "tensor 1 ('t1'): scale inf is not a positive finite normal f32")),
    "weight-scale-nan": (lambda: _weight_scale(float("nan")), ("operator 0 (CONV_2D): "
                         "tensor 1 ('t1'): scale nan is not a positive finite normal f32")),
    # 10: stride 0
    "conv-stride-0": (lambda: _conv(stride=0),
                      "operator 0 (CONV_2D): option strideW = 0 must be positive"),
    "average-pool-stride-0": (lambda: _pool(OPS.AVERAGE_POOL_2D, [1, 2, 2, 1], stride=0),
                              ("operator 0 (AVERAGE_POOL_2D): option strideW = 0 must be "
                              "positive")),
    # 11: zero points against scales, a buffer that is not whole int32 values
    "zero-point-count": (_three_zero_points,
                         ("operator 0 (CONV_2D): tensor 1 ('t1'): 3 zero points for 2 "
                         "scales")),
    "int32-buffer-size": (lambda: _fully_connected(bias_bytes=7),
                          ("operator 0 (FULLY_CONNECTED): tensor 2 ('t2'): buffer of 7 bytes "
                          "is not a whole number of INT32 values")),
    # 12: a required input given as -1
    "required-input-absent": (lambda: _fully_connected((0, -1, 2)),
                              ("operator 0 (FULLY_CONNECTED): input 1 (weights) is required, "
                              "given as -1")),
    # 13: operand rank, count, type
    "average-pool-rank-1": (lambda: _pool(OPS.AVERAGE_POOL_2D, [4]),
                            ("operator 0 (AVERAGE_POOL_2D): input 0 (input) tensor 0 ('t0') "
                            "has rank 1; AVERAGE_POOL_2D takes rank 4")),
    "fully-connected-one-input": (lambda: _fully_connected((0,)),
                                  ("operator 0 (FULLY_CONNECTED): takes 2 to 3 inputs, 1 "
                                  "given")),
    "max-pool-int32": (lambda: _pool(OPS.MAX_POOL_2D, [1, 2, 2, 1], np.int32),
                       ("operator 0 (MAX_POOL_2D): input 0 (input) tensor 0 ('t0') is INT32; "
                       "MAX_POOL_2D takes INT8, INT16, UINT8, FLOAT32")),
    "mean-of-a-scalar": (_mean_of_scalar, ("operator 0 (MEAN): input 0 (input) tensor 0 "
                         "('t0') has rank 0; MEAN takes rank >= 1")),
    # 14: every enum value checked
    "conv-padding-99": (lambda: _conv(padding=99), ("operator 0 (CONV_2D): option padding = "
                        "99 is neither SAME (0) nor VALID (1)")),
    "fused-activation-99": (lambda: _repack(_add(), _options(fusedActivationFunction=99)),
                            ("operator 0 (ADD): option fusedActivationFunction = 99 is not an "
                            "ActivationFunctionType (NONE, RELU, RELU_N1_TO_1, RELU6)")),
    "fused-activation-tanh": (lambda: _repack(_add(), _options(fusedActivationFunction=4)),
                              ("operator 0 (ADD): option fusedActivationFunction = 4 (TANH) is "
                              "not supported")),
    "weights-format-shuffled": (lambda: _repack(_fully_connected(), _options(weightsFormat=1)),
                                ("operator 0 (FULLY_CONNECTED): option weightsFormat = 1 "
                                "(SHUFFLED4x16INT8) is not supported")),
    # shapes LiteRT computes itself: a model declaring others would run with LiteRT's
    "add-output-not-broadcast": (_add_into_2x4, ("operator 0 (ADD): output shape [2, 4] is "
                                 "not the inputs' broadcast shape [4]")),
    "reshape-new-shape": (_reshape_to_4x6, ("operator 0 (RESHAPE): new shape [4, 6] is not "
                          "the output's [6, 4]")),
    "mean-keep-dims": (_mean_keep_dims, ("operator 0 (MEAN): output shape [1, 2] is not "
                       "[1, 1, 1, 2], the mean over axes [1, 2] of [1, 3, 4, 2] (keep_dims "
                       "True)")),
    # issue 26: a contraction is int8 x int8 -> int8 or 16x8
    "fully-connected-16-to-8": (_int16_input,
                                ("operator 0 (FULLY_CONNECTED): tensor 0 ('t0') is INT16, "
                                 "tensor 1 ('t1') INT8 and tensor 3 ('t3') INT8: a "
                                 "contraction takes int8 x int8 -> int8 or (16x8) int16 x "
                                 "int8 -> int16")),
}


def _run(main, tmp_path, model: bytes) -> tuple[int, str, str]:
    path = tmp_path / "m.tflite"
    path.write_bytes(model)
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning would be a line on stderr
        code = main([str(path)], io.StringIO(""), out, err)
    return code, out.getvalue(), err.getvalue().replace(str(path), "m.tflite")


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_model_is_one_line_naming_the_operator(tmp_path, name):
    make, message = CASES[name]
    code, out, err = _run(qcomp_opt, tmp_path, make())
    assert (code, out, err) == (1, "", f"qcomp-opt: error: m.tflite: {message}\n")


def test_qcomp_run_gives_its_input_error_code(tmp_path):
    from tests.tools.test_model_import_errors import CODES

    code, out, err = _run(qcomp_run, tmp_path, _conv(padding=99))
    assert (code, out) == (CODES["qcomp-run"][1], "")
    assert err == ("qcomp-run: error: m.tflite: operator 0 (CONV_2D): option padding = 99 "
                   "is neither SAME (0) nor VALID (1)\n")


def test_litert_refuses_padding_99_too():
    """The oracle for class 14: LiteRT does not run a CONV_2D with padding 99 (and
    runs the same model with VALID padding)."""
    x = np.ones((1, 4, 4, 2), np.int8)
    run_litert(_conv(padding=1), [x])
    with pytest.raises(Exception):  # noqa: B017 - LiteRT raises RuntimeError or ValueError
        run_litert(_conv(padding=99), [x])


def _weight_zero_point_3() -> bytes:
    def change(m):
        m.subgraphs[0].tensors[1].quantization.zeroPoint = [3, 3]
    return _repack(_conv(), change)


def test_checks_after_import_name_the_operator_not_a_line_of_generated_text(tmp_path):
    """Diagnostics on an imported model's ops (a pass, a check, the verifier) are
    located at the operator the op was built for (`loc("operator N (NAME)")` in the
    imported text), never at a line:col of MLIR the user has not seen."""
    path = tmp_path / "m.tflite"
    path.write_bytes(_weight_zero_point_3())
    out, err = io.StringIO(), io.StringIO()
    code = qcomp_opt([str(path), "--litert-verify-int8"], io.StringIO(""), out, err)
    assert (code, out.getvalue()) == (1, "")
    assert err.getvalue().replace(str(path), "m.tflite") == (
        "m.tflite: operator 0 (CONV_2D): error: litert-verify-int8: CONV_2D weight "
        "[weight-zero-point]: weights are symmetric: zero point must be 0, got 3 "
        "(channel 0)\n")
    code, out, err = _run(qcomp_run, tmp_path, _conv())  # no inputs given
    assert (code, out) == (1, "")
    assert err == ("m.tflite: error: @main takes 1 argument(s) (1x4x4x2xi8): pass them "
                   "with --input=1x4x4x2xi8=... (in order) or --inputs IN.npz\n")
