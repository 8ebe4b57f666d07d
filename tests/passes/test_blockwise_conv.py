"""Blockwise (sub-channel) convolution kernels (a qcomp extension, docs/blockwise.md):
the interpreter against exact rationals over torch's per-block integer sums and against
torch's conv2d on the dequantized kernel (hybrid), and the three lowerings of
`stablehlo-legalize-quant-to-math` against the interpreter and the documented formulas
(tests/passes/test_blockwise_rescale_modes.py has the same for dot_general)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qcomp.interpreter import run
from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass
from qcomp.registry import make_context, parse_module
from tests.passes import blockwise_oracle as bo
from tests.sampling import examples

from tests.lazy import importorskip  # noqa: E402

torch = importorskip("torch")  # imported when a test first uses it


def _run(module, x, semantics="spec"):
    module = parse_module(module) if isinstance(module, str) else module
    (r,) = run(module, [x], semantics=semantics)
    assert r.error is None, r.error.message
    return r.results[0]


def lowered(src: str, rescale: str = "float"):
    module = parse_module(src)
    LegalizeQuantToMathPass(rescale=rescale).apply(make_context(), module)
    module.verify()
    return module


class Case:
    """A convolution with a random blockwise kernel: NHWC x HWIO or NCHW x OIHW,
    padding, stride, lhs dilation; i8 lhs, i4 or i8 kernel, i8 result."""

    def __init__(self, seed: int, layout: str, quantized: bool = True, dyadic: bool = False,
                 per_axis_result: bool = False):
        rng = np.random.default_rng(seed)
        self.layout = layout
        n, c_blocks, self.block = 1, int(rng.integers(1, 4)), int(rng.choice([1, 2, 4]))
        c, o = c_blocks * self.block, int(rng.integers(1, 4))
        h, w = int(rng.integers(2, 5)), int(rng.integers(2, 5))
        kh, kw = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        self.stride = [int(rng.integers(1, 3)), int(rng.integers(1, 3))]
        self.pad = [int(rng.integers(0, 2)), int(rng.integers(0, 2))]
        self.dilate = [int(rng.integers(1, 3)), 1]
        self.w_storage = str(rng.choice(["i4", "i8"]))
        wlim = 8 if self.w_storage == "i4" else 128
        w_oihw = rng.integers(-wlim, wlim, (o, c, kh, kw))
        if dyadic:
            sr = 2.0 ** rng.integers(-5, 1, (o, c_blocks))
            self.sl, self.so = 0.25, float(2.0 ** rng.integers(-2, 3))
        else:
            sr = rng.uniform(0.002, 0.05, (o, c_blocks)).astype(np.float32).astype(np.float64)
            self.sl, self.so = 0.0371, 0.4129
        zr = rng.integers(-3, 4, (o, c_blocks))
        self.zl, self.zo = int(rng.integers(-5, 6)), int(rng.integers(-5, 6))
        if per_axis_result:
            self.so = rng.uniform(0.2, 0.6, o).astype(np.float32).astype(np.float64)
        self.sr, self.zr, self.w_oihw = sr, zr, w_oihw
        self.x_nchw = rng.integers(-128, 128, (n, c, h, w))
        if layout == "nhwc":
            wt = bo.block_type(self.w_storage, {2: self.block, 3: 1},
                               sr.T.reshape(1, 1, c_blocks, o), zr.T.reshape(1, 1, c_blocks, o))
            self.w = np.transpose(w_oihw, (2, 3, 1, 0))
            self.x = np.transpose(self.x_nchw, (0, 2, 3, 1))
        else:
            wt = bo.block_type(self.w_storage, {0: 1, 1: self.block},
                               sr.reshape(o, c_blocks, 1, 1), zr.reshape(o, c_blocks, 1, 1))
            self.w, self.x = w_oihw, self.x_nchw
        cl = self.x_nchw - self.zl
        cr = w_oihw - np.repeat(zr, self.block, axis=1)[:, :, None, None]
        self.accs = bo.conv_block_sums(cl, cr, self.block, self.stride, self.pad, self.dilate)
        out_nchw = self.accs[0].shape
        self.feature = 3 if layout == "nhwc" else 1
        shape = out_nchw if layout == "nchw" else tuple(np.array(out_nchw)[[0, 2, 3, 1]])
        if layout == "nhwc":
            self.accs = [np.transpose(a, (0, 2, 3, 1)) for a in self.accs]
        text = bo.conv_text(layout, self.stride, self.pad, self.dilate)
        lq = bo.per_tensor("i8", self.sl, self.zl)
        if per_axis_result:
            oq = bo.per_axis("i8", self.feature, self.so, [self.zo] * o)
        else:
            oq = bo.per_tensor("i8", self.so, self.zo)
        out = "x".join(map(str, shape))
        xs = "x".join(map(str, self.x.shape))
        if quantized:
            self.src = bo.program(text, f"tensor<{xs}x{lq}>", self.w, self.w_storage, wt,
                                  f"tensor<{out}x{oq}>")
        else:
            self.src = bo.program(text, f"tensor<{xs}xf32>", self.w, self.w_storage, wt,
                                  f"tensor<{out}xf32>")
        self.out_shape = shape
        bshape = [1, 1, 1, 1]
        bshape[self.feature] = o
        self.block_scales = [sr[:, j].reshape(bshape) for j in range(c_blocks)]
        self.so_b = np.asarray(self.so).reshape(bshape if per_axis_result else ())

    def exact(self) -> np.ndarray:
        return bo.exact(self.accs, self.sl, self.block_scales, self.so_b, self.zo)


@settings(max_examples=examples(full=25, ci=12), deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(["nhwc", "nchw"]))
def test_quantized_blockwise_conv_equals_exact_rational_result(seed, layout):
    """Power-of-two scales make every f64 step exact, so the interpreter's result is the
    exact Σ_j acc_j s_l s_r,j / s_res + z_res rounded half to even once, clamped."""
    case = Case(seed, layout, dyadic=True)
    got = _run(case.src, case.x.astype(np.int8))
    np.testing.assert_array_equal(got, bo.spec_q(case.exact(), -128, 127))


@settings(max_examples=examples(full=25, ci=12), deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(["nhwc", "nchw"]), st.booleans())
def test_blockwise_conv_any_scales_rounds_the_exact_value(seed, layout, per_axis_result):
    """With float32 scales the f64 steps round, but only a value within 1e-6 of a tie may
    round the other way."""
    case = Case(seed, layout, per_axis_result=per_axis_result)
    got = _run(case.src, case.x.astype(np.int8))
    x = case.exact()
    want = bo.spec_q(x, -128, 127)
    ok = (got == want) | bo.near_tie(x)
    assert ok.all()


@pytest.mark.parametrize("seed", [11, 12, 13, 14])
def test_hybrid_blockwise_conv_matches_torch(seed):
    """W4A16: the interpreter and the lowered program against torch's conv2d on the
    dequantized kernel in float64 (dyadic values: exact in f32 too)."""
    case = Case(seed, "nchw", quantized=False, dyadic=True)
    rng = np.random.default_rng(seed)
    x = (rng.integers(-64, 64, case.x.shape) / 8).astype(np.float32)
    zr = np.repeat(case.zr, case.block, axis=1)[:, :, None, None]
    sr = np.repeat(case.sr, case.block, axis=1)[:, :, None, None]
    wd = torch.tensor(((case.w_oihw - zr) * sr).astype(np.float64))
    xd = np.zeros((1, x.shape[1], (x.shape[2] - 1) * case.dilate[0] + 1, x.shape[3]))
    xd[:, :, ::case.dilate[0]] = x
    want = torch.nn.functional.conv2d(torch.tensor(xd), wd, stride=tuple(case.stride),
                                      padding=tuple(case.pad)).float().numpy()
    np.testing.assert_array_equal(_run(case.src, x), want)
    for rescale in ("float", "fixed-point", "stablehlo"):
        np.testing.assert_array_equal(_run(lowered(case.src, rescale), x), want)


@settings(max_examples=examples(full=20, ci=10), deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(["nhwc", "nchw"]), st.booleans())
def test_float_lowering_equals_interpreter_bit_for_bit(seed, layout, per_axis_result):
    case = Case(seed, layout, per_axis_result=per_axis_result)
    x = case.x.astype(np.int8)
    assert _run(lowered(case.src), x).tobytes() == _run(case.src, x).tobytes()


@settings(max_examples=examples(full=20, ci=10), deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(["nhwc", "nchw"]), st.booleans())
def test_fixed_point_lowering_is_its_formula_within_one_step(seed, layout, per_axis_result):
    case = Case(seed, layout, per_axis_result=per_axis_result)
    got = _run(lowered(case.src, "fixed-point"), case.x.astype(np.int8))
    want = bo.fixed_point_q(case.accs, case.sl, case.block_scales, case.so_b, case.zo,
                            -128, 127)
    np.testing.assert_array_equal(got, want)
    assert np.max(np.abs(got - bo.spec_q(case.exact(), -128, 127)), initial=0) <= 1


@settings(max_examples=examples(full=20, ci=10), deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(["nhwc", "nchw"]), st.booleans())
def test_stablehlo_lowering_is_its_formula_within_one_step_in_range(seed, layout,
                                                                    per_axis_result):
    case = Case(seed, layout, per_axis_result=per_axis_result)
    x = case.x.astype(np.int8)
    got = _run(lowered(case.src, "stablehlo"), x)
    assert got.tobytes() == _run(case.src, x, "stablehlo").tobytes()
    want = bo.stablehlo_q(case.accs, case.sl, case.block_scales, case.so_b, case.zo, 8)
    np.testing.assert_array_equal(got, want)
    exact = case.exact()
    inside = np.vectorize(lambda v: -128 <= v <= 127, otypes=[bool])(exact)
    diff = np.abs(got.astype(np.int64) - bo.spec_q(exact, -128, 127))
    assert np.all(diff[inside] <= 1)


@pytest.mark.parametrize("rescale", ["float", "fixed-point", "stablehlo"])
def test_lowered_blockwise_conv_runs_on_xla_bit_for_bit(rescale):
    pytest.importorskip("jax")
    from qcomp.backends.dispatch import run as run_backend

    case = Case(3, "nhwc")
    x = case.x.astype(np.int8)
    module = lowered(case.src, rescale)
    want = _run(module, x)
    (r,) = run_backend(module, [x], backend="xla")
    assert r.error is None, r.error.message
    assert r.results[0].tobytes() == want.tobytes()


@pytest.mark.parametrize("semantics", ["spec", "stablehlo"])
def test_qcomp_run_backend_xla_prints_the_interpreters_result(tmp_path, semantics):
    """`qcomp-run --backend xla` lowers the quantized program with the semantics'
    rescale (float / stablehlo) and runs it on XLA: the same printed result as the
    NumPy interpreter on the quantized program."""
    pytest.importorskip("jax")
    import io

    from qcomp.tools.qcomp_run import main as run_main

    case = Case(23, "nchw", per_axis_result=True)
    path = tmp_path / "conv.mlir"
    path.write_text(case.src)
    arg = "x".join(map(str, case.x.shape)) + "xi8=" + ",".join(map(str, case.x.ravel()))
    printed = []
    for backend in ("numpy", "xla"):
        out = io.StringIO()
        assert run_main([str(path), f"--input={arg}", "--semantics", semantics,
                         "--backend", backend], stdout=out) == 0
        printed.append(out.getvalue())
    assert "@main result[0]" in printed[0] and printed[0] == printed[1]
