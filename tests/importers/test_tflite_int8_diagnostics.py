"""Malformed one-op models of the int8 operators issue 26 added (splits, GATHER,
SELECT, the reducers, ARG_MAX, L2_NORMALIZATION), an operator still outside the set, and
the 16x8 operators LiteRT has no int16 kernel for: each is one line `qcomp-opt: error: <file>: operator N (NAME): ...`,
exit code 1, as `test_tflite_diagnostics` asks of the others."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert.schema_py_generated")

from qcomp.tools.qcomp_opt import main as qcomp_opt
from tests.importers.test_tflite_diagnostics import _run
from tests.importers.tflite_models import Model, schema

OPS = schema.BuiltinOperator
OPTS = schema.BuiltinOptions


def _split(num_splits: int, outputs: int) -> bytes:
    m = Model()
    axis = m.tensor([], np.int32, data=np.array(0, np.int32))
    x = m.tensor([4, 2], scale=0.5, zero_point=1)
    ys = [m.tensor([4 // max(outputs, 1), 2], scale=0.5, zero_point=1) for _ in range(outputs)]
    o = schema.SplitOptionsT()
    o.numSplits = num_splits
    m.op(OPS.SPLIT, [axis, x], ys, o, OPTS.SplitOptions)
    m.inputs, m.outputs = [x], ys
    return m.build()


def _unpack(num: int) -> bytes:
    m = Model()
    x = m.tensor([3, 2], scale=0.5, zero_point=1)
    ys = [m.tensor([2], scale=0.5, zero_point=1) for _ in range(3)]
    o = schema.UnpackOptionsT()
    o.num, o.axis = num, 0
    m.op(OPS.UNPACK, [x], ys, o, OPTS.UnpackOptions)
    m.inputs, m.outputs = [x], ys
    return m.build()


def _gather(batch_dims: int = 0, index: int = 1, axis: int = 0, ishape=(1,)) -> bytes:
    m = Model()
    x = m.tensor([3, 2], scale=0.5, zero_point=1)
    idx = m.tensor(list(ishape), np.int32, data=np.full(ishape, index, np.int32))
    y = m.tensor([1, 2], scale=0.5, zero_point=1)
    o = schema.GatherOptionsT()
    o.axis, o.batchDims = axis, batch_dims
    m.op(OPS.GATHER, [x, idx], [y], o, OPTS.GatherOptions)
    m.inputs, m.outputs = [x], [y]
    return m.build()


def _reduce_max_new_scale() -> bytes:
    m = Model()
    x = m.tensor([2, 3], scale=0.5, zero_point=1)
    axes = m.tensor([1], np.int32, data=np.array([1], np.int32))
    y = m.tensor([2], scale=0.25, zero_point=1)
    m.op(OPS.REDUCE_MAX, [x, axes], [y], schema.ReducerOptionsT(), OPTS.ReducerOptions)
    m.inputs, m.outputs = [x], [y]
    return m.build()


def _arg_max_float_output() -> bytes:
    m = Model()
    x = m.tensor([2, 3], scale=0.5, zero_point=1)
    axis = m.tensor([1], np.int32, data=np.array([1], np.int32))
    y = m.tensor([2], np.float32)
    m.op(OPS.ARG_MAX, [x, axis], [y], schema.ArgMaxOptionsT(), OPTS.ArgMaxOptions)
    m.inputs, m.outputs = [x], [y]
    return m.build()


def _unary(op, out_scale: float = 0.5) -> bytes:
    m = Model()
    x = m.tensor([2, 3], scale=0.5, zero_point=1)
    y = m.tensor([2, 3], scale=out_scale, zero_point=0)
    m.op(op, [x], [y])
    m.inputs, m.outputs = [x], [y]
    return m.build()


CASES = {
    "split-no-outputs": (lambda: _split(1, 0),
                         "operator 0 (SPLIT): has no outputs, takes at least 1"),
    "split-not-dividing": (lambda: _split(3, 3), "operator 0 (SPLIT): numSplits = 3 does "
                           "not divide dimension 0 of size 4"),
    "unpack-num": (lambda: _unpack(2), "operator 0 (UNPACK): num = 2 but dimension 0 has "
                   "size 3"),
    "gather-batch-dims": (lambda: _gather(batch_dims=1), "operator 0 (GATHER): option "
                          "batchDims = 1 must be in [0, 0] (at most the axis 0 and the "
                          "indices' rank 1; negative counts from the indices' rank)"),
    "gather-batch-dims-differ": (lambda: _gather(1, 0, 1, (2, 1)), "operator 0 (GATHER): "
                                 "the first 1 dimensions of tensor 0 ('t0') [3, 2] and "
                                 "tensor 1 ('t1') [2, 1] differ (batchDims)"),
    "gather-index-out-of-range": (lambda: _gather(index=3), "operator 0 (GATHER): tensor 1 "
                                  "('t1') holds an index outside [0, 3)"),
    "reduce-max-new-scale": (_reduce_max_new_scale, "operator 0 (REDUCE_MAX): input and "
                             "output must have the same scale and zero point (tensors 0 "
                             "and 2)"),
    "arg-max-float-output": (_arg_max_float_output, "operator 0 (ARG_MAX): tensor 2 ('t2') "
                             "must be INT32 or INT64, not FLOAT32"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_model_is_one_line_naming_the_operator(tmp_path, name):
    make, message = CASES[name]
    code, out, err = _run(qcomp_opt, tmp_path, make())
    assert (code, out, err) == (1, "", f"qcomp-opt: error: m.tflite: {message}\n")


def test_an_operator_outside_the_supported_set_is_one_line(tmp_path):
    code, out, err = _run(qcomp_opt, tmp_path, _unary(OPS.UNIDIRECTIONAL_SEQUENCE_LSTM))
    assert (code, out) == (1, "")
    assert err.startswith("qcomp-opt: error: m.tflite: operator 0 "
                          "(UNIDIRECTIONAL_SEQUENCE_LSTM): operator not supported by the "
                          "qcomp importer (supported: ")
    assert err.count("\n") == 1 and "LOG_SOFTMAX, " in err and "SPLIT_V, " in err


@pytest.mark.parametrize("op", ["LOG_SOFTMAX", "L2_NORMALIZATION"])
def test_16x8_operator_without_an_int16_kernel_is_refused(tmp_path, op):
    """LiteRT has no int16 kernel for LOG_SOFTMAX (LogSoftmaxEval) or L2_NORMALIZATION
    (l2norm.cc Prepare): its own interpreter fails on the model, qcomp refuses it in one
    line naming the operator."""
    from tests.importers.tflite_models import run_litert

    m = Model()
    x = m.tensor([2, 3], np.int16, scale=0.01, zero_point=0)
    y = m.tensor([2, 3], np.int16, scale=1 / 32768, zero_point=0)
    m.op(getattr(OPS, op), [x], [y])
    m.inputs, m.outputs = [x], [y]
    model = m.build()
    with pytest.raises(RuntimeError, match=f"Node number 0 \\({op}\\) failed to"):
        run_litert(model, [np.zeros((2, 3), np.int16)], "BUILTIN_REF")
    code, out, err = _run(qcomp_opt, tmp_path, model)
    assert (code, out, err) == (1, "", f"qcomp-opt: error: m.tflite: operator 0 ({op}): {op} "
                                f"has no 16x8 kernel in LiteRT (int8 only): tensor 0 ('t0') "
                                "is INT16\n")
