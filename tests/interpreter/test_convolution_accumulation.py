"""Convolution accumulates in its result element type, as upstream's reference
interpreter does at the suite's commit (openxla/stablehlo #2953, the spec of
`interpret/convolution.mlir`); jaxlib 0.10.2's interpreter predates it and accumulates
in the lhs type (an i8 x i8 -> i32 convolution wraps at 8 bits). The oracle here is
jaxlib with each mixed-type convolution run on operands converted to the result type
(`jax_oracle.suite_convolutions`), which is that accumulation."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.interpreter import run
from qcomp.registry import parse_module
from tests.interpreter import jax_oracle

pytestmark = pytest.mark.skipif(not jax_oracle.AVAILABLE, reason=jax_oracle.REASON)

CONV = """func.func @main(%l: tensor<1x6x6x3x{lt}>, %r: tensor<3x3x3x2x{lt}>) -> tensor<1x4x4x2x{ot}> {{
  %o = stablehlo.convolution(%l, %r) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
    window = {{stride = [1, 1]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}}
    : (tensor<1x6x6x3x{lt}>, tensor<3x3x3x2x{lt}>) -> tensor<1x4x4x2x{ot}>
  return %o : tensor<1x4x4x2x{ot}>
}}"""


def _raw_jaxlib(src: str, args) -> np.ndarray:
    """jaxlib's eval_module on `src` as it is (no widening)."""
    art = jax_oracle._sh.serialize_portable_artifact_str(src, jax_oracle._sh.get_current_version())
    ctx = jax_oracle._jmlir.make_ir_context()
    with ctx, jax_oracle._ir.Location.unknown():
        m = jax_oracle._sh.deserialize_portable_artifact(ctx, art)
        return np.array(jax_oracle._sh.eval_module(m, [jax_oracle._attr(a) for a in args])[0])


@pytest.mark.parametrize("semantics", ["spec", "stablehlo"])
def test_i8_convolution_to_i32_does_not_wrap(semantics):
    rng = np.random.default_rng(7)
    args = [rng.integers(-128, 128, (1, 6, 6, 3)).astype(np.int8),
            rng.integers(-128, 128, (3, 3, 3, 2)).astype(np.int8)]
    src = CONV.format(lt="i8", ot="i32")
    (r,) = run(parse_module(src), args, semantics=semantics)
    assert r.error is None, r.error.message
    got = r.results[0]
    want = jax_oracle.eval_upstream(src, args)[0]
    assert np.array_equal(got, want)
    assert np.abs(got).max() > 127  # the sums leave i8's range
    raw = _raw_jaxlib(src, args)
    # jaxlib 0.10.2 sums in i8 (a jaxlib with upstream #2953 agrees with qcomp)
    assert np.array_equal(raw, got) or np.array_equal(raw, got.astype(np.int8).astype(np.int32))


def test_f16_convolution_to_f32_sums_in_f32():
    jaxlib = pytest.importorskip("jaxlib")
    rng = np.random.default_rng(8)
    args = [(rng.standard_normal((1, 6, 6, 3)) * 30).astype(np.float16),
            rng.standard_normal((3, 3, 3, 2)).astype(np.float16)]
    src = CONV.format(lt="f16", ot="f32")
    (r,) = run(parse_module(src), args, semantics="stablehlo")
    assert r.error is None, r.error.message
    want = jax_oracle.eval_upstream(src, args)[0]
    assert np.array_equal(r.results[0].view(np.uint32), want.view(np.uint32))
    if jaxlib.__version__ == "0.10.2":  # sums in f16 there: the inputs tell the two apart
        assert not np.array_equal(_raw_jaxlib(src, args).view(np.uint32), want.view(np.uint32))
