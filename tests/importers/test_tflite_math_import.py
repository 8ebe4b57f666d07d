"""The math, index and window operators of `qcomp.tflite.float_math`, `index_math` and
`float_windows` at import: the StableHLO each becomes, `litert-verify-int8` on the
quantized ones, and the one-line diagnostics of what LiteRT has no kernel for (or qcomp
does not take)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert.schema_py_generated")

from qcomp.importers.tflite import import_module
from qcomp.passes.litert_verify_int8 import problems
from qcomp.tools.qcomp_opt import main as qcomp_opt
from tests.importers.litert_cases_float import CASES as FLOAT
from tests.importers.litert_cases_index import CASES as INDEX
from tests.importers.test_tflite_diagnostics import _run
from tests.importers.tflite_models import Model, schema

OPS = schema.BuiltinOperator
OPTS = schema.BuiltinOptions
CASES = {**FLOAT, **INDEX}

IMPORTED_AS = {
    "SQUARE": "stablehlo.multiply", "SQRT": "stablehlo.sqrt", "LOG": "stablehlo.log",
    "SIN": "stablehlo.sine", "COS": "stablehlo.cosine", "FLOOR": "stablehlo.floor",
    "CEIL": "stablehlo.ceil", "ROUND": "stablehlo.round_nearest_even",
    "EXP": "stablehlo.exponential", "POW": "stablehlo.power", "DIV": "stablehlo.divide",
    "RSQRT": "stablehlo.sqrt", "REDUCE_ANY": "stablehlo.or", "REDUCE_ALL": "stablehlo.and",
    "CUMSUM": "stablehlo.concatenate", "CUMSUM_INT32": "stablehlo.reduce_window",
    "SCATTER_ND": "stablehlo.scatter", "L2_POOL_2D": "stablehlo.pad",
    "LOCAL_RESPONSE_NORMALIZATION": "stablehlo.power", "SQRT_INT8": "stablehlo.composite",
    "LOG_INT16": "stablehlo.composite", "DIV_INT8": "stablehlo.composite",
    "NEG_INT8": "stablehlo.composite", "DIV_UINT8": "stablehlo.composite",
}


@pytest.mark.parametrize("case", sorted(IMPORTED_AS))
def test_imported_as(case):
    model, _, _ = CASES[case](np.random.default_rng(0))
    module = import_module(model)
    assert IMPORTED_AS[case] in {op.name for op in module.walk()}
    found = [message for _, message in problems(module)]
    if case.endswith("UINT8"):  # LiteRT has the kernel, the int8 spec has no uint8
        assert found and all("must be i8, got ui8" in m for m in found)
    else:
        assert found == []  # quantized ones: an activation of the op table


def _unary(op, dtype, scale=None, zero_point=None, out_dtype=None) -> bytes:
    m = Model()
    x = m.tensor([4], dtype, scale=scale, zero_point=zero_point)
    y = m.tensor([4], out_dtype or dtype, scale=scale, zero_point=zero_point)
    m.op(op, [x], [y])
    m.inputs, m.outputs = [x], [y]
    return m.build()


def _range(start_constant: bool) -> bytes:
    m = Model()
    s = m.tensor([], np.int32, data=None if not start_constant else np.array(0, np.int32))
    lim = m.tensor([], np.int32, data=np.array(4, np.int32))
    d = m.tensor([], np.int32, data=np.array(0, np.int32))
    y = m.tensor([4], np.int32)
    m.op(OPS.RANGE, [s, lim, d], [y])
    m.inputs, m.outputs = ([] if start_constant else [s]), [y]
    return m.build()


def _div_int32_relu() -> bytes:
    m = Model()
    a, b, y = (m.tensor([4], np.int32) for _ in range(3))
    o = schema.DivOptionsT()
    o.fusedActivationFunction = 1
    m.op(OPS.DIV, [a, b], [y], o, OPTS.DivOptions)
    m.inputs, m.outputs = [a, b], [y]
    return m.build()


DIAGNOSTICS = {
    "quantized SIN": (lambda: _unary(OPS.SIN, np.int8, 0.5, 0),
                      "operator 0 (SIN): input 0 (input) tensor 0 ('t0') is INT8; SIN takes "
                      "FLOAT32"),
    "int32 SQRT": (lambda: _unary(OPS.SQRT, np.int32),
                   "operator 0 (SQRT): SQRT is imported for FLOAT32 tensors and LiteRT's "
                   "quantized kernels only, tensor 0 ('t0') is INT32"),
    "LOG to another type": (lambda: _unary(OPS.LOG, np.float32, out_dtype=np.int32),
                            "operator 0 (LOG): tensor 0 ('t0') and tensor 1 ('t1') must "
                            "have one type"),
    "RANGE of a run-time start": (lambda: _range(False),
                                  "operator 0 (RANGE): the start must be known when the "
                                  "model is imported (a constant)"),
    "RANGE with delta 0": (lambda: _range(True),
                           "operator 0 (RANGE): delta 0 does not lead from start 0 to "
                           "limit 4"),
    "int32 DIV with RELU": (_div_int32_relu,
                            "operator 0 (DIV): a fused activation on an INT32 DIV is not "
                            "supported"),
}


@pytest.mark.parametrize("name", sorted(DIAGNOSTICS))
def test_diagnostic_is_one_line(tmp_path, name):
    make, message = DIAGNOSTICS[name]
    code, out, err = _run(qcomp_opt, tmp_path, make())
    assert (code, out, err) == (1, "", f"qcomp-opt: error: m.tflite: {message}\n")
