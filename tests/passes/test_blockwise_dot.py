"""Blockwise (sub-channel) rhs of `dot_general` (a qcomp extension, docs/blockwise.md):
the interpreter against an exact rational oracle and torch, the lowering of
`stablehlo-legalize-quant-to-math` against the interpreter bit for bit, and the lowered
program on XLA."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qcomp.interpreter import run
from qcomp.registry import make_context, parse_module
from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass


def _type(storage: str, k_blocks: int, block: int, n: int, scales, zps) -> str:
    rows = ", ".join("{" + ", ".join(f"{float(s)!r}:{int(z)}" for s, z in zip(sr, zr)) + "}"
                     for sr, zr in zip(scales, zps))
    return f"!quant.uniform<{storage}:f32:{{0:{block}, 1:1}}, {{{rows}}}>"


def program(m: int, k: int, n: int, block: int, w: np.ndarray, scales, zps, lhs_q: str | None,
            out_q: str | None, storage: str = "i8") -> str:
    wt = f"tensor<{k}x{n}x{_type(storage, k // block, block, n, scales, zps)}>"
    body = f"""  %w = stablehlo.constant() {{value = dense<{w.tolist()}> : tensor<{k}x{n}x{storage}>}} : () -> {wt}
"""
    if lhs_q is None:
        body += f"""  %y = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<{m}x{k}xf32>, {wt}) -> tensor<{m}x{n}xf32>
  func.return %y : tensor<{m}x{n}xf32>
"""
    else:
        lt, ot = f"tensor<{m}x{k}x{lhs_q}>", f"tensor<{m}x{n}x{out_q}>"
        body += f"""  %q = stablehlo.uniform_quantize %x : (tensor<{m}x{k}xf32>) -> {lt}
  %a = stablehlo.dot_general %q, %w, contracting_dims = [1] x [0] : ({lt}, {wt}) -> {ot}
  %y = stablehlo.uniform_dequantize %a : ({ot}) -> tensor<{m}x{n}xf32>
  func.return %y : tensor<{m}x{n}xf32>
"""
    return f"func.func @main(%x: tensor<{m}x{k}xf32>) -> tensor<{m}x{n}xf32> {{\n{body}}}\n"


def _run(src_or_module, x):
    module = parse_module(src_or_module) if isinstance(src_or_module, str) else src_or_module
    (r,) = run(module, [x], semantics="spec")
    assert r.error is None, r.error.message
    return r.results[0]


def _lowered(src: str):
    module = parse_module(src)
    LegalizeQuantToMathPass().apply(make_context(), module)
    module.verify()
    return module


def _round_half_even(v: Fraction) -> int:
    f = v.numerator // v.denominator
    rem = v - f
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and f % 2):
        return f + 1
    return f


@st.composite
def cases(draw):
    m = draw(st.integers(1, 3))
    n = draw(st.integers(1, 4))
    block = draw(st.sampled_from([1, 2, 4, 8]))
    blocks = draw(st.integers(1, 4))
    k = block * blocks
    seed = draw(st.integers(0, 2**31))
    return m, k, n, block, seed


@settings(max_examples=40, deadline=None)
@given(cases())
def test_quantized_blockwise_dot_equals_exact_rational_result(case):
    """Power-of-two scales make every float step exact, so the result must be the exact
    rational Σ (q_l - z_l) s_l (q_r - z_r) s_r rounded half to even once."""
    m, k, n, block, seed = case
    rng = np.random.default_rng(seed)
    w = rng.integers(-8, 8, (k, n))
    scales = 2.0 ** rng.integers(-4, 3, (k // block, n))
    zps = rng.integers(-3, 4, (k // block, n))
    sl, zl, so, zo = 0.25, 2, 2.0 ** int(rng.integers(-2, 3)), int(rng.integers(-5, 6))
    src = program(m, k, n, block, w, scales, zps, f"!quant.uniform<i8:f32, {sl}:{zl}>",
                  f"!quant.uniform<i8:f32, {so}:{zo}>", storage="i4")
    x = (rng.integers(-40, 40, (m, k)) * 0.25).astype(np.float32)
    got = _run(src, x)
    ql = np.clip(np.round(x / sl) + zl, -128, 127).astype(np.int64)  # x is on the grid
    want = np.zeros((m, n), np.float32)
    for i in range(m):
        for j in range(n):
            real = sum(Fraction(int(ql[i, t] - zl)) * Fraction(sl)
                       * Fraction(int(w[t, j] - zps[t // block, j])) * Fraction(scales[t // block, j])
                       for t in range(k))
            q = min(max(_round_half_even(real / Fraction(so) + zo), -128), 127)
            want[i, j] = (q - zo) * so
    np.testing.assert_array_equal(got, want)


@settings(max_examples=25, deadline=None)
@given(cases(), st.booleans())
def test_lowering_equals_interpreter_bit_for_bit(case, hybrid):
    m, k, n, block, seed = case
    rng = np.random.default_rng(seed)
    w = rng.integers(-128, 128, (k, n))
    scales = rng.uniform(0.001, 0.05, (k // block, n)).astype(np.float32)
    zps = rng.integers(-20, 21, (k // block, n))
    src = program(m, k, n, block, w, scales, zps,
                  None if hybrid else "!quant.uniform<i8:f32, 0.0371:-3>",
                  None if hybrid else "!quant.uniform<i8:f32, 0.4129:5>")
    x = (rng.standard_normal((m, k)) * 3).astype(np.float32)
    want = _run(src, x)
    got = _run(_lowered(src), x)
    assert want.tobytes() == got.tobytes()


def test_hybrid_blockwise_dot_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    m, k, n, block = 3, 64, 5, 16
    w = rng.integers(-8, 8, (k, n))
    scales = 2.0 ** rng.integers(-6, 0, (k // block, n))
    zps = rng.integers(-2, 3, (k // block, n))
    src = program(m, k, n, block, w, scales, zps, None, None, storage="i4")
    x = (rng.integers(-100, 100, (m, k)) / 8).astype(np.float32)
    deq = (torch.tensor(w) - torch.tensor(np.repeat(zps, block, axis=0))).double() \
        * torch.tensor(np.repeat(scales, block, axis=0))
    want = (torch.tensor(x).double() @ deq).float().numpy()  # exact: dyadic values
    np.testing.assert_array_equal(_run(src, x), want)


def test_lowered_blockwise_dot_runs_on_xla_bit_for_bit():
    pytest.importorskip("jax")
    from qcomp.backends.dispatch import run as run_backend

    rng = np.random.default_rng(3)
    m, k, n, block = 4, 32, 6, 8
    w = rng.integers(-128, 128, (k, n))
    scales = rng.uniform(0.001, 0.05, (k // block, n)).astype(np.float32)
    zps = rng.integers(-20, 21, (k // block, n))
    src = program(m, k, n, block, w, scales, zps, "!quant.uniform<i8:f32, 0.0371:-3>",
                  "!quant.uniform<i8:f32, 0.4129:5>")
    x = (rng.standard_normal((m, k)) * 3).astype(np.float32)
    (r,) = run_backend(parse_module(src), [x], semantics="spec", backend="xla")
    assert r.error is None, r.error.message
    assert r.results[0].tobytes() == _run(src, x).tobytes()
