"""Blockwise (sub-channel) rhs of `dot_general` under the integer rescale modes of
`stablehlo-legalize-quant-to-math` (docs/blockwise.md): `fixed-point` and `stablehlo`
against their documented formulas re-derived independently (Python integers, NumPy
float32; tests/passes/blockwise_oracle.py), within one storage step of the exact
rational result (stablehlo: where that lies in the storage range), and on XLA.
Convolutions: tests/passes/test_blockwise_conv.py."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qcomp.interpreter import run
from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass
from qcomp.registry import make_context, parse_module
from qcomp.passes.utils.diagnostics import PassDiagnostic
from tests.passes import blockwise_oracle as bo
from tests.sampling import examples


def _run(module, x, semantics="spec"):
    module = parse_module(module) if isinstance(module, str) else module
    (r,) = run(module, [x], semantics=semantics)
    assert r.error is None, r.error.message
    return r.results[0]


def lowered(src: str, rescale: str):
    module = parse_module(src)
    LegalizeQuantToMathPass(rescale=rescale).apply(make_context(), module)
    module.verify()
    return module


class Case:
    """M x K (i8, per-tensor) times a K x N blockwise i4/i8 constant, K in blocks of B
    (16 to 128 as GPTQ / AWQ use them, and small ones); i8 or i16 result, per-tensor or
    per-axis along N."""

    def __init__(self, seed: int, per_axis_result: bool = False, out: str = "i8"):
        rng = np.random.default_rng(seed)
        m, n = int(rng.integers(1, 4)), int(rng.integers(1, 5))
        self.block = int(rng.choice([2, 4, 16, 32, 64, 128]))
        blocks = int(rng.integers(1, 5 if self.block <= 32 else 3))
        k = self.block * blocks
        storage = str(rng.choice(["i4", "i8"]))
        lim = 8 if storage == "i4" else 128
        self.w = rng.integers(-lim, lim, (k, n))
        sr = rng.uniform(0.001, 0.05, (blocks, n)).astype(np.float32).astype(np.float64)
        zr = rng.integers(-3, 4, (blocks, n))
        self.sl, self.zl = 0.0371, int(rng.integers(-10, 11))
        self.bits = 16 if out == "i16" else 8
        self.lo, self.hi = -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        base = 0.4129 if out == "i8" else 0.004129
        if per_axis_result:
            self.so = rng.uniform(base / 2, base * 2, n).astype(np.float32).astype(np.float64)
            self.zo = int(rng.integers(-5, 6))
            oq = bo.per_axis(out, 1, self.so, [self.zo] * n)
        else:
            self.so, self.zo = base, int(rng.integers(-5, 6))
            oq = bo.per_tensor(out, self.so, self.zo)
        self.x = rng.integers(-128, 128, (m, k)).astype(np.int8)
        wt = bo.block_type(storage, {0: self.block, 1: 1}, sr, zr)
        self.src = bo.program(bo.dot_text(), f"tensor<{m}x{k}x{bo.per_tensor('i8', self.sl, self.zl)}>",
                              self.w, storage, wt, f"tensor<{m}x{n}x{oq}>")
        cr = self.w - np.repeat(zr, self.block, axis=0)
        self.accs = bo.dot_block_sums(self.x.astype(np.int64) - self.zl, cr, self.block)
        self.block_scales = [sr[j].reshape(1, n) for j in range(blocks)]
        self.so_b = np.asarray(self.so).reshape((1, n) if per_axis_result else ())

    def exact(self):
        return bo.exact(self.accs, self.sl, self.block_scales, self.so_b, self.zo)


@settings(max_examples=examples(full=30, ci=15), deadline=None)
@given(st.integers(0, 2**31), st.booleans(), st.sampled_from(["i8", "i16"]))
def test_float_lowering_rounds_the_exact_value(seed, per_axis_result, out):
    case = Case(seed, per_axis_result, out)
    got = _run(lowered(case.src, "float"), case.x)
    assert got.tobytes() == _run(case.src, case.x).tobytes()
    x = case.exact()
    assert ((got == bo.spec_q(x, case.lo, case.hi)) | bo.near_tie(x)).all()


@settings(max_examples=examples(full=30, ci=15), deadline=None)
@given(st.integers(0, 2**31), st.booleans(), st.sampled_from(["i8", "i16"]))
def test_fixed_point_lowering_is_its_formula_within_one_step(seed, per_axis_result, out):
    case = Case(seed, per_axis_result, out)
    got = _run(lowered(case.src, "fixed-point"), case.x)
    want = bo.fixed_point_q(case.accs, case.sl, case.block_scales, case.so_b, case.zo,
                            case.lo, case.hi)
    np.testing.assert_array_equal(got, want)
    spec = bo.spec_q(case.exact(), case.lo, case.hi)
    assert np.max(np.abs(got.astype(np.int64) - spec), initial=0) <= 1


@settings(max_examples=examples(full=30, ci=15), deadline=None)
@given(st.integers(0, 2**31), st.booleans(), st.sampled_from(["i8", "i16"]))
def test_stablehlo_lowering_is_its_formula_within_one_step_in_range(seed, per_axis_result,
                                                                    out):
    case = Case(seed, per_axis_result, out)
    got = _run(lowered(case.src, "stablehlo"), case.x)
    assert got.tobytes() == _run(case.src, case.x, "stablehlo").tobytes()
    want = bo.stablehlo_q(case.accs, case.sl, case.block_scales, case.so_b, case.zo,
                          case.bits)
    np.testing.assert_array_equal(got, want)
    exact = case.exact()
    inside = np.vectorize(lambda v: case.lo <= v <= case.hi, otypes=[bool])(exact)
    diff = np.abs(got.astype(np.int64) - bo.spec_q(exact, case.lo, case.hi))
    assert np.all(diff[inside] <= 1)


def test_stablehlo_mode_does_differ_from_float():
    """The bound is reached: truncation moves some elements of these cases by one step
    from the spec result (never more, as the test above checks)."""
    moved = 0
    for seed in range(20):
        case = Case(seed, out="i16")
        spec = _run(case.src, case.x)
        moved += int(np.sum(_run(lowered(case.src, "stablehlo"), case.x) != spec))
    assert moved > 0


def test_fixed_point_rounds_ties_up_where_the_spec_rounds_to_even():
    """Power-of-two scales make every fixed-point step exact, so fixed-point and the spec
    differ only at ties: 2.5 -> 3 (half up) against 2 (half to even); -2.5 -> -2 both."""
    src = bo.program(bo.dot_text(), f"tensor<1x4x{bo.per_tensor('i8', 1.0, 0)}>",
                     np.array([[1, -1], [0, 0], [1, -1], [1, -1]]), "i8",
                     bo.block_type("i8", {0: 2, 1: 1}, np.array([[0.5, 0.5], [0.25, 0.25]]),
                                   np.array([[0, 0], [0, 0]])),
                     f"tensor<1x2x{bo.per_tensor('i8', 1.0, 0)}>")
    x = np.array([[3, 0, 4, 0]], np.int8)  # 3 * 0.5 + 4 * 0.25 = 2.5 and -2.5
    assert _run(src, x).tolist() == [[2, -2]]
    assert _run(lowered(src, "fixed-point"), x).tolist() == [[3, -2]]
    assert _run(lowered(src, "stablehlo"), x).tolist() == [[2, -2]]  # truncation


def test_stablehlo_mode_wraps_out_of_range_results():
    """Upstream's dot rescale never clamps: a result beyond i8 wraps (the spec clamps)."""
    src = bo.program(bo.dot_text(), f"tensor<1x4x{bo.per_tensor('i8', 1.0, 0)}>",
                     np.array([[100], [100], [0], [0]]), "i8",
                     bo.block_type("i8", {0: 2, 1: 1}, np.array([[1.0], [1.0]]),
                                   np.array([[0], [0]])),
                     f"tensor<1x1x{bo.per_tensor('i8', 100.0, 0)}>")
    x = np.array([[100, 100, 0, 0]], np.int8)  # real = 20000 -> 200 steps
    assert _run(src, x).tolist() == [[127]]
    assert _run(lowered(src, "stablehlo"), x).tolist() == [[200 - 256]]


def test_fixed_point_refuses_a_multiplier_too_large():
    src = bo.program(bo.dot_text(), f"tensor<1x4x{bo.per_tensor('i8', 1.0, 0)}>",
                     np.zeros((4, 1), int), "i8",
                     bo.block_type("i8", {0: 2, 1: 1}, np.array([[1.0], [1e6]]),
                                   np.array([[0], [0]])),
                     f"tensor<1x1x{bo.per_tensor('i8', 1.0, 0)}>")
    with pytest.raises(PassDiagnostic, match="rescale=fixed-point: scale factor"):
        lowered(src, "fixed-point")


@pytest.mark.parametrize("rescale", ["float", "fixed-point", "stablehlo"])
def test_lowered_blockwise_dot_runs_on_xla_bit_for_bit(rescale):
    pytest.importorskip("jax")
    from qcomp.backends.dispatch import run as run_backend

    case = Case(17, per_axis_result=True)
    module = lowered(case.src, rescale)
    (r,) = run_backend(module, [case.x], backend="xla")
    assert r.error is None, r.error.message
    assert r.results[0].tobytes() == _run(module, case.x).tobytes()
