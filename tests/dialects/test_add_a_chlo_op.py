"""docs/design.md's recipe for adding a chlo op, followed in this file alone: a
throwaway special function, defined here with its stepwise kernel and loaded into a
context, is parsed, printed back, verified against its declared kinds and run by the
interpreter in the element type, with nothing else in qcomp edited."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Pure

from qcomp.dialects.chlo.ops import UnaryOp, in_own_type, stepwise
from qcomp.dialects.chlo.special import Steps
from qcomp.dialects.facts import NO_QUANTIZATION
from qcomp.interpreter import run
from qcomp.ir import print_module
from qcomp.registry import make_context, parse_module


def _sinc(s: Steps, x):
    """`sin(x) / x`, 1 at 0: sin rounded once to the element type, then its division."""
    return np.where(x == s.c(0.0), s.c(1.0), s.sin(x) / x)


@irdl_op_definition
class SincOp(UnaryOp):
    """`sin(x) / x` (1 at 0), a throwaway op for this test."""

    name = "chlo.test_sinc"
    traits = traits_def(Pure(), NO_QUANTIZATION, stepwise(in_own_type(_sinc)))


def _src(ty: str) -> str:
    return (f"func.func @main(%x: tensor<4x{ty}>) -> tensor<4x{ty}> {{\n"
            f"  %0 = chlo.test_sinc %x : tensor<4x{ty}> -> tensor<4x{ty}>\n"
            f"  func.return %0 : tensor<4x{ty}>\n}}\n")


def _ctx():
    ctx = make_context()
    ctx.load_registered_dialect("chlo")
    ctx.load_op(SincOp)
    return ctx


def test_parsed_and_printed_back():
    module = parse_module(_src("f32"), _ctx())
    module.verify()
    assert "%0 = chlo.test_sinc %arg0 : tensor<4xf32> -> tensor<4xf32>" in print_module(module)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_run_in_the_element_type(dtype):
    ty = {np.float32: "f32", np.float16: "f16"}[dtype]
    module = parse_module(_src(ty), _ctx())
    x = np.array([0.0, 0.5, -3.0, 1e-3], dtype)
    (r,) = run(module, [x])
    assert r.error is None, r.error.message
    # the independent reading: sin in float64 rounded to the type, divided in the type
    with np.errstate(invalid="ignore"):
        want = np.where(x == 0, dtype(1), np.sin(x.astype(np.float64)).astype(dtype) / x)
    assert r.results[0].dtype == dtype
    assert r.results[0].tobytes() == want.astype(dtype).tobytes()


def test_verifier_uses_the_declared_kinds():
    module = parse_module(_src("i32"), _ctx())
    with pytest.raises(Exception) as e:  # noqa: PT011 - xDSL wraps the VerifyException
        module.verify()
    assert "operand #0 must be tensor of 4/6/8/16/32/64-bit float or complex type with " \
           "32/64-bit float elements values, but got 'tensor<4xi32>'" in str(e.value)
